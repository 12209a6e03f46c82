"""Authors' verdicts on result rows, and the badge code a paper page hands out."""

from __future__ import annotations

from urllib.parse import quote

from django import template
from django.utils.html import escape

from papers.contributions.authors import verification_of

register = template.Library()


@register.filter
def verification(row):
    """The row's ResultVerification, or None (no query when it was select_related)."""
    return verification_of(row)


@register.simple_tag(takes_context=True)
def badge_code(context, paper, result) -> dict | None:
    """What a paper's README embeds for one of its ranked results: the badge's label, its
    image URL and the board's (absolute, at the site's public address), and the Markdown
    and HTML that show the one linking to the other. None for a row without a rank."""
    if not result.rank:
        return None
    board = result.row.leaderboard
    dataset = board.dataset.name
    label = f"SOTA on {dataset}" if result.rank == 1 else f"#{result.rank} on {dataset}"
    path = f"{board.get_absolute_url()}/badge.svg?paper={quote(paper.slug, safe='')}"
    base = context.get("site_url", "")
    board_url = base + board.get_absolute_url()
    image = base + path
    alt = label.replace("[", "(").replace("]", ")")
    return {
        "label": label,
        "path": path,  # the preview's (the page's own origin, as the CSP wants)
        "image": image,
        "board": board_url,
        "markdown": f"[![{alt}]({image})]({board_url})",
        "html": (
            f'<a href="{escape(board_url)}"><img src="{escape(image)}" alt="{escape(label)}"></a>'
        ),
    }
