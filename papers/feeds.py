"""Atom feeds of the latest papers (the whole archive, one per task, one per arXiv
category) and of the latest changes (site-wide, one per task, one per board).

"Latest" is Paper.objects.latest(): newest publication date first, leaving out hidden
papers and papers whose date is flagged uncertain (before 1900 or after the snapshot),
which would otherwise sit on top for ever. One query a feed: items use only the
paper's own columns (author_names is denormalised).
"""

from __future__ import annotations

import datetime as dt
import re
from urllib.parse import urlencode

from django.contrib.syndication.views import Feed
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape
from django.utils.text import Truncator

from codewithpapers.middleware import reads
from codewithpapers.public import PublicRequest
from papers import changes
from papers.models import Leaderboard, Paper, Revision, Task

FEED_ITEMS = 30
# What XML 1.0 cannot carry: control characters (Django refuses them with a 500), lone
# surrogates, U+FFFE and U+FFFF (the XML would not parse), and with them the other
# noncharacters, which mean nothing to a reader. Imports drop them
# (papers.archive.read.normalise.text); rows written before they did, or by hand, may
# still hold them.
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(
    f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(17)
)
_NOT_XML = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff{_NONCHARACTERS}]")


def xml_text(text: str) -> str:
    return _NOT_XML.sub("", text)


ITEM_FIELDS = ("id", "slug", "title", "abstract", "published", "updated_at", "author_names")


@reads()
class LatestPapersFeed(Feed):
    feed_type = Atom1Feed
    title = "Latest papers · Code with Papers"
    link = "/"
    subtitle = "The newest papers in the Papers with Code archive, with their code."

    def get_feed(self, obj, request):
        # Links at the site's public address (codewithpapers.public), not at any port a
        # Host header names.
        return super().get_feed(obj, PublicRequest(request))

    def items(self):
        return Paper.objects.latest().only(*ITEM_FIELDS)[:FEED_ITEMS]

    def item_title(self, item: Paper) -> str:
        return xml_text(item.title or item.slug)

    def item_description(self, item: Paper) -> str:
        return xml_text(Truncator(item.abstract).chars(1000))

    def item_link(self, item: Paper) -> str:
        return item.get_absolute_url()

    def item_author_name(self, item: Paper) -> str:
        return xml_text(Truncator(item.author_names).chars(200))

    def item_pubdate(self, item: Paper) -> dt.datetime:
        return dt.datetime.combine(item.published, dt.time(), tzinfo=dt.UTC)

    def item_updateddate(self, item: Paper) -> dt.datetime:
        return item.updated_at


class TaskPapersFeed(LatestPapersFeed):
    def get_object(self, request, slug: str) -> Task:
        return get_object_or_404(Task, slug=slug)

    def title(self, obj: Task) -> str:
        return xml_text(f"Latest papers on {obj.name} · Code with Papers")

    def link(self, obj: Task) -> str:
        return obj.get_absolute_url()

    def subtitle(self, obj: Task) -> str:
        return xml_text(f"The newest papers in the Papers with Code archive on {obj.name}.")

    def items(self, obj: Task):
        return Paper.objects.latest().filter(task_links__task=obj).only(*ITEM_FIELDS)[:FEED_ITEMS]


class CategoryPapersFeed(LatestPapersFeed):
    """/latest/<category>.atom: the newest papers arXiv lists in a category."""

    def get_object(self, request, category: str) -> str:
        from papers.forms import CATEGORY

        if not CATEGORY.match(category):
            raise Http404("Not an arXiv category")
        return category

    def title(self, obj: str) -> str:
        return f"Latest papers in {obj} · Code with Papers"

    def link(self, obj: str) -> str:
        return f"/latest?category={obj}"

    def subtitle(self, obj: str) -> str:
        return f"The newest papers arXiv lists in {obj}, with their code."

    def items(self, obj: str):
        return Paper.objects.latest().in_category(obj).only(*ITEM_FIELDS)[:FEED_ITEMS]


# --- changes --------------------------------------------------------------------------------


@reads()
class ChangesFeed(Feed):
    """/changes.atom: the newest revisions, site-wide; each entry links to its place in
    /changes. One query (two with the task or board the subclasses name)."""

    feed_type = Atom1Feed
    title = "Recent changes · Code with Papers"
    link = "/changes"
    subtitle = (
        "Every change to the archive since its snapshot: who made it, through what, and "
        "what it changed."
    )

    def get_feed(self, obj, request):
        return super().get_feed(obj, PublicRequest(request))

    def items(self):
        return changes.newest_revisions()[:FEED_ITEMS]

    def item_title(self, item: Revision) -> str:
        what = item.object_repr or item.comment or "the archive"
        return xml_text(Truncator(f"{item.get_action_display()} {what}").chars(200))

    def item_description(self, item: Revision) -> str:
        parts = [f"<p>By {escape(item.who)}, through {escape(item.get_via_display())}.</p>"]
        if item.comment:
            parts.append(f"<p>{escape(item.comment)}</p>")
        fields = item.changes if isinstance(item.changes, dict) else {}
        lines = [
            f"<li>{escape(name)}: {_shown(pair[0])} → {_shown(pair[1])}</li>"
            for name, pair in sorted(fields.items())[:FEED_FIELDS]
            if isinstance(pair, list | tuple) and len(pair) == 2
        ]
        if lines:
            parts.append("<ul>" + "".join(lines) + "</ul>")
        return xml_text("".join(parts))

    def item_link(self, item: Revision) -> str:
        query = urlencode({"status": "live", "revisions_before": item.pk + 1})
        return f"{reverse('papers:changes')}?{query}#revision-{item.pk}"

    def item_author_name(self, item: Revision) -> str:
        return xml_text(Truncator(item.who).chars(200))

    def item_pubdate(self, item: Revision) -> dt.datetime:
        return item.created_at


FEED_FIELDS = 20  # fields of one revision's diff an entry lists


def _shown(value) -> str:
    return escape(Truncator("—" if value is None else str(value)).chars(200))


class TaskChangesFeed(ChangesFeed):
    """/task/<slug>/changes.atom: the task's changes and its boards'."""

    def get_object(self, request, slug: str) -> Task:
        return get_object_or_404(Task.objects.only("id", "slug", "name"), slug=slug)

    def title(self, obj: Task) -> str:
        return xml_text(f"Changes to {obj.name} · Code with Papers")

    def link(self, obj: Task) -> str:
        return obj.get_absolute_url()

    def subtitle(self, obj: Task) -> str:
        return xml_text(f"Every change to the task {obj.name} and to its leaderboards.")

    def items(self, obj: Task):
        return changes.task_changes(obj)[:FEED_ITEMS]


class BoardChangesFeed(ChangesFeed):
    """/sota/<task>-on-<dataset>/changes.atom: the board's changes, its metrics' and its
    results'."""

    def get_object(self, request, slug: str) -> Leaderboard:
        from papers.leaderboards.board import find_board

        board, _canonical = find_board(slug)
        if board is None:
            raise Http404("No such leaderboard")
        return board

    def title(self, obj: Leaderboard) -> str:
        return xml_text(f"Changes to {obj.task.name} on {obj.dataset.name} · Code with Papers")

    def link(self, obj: Leaderboard) -> str:
        return obj.get_absolute_url()

    def subtitle(self, obj: Leaderboard) -> str:
        return xml_text(
            f"Every result, metric and detail added to or changed on the leaderboard of "
            f"{obj.task.name} on {obj.dataset.name}."
        )

    def items(self, obj: Leaderboard):
        return changes.board_changes(obj)[:FEED_ITEMS]
