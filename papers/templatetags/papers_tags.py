from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    """{{ row.metrics|get_item:name }}: a dict value by a key that is not an identifier."""
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None


TITLE_CUT = 50  # seed 002: a related paper's title, cut at 50 characters with "…"
SNIPPET_CUT = 240  # seed 002: its abstract, cut at a word boundary to at most 240


@register.filter
def cut_title(title: str, limit: int = TITLE_CUT) -> str:
    """The first `limit` characters and "…" when the title is longer (seed 002 cuts
    mid-word: "…Should Be Wid…")."""
    title = " ".join((title or "").split())
    if len(title) <= limit:
        return title
    return title[:limit].rstrip() + "…"


@register.filter
def snippet(text: str, limit: int = SNIPPET_CUT) -> str:
    """At most `limit` characters ending at a word boundary, then "…" when anything was
    cut. Whitespace runs (line breaks in abstracts) read as one space, as on the page."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    if text[limit] == " ":  # a word ends exactly at the limit
        cut = text[:limit]
    else:
        cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip() + "…"


@register.filter
def title_is_cut(title: str) -> bool:
    return len(" ".join((title or "").split())) > TITLE_CUT


@register.filter
def abstract_is_cut(text: str) -> bool:
    return len(" ".join((text or "").split())) > SNIPPET_CUT


@register.filter
def metric_value(value) -> str:
    """A metric value as the source gives it (62687, not 62687.0)."""
    from papers.catalogue import metric_text

    return metric_text(value)


@register.filter
def ordinal(n) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st…"""
    try:
        n = int(n)
    except (TypeError, ValueError):
        return ""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


@register.filter
def split(value: str, sep: str = ",") -> list[str]:
    return str(value).split(sep)


@register.filter
def abstract_html(text: str):
    """An abstract as paragraphs, its LaTeX as MathML (papers.markup.render_abstract)."""
    from django.utils.safestring import mark_safe

    from papers.markup import render_abstract

    return mark_safe(render_abstract(text).html)  # sanitised by nh3 in render_abstract


@register.filter
def share_bar(counts):
    """{status: n} as a stacked bar (papers.charts.share_bar), or None when empty."""
    from papers.charts import share_bar as bar

    return bar(dict(counts or {}))


@register.filter
def plain_description(text: str) -> str:
    """A Markdown description as plain text (meta descriptions): rendered, then its tags
    stripped and its whitespace collapsed."""
    from django.utils.html import strip_tags

    from papers.markup import render_description

    return " ".join(strip_tags(render_description(text).html).split())
