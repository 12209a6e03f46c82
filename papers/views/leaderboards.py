"""A leaderboard's page, /sota/<task>-on-<dataset> (its queries: papers.leaderboards)."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from codewithpapers.middleware import reads
from papers import markup, outlinks
from papers.forms import BoardForm
from papers.leaderboards.board import board_view, find_board
from papers.views.common import HtmxHttpRequest, bad_request, valid, wants_fragment


def board_urls(board, view) -> list[str]:
    """The URLs the board's page links to that may name a record of ours: its links and
    citations, and the papers of the rows shown that are not in the archive."""
    urls = [
        item.get("url")
        for item in [*board.dataset_links, *board.dataset_citations]
        if isinstance(item, dict)
    ]
    urls += [row.paper_url for row in view.rows if not row.paper_id]
    return [url for url in urls if isinstance(url, str)]


@reads(BoardForm)
@require_safe
@vary_on_headers("HX-Request")
def leaderboard(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    board, canonical = find_board(slug)
    if board is None:
        raise Http404("No such leaderboard")
    if not canonical:
        target = board.get_absolute_url()
        if request.GET:
            target += "?" + request.GET.urlencode()
        return redirect(target, permanent=True)
    data, error = valid(BoardForm, request)
    if error:
        return error
    view = board_view(board, data["metric"], data["page"] or 1, data["rows"])
    if view is None:
        return bad_request(request, f"metric: {data['metric']!r} is not a metric of this board")
    context = {
        "view": view,
        "board": board,
        "outlinks": outlinks.resolve(board_urls(board, view)),
        "contribute_url": reverse("papers:contribute-board", kwargs={"slug": slug}),
        **outlinks.without_dead_links(
            markup.render_all(
                description=board.description, contributed=board.source == "contributed"
            )
        ),
    }
    template = "papers/leaderboard.html"
    if wants_fragment(request):  # the rows filter swaps the results, the metric the board
        template += "#results" if request.htmx.target == "results" else "#board"
    return render(request, template, context)
