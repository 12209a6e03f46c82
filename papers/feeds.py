"""Atom feeds of the latest papers: the whole archive, and one per task.

"Latest" is Paper.objects.latest(): newest publication date first, leaving out hidden
papers and papers whose date is flagged uncertain (before 1900 or after the snapshot),
which would otherwise sit on top for ever. One query a feed: items use only the
paper's own columns (author_names is denormalised).
"""

from __future__ import annotations

import datetime as dt
import re

from django.contrib.syndication.views import Feed
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.feedgenerator import Atom1Feed
from django.utils.text import Truncator

from codewithpapers.middleware import reads
from codewithpapers.public import PublicRequest
from papers.models import Paper, Task

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
