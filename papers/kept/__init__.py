"""What the site keeps and derives from the records, and when it is refreshed.

Kept, for the pages to read instead of working it out per request:
- each paper's own counts of its code links and samples, and its author names
  (papers.kept.papers);
- each task's, method's and dataset's counts and execution aggregates
  (papers.kept.curated);
- the venues, one row per venue and year, from the papers' `proceeding` values
  (papers.kept.venues);
- each leaderboard's rankings, progress charts and execution facts
  (papers.kept.rankings), which an ORM write to a board forgets at once
  (papers.kept.signals) so that a page never reads a stale ranking;
- the frameworks' shares of new code links a quarter, for /trends (papers.kept.trends),
  refreshed by `refresh_all()` only;
- how many papers are shown (papers.kept.counts), moved by each ORM write of a paper,
  and the repositories and samples by status, counted again by writes that move them;
- the index /datasets filters with (papers.kept.datasets), which an ORM write to a
  dataset, a task or their links forgets, and the next page works out again.

Who refreshes:
- any write to the records (the admin through papers.kept.admin, the write API and
  contribution forms) calls `after_write()` once it is done;
- a bulk import forgets the boards it rewrites in the transaction that rewrites them
  (`forget_boards()`), refreshes its papers' own counts
  (papers.kept.papers.refresh_counts()), then everything else at once (`refresh_all()`,
  also `manage.py refresh_browse_counts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from papers.kept import curated, trends, venues
from papers.kept.counts import ensure_paper_count, refresh_archive_counts, refresh_paper_count
from papers.kept.datasets import refresh_dataset_index
from papers.kept.papers import refresh_author_names, refresh_counts
from papers.kept.rankings import forget_boards, refresh_boards
from papers.models import Dataset, Leaderboard, LeaderboardRow, Method, Paper, Task, Venue

__all__ = ["after_write", "forget_boards", "linked_records", "refresh_all"]

CURATED = (Task, Method, Dataset)


def refresh_all() -> int:
    """Every task's, method's and dataset's counts, the venues, then every leaderboard's
    rankings: what an import must call once its papers' own counts, links and
    leaderboards are written. How many tasks, methods, datasets and venues changed."""
    changed = sum(curated.refresh_counts(model.objects.all()) for model in CURATED)
    changed += venues.refresh_venues()
    refresh_boards()
    trends.refresh_trends()
    refresh_paper_count()
    refresh_archive_counts()
    refresh_dataset_index()
    return changed


def linked_records(paper_ids: Iterable[int]) -> dict[type, set]:
    """What these papers feed: the ids of the tasks, methods and datasets they are linked
    to and of the leaderboards with rows of theirs, by model, and (under Venue) the
    `proceeding` values they hold, which name their venues. One query a model.

    Read it before a write that may unlink papers (a link deleted or moved, a
    proceeding changed, a paper deleted) and give it to `after_write(records=…)`: the
    records the papers fed before the write are refreshed with those they feed after."""
    ids = sorted({pk for pk in paper_ids if pk is not None})
    found: dict[type, set] = {model: set() for model in (*CURATED, Leaderboard)}
    found[Venue] = set()
    if not ids:
        return found
    rows = Paper.objects.filter(id__in=ids).exclude(proceeding="").order_by()
    found[Venue] = set(rows.values_list("proceeding", flat=True).distinct())
    for model in CURATED:
        link = model._meta.get_field("paper_links").related_model
        key = f"{model._meta.model_name}_id"
        rows = link.objects.filter(paper_id__in=ids).order_by().values_list(key, flat=True)
        found[model] = set(rows.distinct())
    rows = LeaderboardRow.objects.filter(paper_id__in=ids).order_by()
    found[Leaderboard] = set(rows.values_list("leaderboard_id", flat=True).distinct())
    return found


def after_write(
    *,
    papers: Iterable[int] = (),
    boards: Iterable[int] = (),
    records: Mapping[type, Iterable] | None = None,
    author_names: bool = False,
    kept_boards: Iterable[int] = (),
) -> int:
    """Refresh what a write may have changed of what is kept; the one call to make after
    any write that is not a bulk import.

    - `papers`: ids of the papers written (the paper, or rows of its: links, samples,
      authorships, its report). Their own counts are refreshed (and their author names
      when `author_names`: their author lists or an author's name changed), then the
      records they feed (linked_records()).
    - `boards`: ids of the leaderboards whose own rows or metrics were written.
    - `records`: records to refresh besides those, in linked_records()' shape
      ({Task: ids, …, Leaderboard: ids, Venue: proceeding values}): what the papers fed
      before the write, or the records a write changed directly (a board's task and
      dataset).
    - `kept_boards`: leaderboards the write kept up to date itself
      (papers.kept.increments), not refreshed even when the papers feed them, unless
      the papers' own counts change here.

    Returns how many tasks, methods, datasets and venues changed."""
    ids = {pk for pk in papers if pk is not None}
    if ids:
        ensure_paper_count()
        if author_names:
            refresh_author_names(ids)
        if refresh_counts(sorted(ids)):
            # A paper's samples by status changed: its boards' facts read them, and the
            # archive's counts of repositories and statuses may have moved.
            kept_boards = ()
            refresh_archive_counts()
    wanted = linked_records(ids)
    for model, given in (records or {}).items():
        wanted.setdefault(model, set()).update(given)
    wanted[Leaderboard].update(boards)
    wanted[Leaderboard].difference_update(kept_boards)
    changed = 0
    for model, found in wanted.items():
        found = {value for value in found if value is not None}
        if not found:
            continue
        if model is Leaderboard:
            refresh_boards(found)
        elif model is Venue:
            changed += venues.refresh_venues(found)
        else:
            changed += curated.refresh_counts(model.objects.filter(id__in=sorted(found)))
    return changed
