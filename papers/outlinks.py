"""Links the archive's records give to other pages, and what becomes of those that point
at paperswithcode.com, which is gone.

The archive names its own pages by their Papers with Code URLs: a method's introducing
paper, a leaderboard row's paper, a board's "Papers with Code Leaderboard URL", links
in descriptions. Such a link leads to the record here when we have it; otherwise the
page shows its title as text and, muted beside it, the original URL as an "archived
link" to the Internet Archive's copy of that page (the Wayback Machine, which kept
paperswithcode.com's pages; `web/<date>/<url>` opens the copy nearest the archive's
snapshot date). No other copy of Papers with Code's pages is known: the pwc-archive
mirror holds its data files, not its pages. Nothing here reaches the network.

Links to other sites (arXiv, GitHub, a dataset's homepage) are kept as they are, and
anything but an http(s) URL is shown as text.
"""

from __future__ import annotations

import html
import re
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.db.models import Q
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from papers.identifiers import board_slug, board_splits

PWC_HOSTS = {"paperswithcode.com", "www.paperswithcode.com"}
WAYBACK = "https://web.archive.org/web/{date}/{url}"
# Papers with Code's record pages that have pages here, by the first part of their path.
KINDS = ("paper", "method", "task", "dataset", "sota")


def _parts(url: str):
    try:
        return urlsplit(url.strip())
    except ValueError:
        return None


def is_http(url) -> bool:
    """An absolute http(s) URL with a host (never javascript:, data: or a relative path)."""
    parts = _parts(url) if isinstance(url, str) else None
    return bool(parts and parts.scheme.lower() in {"http", "https"} and parts.netloc)


def is_pwc(url) -> bool:
    """A URL of paperswithcode.com."""
    return is_http(url) and (_parts(url).hostname or "") in PWC_HOSTS


def pwc_record(url) -> tuple[str, str] | None:
    """(kind, slug) of the Papers with Code record page a URL names, or None."""
    if not is_pwc(url):
        return None
    segments = [s for s in _parts(url).path.split("/") if s]
    if len(segments) == 2 and segments[0] in KINDS:
        return segments[0], unquote(segments[1])
    return None


def archived_copy(url: str) -> str:
    """The Wayback Machine's copy of a page, nearest the archive's snapshot date."""
    date = settings.ARCHIVE_SNAPSHOT.replace("-", "")
    return WAYBACK.format(date=date, url=url.strip())


def _shown(url: str) -> str:
    """A URL as a reader reads it: without its scheme."""
    return re.sub(r"^https?://(www\.)?", "", url.strip()).rstrip("/")


def resolve(urls) -> dict[str, str]:
    """{URL: our page's address} for the Papers with Code record URLs among `urls` that
    name a record we have (not hidden): one query per kind named, none without any."""
    from papers.models import Dataset, Leaderboard, Method, Paper, Task

    wanted: dict[str, dict[str, list[str]]] = {}
    for url in urls:
        if (record := pwc_record(url)) is not None:
            kind, slug = record
            wanted.setdefault(kind, {}).setdefault(slug, []).append(url)
    found: dict[str, str] = {}
    models = {"paper": Paper, "method": Method, "task": Task, "dataset": Dataset}
    for kind, slugs in wanted.items():
        if kind == "sota":
            continue
        rows = models[kind].objects.filter(slug__in=list(slugs), hidden=False)
        for slug in rows.values_list("slug", flat=True):
            for url in slugs[slug]:
                found[url] = reverse(f"papers:{kind}", kwargs={"slug": slug})
    if boards := wanted.get("sota"):
        exact = Q()
        for slug in boards:
            for task, dataset in board_splits(slug)[:20]:
                exact |= Q(task__slug=task, dataset__slug=dataset)
        if exact:
            pairs = Leaderboard.objects.filter(exact).values_list("task__slug", "dataset__slug")
            for task, dataset in pairs:
                slug = board_slug(task, dataset)
                for url in boards.get(slug, []):
                    found[url] = reverse("papers:leaderboard", kwargs={"slug": slug})
    return found


def archived(title_html: str, url: str) -> SafeString:
    """The title as text, and beside it, muted, the original URL linking to its copy."""
    return format_html(
        '{} <span class="meta archived-link">(archived link: <a href="{}" rel="nofollow" '
        'title="Papers with Code is gone: its page as the Internet Archive kept it">{}</a>)'
        "</span>",
        title_html,
        archived_copy(url),
        _shown(url),
    )


def link(url, title_html: str, here: dict[str, str] | None = None, path: str = "") -> SafeString:
    """`title_html` (safe HTML) linked as it should be: to our page for a Papers with
    Code record we have (`here`, from resolve(); but not to `path`, the page itself), as
    an archived link for any other Papers with Code page, to the URL for another site,
    and as text for anything that is not an http(s) URL."""
    if not is_http(url):
        return mark_safe(title_html)  # the caller gives safe HTML
    url = url.strip()
    if is_pwc(url):
        ours = (here or {}).get(url)
        if ours and ours != path:
            return format_html('<a href="{}">{}</a>', ours, title_html)
        return archived(title_html, url)
    return format_html('<a href="{}" rel="nofollow">{}</a>', url, title_html)


# An anchor to Papers with Code that papers.markup left in a rendered description: a
# record we do not have (those we have it points here already), or another page.
_PWC_ANCHOR = re.compile(
    r'<a href="(https?://(?:www\.)?paperswithcode\.com[^"]*)"[^>]*>(.*?)</a>', re.DOTALL
)


def without_dead_links(rendered: dict[str, str]) -> dict[str, SafeString]:
    """Rendered descriptions (papers.markup.render_all) whose links to Papers with Code
    pages lead here where we have the page (boards, which markup does not know), and are
    archived links otherwise: one query when a description names a board, else none."""
    found = {
        name: [(html.unescape(m[1]), m) for m in _PWC_ANCHOR.finditer(text)]
        for name, text in rendered.items()
    }
    here = resolve(url for anchors in found.values() for url, _ in anchors)
    out = {}
    for name, text in rendered.items():
        for url, match in found[name]:
            text = text.replace(match[0], link(url, match[2], here), 1)
        out[name] = mark_safe(text)  # sanitised by markup; only links rewritten
    return out


def shown_title(title: str | None, url: str | None) -> str:
    """A link's text: its title, else the URL as a reader reads it."""
    return title or (_shown(url) if isinstance(url, str) else "")
