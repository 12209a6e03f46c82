from urllib.parse import urlencode

from django import template

from papers import outlinks, titles, venues
from papers.metrics import metric_text
from papers.titles import outside_math
from papers.vocabularies import ContractCheck, RepoKind, SampleStatus, label_for

register = template.Library()


@register.filter
def get_item(mapping, key):
    """{{ row.metrics|get_item:name }}: a dict value by a key that is not an identifier."""
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None


TITLE_CUT = 50  # a related paper's title, cut at 50 characters with "…"
SNIPPET_CUT = 240  # its abstract, cut at a word boundary to at most 240


@register.filter
def cut_title(title: str, limit: int = TITLE_CUT) -> str:
    """The first `limit` characters and "…" when the title is longer (the Related
    papers section cuts mid-word: "…Should Be Wid…"), never inside a formula: one the
    limit falls in is left out whole, so that what is shown renders (math_text)."""
    title = " ".join((title or "").split())
    if len(title) <= limit:
        return title
    return title[: outside_math(title, limit)].rstrip() + "…"


@register.filter
def snippet(text: str, limit: int = SNIPPET_CUT) -> str:
    """At most `limit` characters ending at a word boundary, then "…" when anything was
    cut. Whitespace runs (line breaks in abstracts) read as one space, as on the page. A
    formula the cut would split is left out whole."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    if text[limit] == " ":  # a word ends exactly at the limit
        cut = text[:limit]
    else:
        cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    cut = cut[: outside_math(text, len(cut))]
    return cut.rstrip() + "…"


@register.filter
def math_text(text: str):
    """A title or a snippet as HTML, its $…$ math rendered as abstracts render theirs
    (papers.titles); titles without math are only escaped."""
    return titles.math_text(text)


@register.simple_tag(takes_context=True)
def outlink(context, url, title="", cut: int = 0):
    """A link a record gives to another page: {% outlink row.paper_url row.paper_title 70 %}.
    Its text is the title (cut at `cut` characters when given; its math rendered), else
    the URL. A Papers with Code page we have leads here (the view's `outlinks`, from
    papers.outlinks.resolve()), one we do not is an archived link, another site's is
    linked as it is, and what is not an http(s) URL is text (papers.outlinks.link)."""
    text = outlinks.shown_title(title if isinstance(title, str) else "", url)
    if cut:
        text = cut_title(text, cut)
    request = context.get("request")
    return outlinks.link(
        url, titles.math_text(text), context.get("outlinks"), request.path if request else ""
    )


@register.simple_tag
def venue_link(proceeding: str):
    """A paper's proceedings as its venue and year ("NeurIPS 2020 12" is NeurIPS 2020),
    linked to the venue's page; a value that names no venue, as given."""
    from django.urls import reverse
    from django.utils.html import format_html

    venue = venues.parse(proceeding)
    if venue is None:
        return proceeding or ""
    url = reverse("papers:conference", kwargs={"slug": venue.slug})
    return format_html('<a href="{}" class="venue">{}</a>', url, venue.label)


@register.filter
def title_is_cut(title: str) -> bool:
    return len(" ".join((title or "").split())) > TITLE_CUT


@register.filter
def abstract_is_cut(text: str) -> bool:
    return len(" ".join((text or "").split())) > SNIPPET_CUT


@register.filter
def count(value) -> str:
    """A count with thousands separators: 2629 → "2,629" (whatever the locale settings)."""
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return "" if value is None else str(value)


_VOCABULARIES = {
    "status": SampleStatus,
    "contract_check": ContractCheck,
    "repo_kind": RepoKind,
}


@register.filter
def value_label(value: str, field: str) -> str:
    """The label of a sample field's value ({{ "ran_violates"|value_label:"status" }} is
    "Ran, violates its contract"); values no vocabulary knows, and languages, as given."""
    vocabulary = _VOCABULARIES.get(field)
    return label_for(vocabulary, value) if vocabulary else value


@register.filter
def framework_label(value: str) -> str:
    """A code link's framework as the site shows it: the archive's "none" is unspecified."""
    return "unspecified" if value == "none" else value


@register.simple_tag(takes_context=True)
def query_url(context, path: str, *pairs, **changes) -> str:
    """`path` with the request's query string changed: {% query_url url page=2 task=None %},
    or with a key held in a variable, {% query_url url field value page=None %}. None
    drops a parameter; empty values are dropped too, and a query string left empty leaves
    no "?" behind, so links never carry `task=&method=`."""
    params = context["request"].GET.copy()
    changes = {**dict(zip(pairs[::2], pairs[1::2], strict=True)), **changes}
    for key, value in changes.items():
        params.pop(key, None)
        if value is not None:
            params[key] = value
    kept = [(key, value) for key, values in params.lists() for value in values if value != ""]
    return f"{path}?{urlencode(kept)}" if kept else path


@register.filter
def htmx_target(request) -> str:
    return request.headers.get("HX-Target", "")


@register.filter
def address_words(path: str) -> str:
    """The words of an address's last part, to search for: /paper/deep-nets-2 → "deep nets 2"."""
    last = (path or "").rstrip("/").rsplit("/", 1)[-1].removesuffix(".json")
    return " ".join(part for part in last.replace("_", "-").split("-") if part)[:100]


@register.filter
def field_value(form, name: str) -> str:
    """A bound form field's value as given ("" when absent), for a field named in a
    variable: {{ form|field_value:field }}."""
    value = form[name].value()
    return "" if value is None else value


@register.filter
def metric_value(value) -> str:
    """A metric value as the source gives it (62687, not 62687.0)."""
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


# --- execution facts in lists (leaderboards, benchmarks, task pages) -----------------------


@register.filter
def status_class(value) -> str:
    """The CSS class that colours a sample status as the chips do: `status-<value>` for a
    status of the vocabulary, `status-other` (a neutral colour) for any other, whose text
    may hold anything at all."""
    return f"status-{value}" if value in SampleStatus.values else "status-other"


@register.filter
def status_items(counts) -> list[tuple[str, int]]:
    """{status: n} as (status, n) pairs: the vocabulary's statuses in its order, then any
    other status, verbatim, by name. Zero counts are left out; no status is dropped."""
    counts = counts if isinstance(counts, dict) else {}
    order = {status: index for index, status in enumerate(SampleStatus.values)}
    items = [(str(status), n) for status, n in counts.items() if isinstance(n, int) and n > 0]
    return sorted(items, key=lambda item: (order.get(item[0], len(order)), item[0]))


@register.filter
def execution_bar(counts):
    """{status: n} as a stacked bar in status_items() order, or None when empty."""
    from papers.charts import share_bar as bar

    return bar(dict(status_items(counts)))


def _claims(papers) -> list[str]:
    """The claim sentences of these papers' reports as their records word them, each once,
    the most common first; the site's own sentence when a report carries none; nothing
    when no paper shown has a report."""
    from papers.vocabularies import STATUS_CLAIM

    found: dict[str, int] = {}
    reported = False
    for paper in papers:
        if paper is None or not paper.has_report or paper.hidden:
            continue
        reported = True
        if paper.report_claim:
            found[paper.report_claim] = found.get(paper.report_claim, 0) + 1
    if not reported:
        return []
    return sorted(found, key=lambda claim: -found[claim]) or [STATUS_CLAIM]


@register.filter
def benchmark_claims(benchmarks) -> list[str]:
    """The claims to show beside a benchmarks table's execution badges (see _claims)."""
    return _claims(b.best.paper for b in benchmarks if b.best is not None and b.best.paper_id)


@register.filter
def claims_or_default(claims) -> list[str]:
    """Records' claim sentences as kept on a task, method or dataset, or the site's own
    sentence when they carry none."""
    from papers.vocabularies import STATUS_CLAIM

    return [c for c in claims or [] if isinstance(c, str) and c] or [STATUS_CLAIM]


@register.filter
def status_text(value) -> str:
    """A status as words: the vocabulary's label, or any other status verbatim (never
    reworded: it is the report's own value)."""
    value = "" if value is None else str(value)
    return label_for(SampleStatus, value) if value in SampleStatus.values else value


@register.simple_tag
def execution_badge(paper):
    """A paper's execution report in one row of a list: a small stacked bar of its samples
    by status (coloured as the chips; a status outside the vocabulary in the neutral
    colour), the number of samples, and the counts by status as text for screen
    readers, linking to the report on the paper's page; "no report" otherwise. Built
    here rather than by an included template: a board shows a hundred of them."""
    from django.utils.html import format_html, format_html_join
    from django.utils.safestring import mark_safe

    if paper is None or not paper.has_report or paper.hidden:
        return mark_safe('<span class="meta exec-none">no report</span>')
    items = status_items(paper.sample_statuses)
    text = "; ".join(f"{n:,} {status_text(status)}" for status, n in items) or "no samples"
    bar = execution_bar(paper.sample_statuses)
    svg = ""
    if bar is not None:
        svg = format_html(
            '<svg class="exec-bar" viewBox="0 0 {} 10" preserveAspectRatio="none" '
            'aria-hidden="true" focusable="false">{}</svg>',
            bar.width,
            format_html_join(
                "",
                '<rect class="segment {}" x="{}" y="0" width="{}" height="10"/>',
                ((status_class(s.key), s.x, s.width) for s in bar.segments),
            ),
        )
    return format_html(
        '<a class="exec-badge" href="{}#report" title="Execution report: {}">{}'
        '<span class="exec-total" aria-hidden="true">{}</span>'
        '<span class="visually-hidden">Execution report: {}</span></a>',
        paper.get_absolute_url(),
        text,
        svg,
        count(paper.sample_count),
        text,
    )


# The report's words the glossary on /about explains, by the anchor of their entry.
GLOSSARY = {
    "status": "status",
    "contract_check": "contract-check",
    "verification_level": "level",
    "metamorphic_tier": "tier",
    "repo_kind": "repository-kind",
}


@register.simple_tag
def status_term(value):
    """A sample status as a reader reads it: its human label, then the report's code in
    an <abbr> (expanded by the label), linked to its entry in the glossary on /about. A
    status no vocabulary knows is shown verbatim, linked to the glossary's statuses."""
    from django.urls import reverse
    from django.utils.html import format_html

    value = "" if value is None else str(value)
    known = value in SampleStatus.values
    anchor = f"status-{value}" if known else "term-status"
    label = status_text(value)
    code = (
        format_html(' <abbr class="code" title="{}">{}</abbr>', label, value)
        if known and label != value
        else ""
    )
    return format_html(
        '<a class="term" href="{}#{}"><span class="{}">{}</span>{}</a>',
        reverse("papers:about"),
        anchor,
        status_class(value),
        label,
        code,
    )


@register.simple_tag
def glossary_link(term: str, text: str):
    """A report term ("Tier", "Level") linked to its entry in the glossary on /about."""
    from django.urls import reverse
    from django.utils.html import format_html

    return format_html(
        '<a class="term" href="{}#term-{}">{}</a>',
        reverse("papers:about"),
        GLOSSARY.get(term, term),
        text,
    )


@register.filter
def status_abbr(value):
    """A sample status's human label with the report's code after it in an <abbr>, for
    places already inside a link (a status not in the vocabulary: verbatim, alone)."""
    from django.utils.html import format_html

    value = "" if value is None else str(value)
    label = status_text(value)
    if value not in SampleStatus.values or label == value:
        return format_html("{}", value)
    return format_html('{} <abbr class="code" title="{}">{}</abbr>', label, label, value)


@register.simple_tag
def provenance(record) -> str:
    """Where a record's values come from, as the pages say it: "archive (snapshot
    2025-07-28)", "contributed by <user>, <date>" or "edited by staff". The contributor
    must be loaded with the record (select_related)."""
    from papers.models import ARCHIVE_SNAPSHOT

    source = getattr(record, "source", "archive")
    if source == "contributed":
        user = record.contributed_by if record.contributed_by_id else None
        who = user.get_username() if user else "a former user"
        when = record.contributed_at.date().isoformat() if record.contributed_at else ""
        return f"contributed by {who}, {when}".rstrip(", ")
    if source == "edited":
        return "edited by staff"
    return f"archive (snapshot {ARCHIVE_SNAPSHOT})"
