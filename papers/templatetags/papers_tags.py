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
