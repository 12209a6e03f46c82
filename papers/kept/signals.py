"""Never stale: a save or delete through the ORM forgets what was kept of the boards it
touches, so their pages rank the rows themselves until the next refresh
(papers.kept.rankings), moves the kept count of shown papers (papers.kept.counts), and
forgets the datasets' filter index when a dataset, a task or their links change
(papers.kept.datasets).
Connected once, by the app's ready() (`connect()`).

Bulk writes send no signals: the importer forgets the boards it writes itself, in the
same transaction (`papers.kept.forget_boards()`).
"""

from __future__ import annotations

from django.db.models.signals import (
    m2m_changed,
    post_delete,
    post_init,
    post_save,
    pre_delete,
    pre_save,
)

from papers.kept.counts import paper_count_moved
from papers.kept.datasets import forget_dataset_index
from papers.kept.rankings import forget_boards, forget_boards_of_paper
from papers.models import Dataset, LeaderboardMetric, LeaderboardRow, Paper, Task

# The paper fields a board's facts read (the chart's dates, the execution facts).
PAPER_FIELDS = {"published", "hidden", "has_report", "sample_statuses", "report_claim"}


def remember_board(sender, instance, **kwargs) -> None:
    # The board it was loaded on: a save that moves it changes that board too. Read
    # from __dict__ so that a deferred column is not loaded for it.
    instance._board_loaded = instance.__dict__.get("leaderboard_id")


def board_changed(sender, instance, **kwargs) -> None:
    forget_boards({instance.leaderboard_id, getattr(instance, "_board_loaded", None)})
    instance._board_loaded = instance.leaderboard_id


def shown_before_save(sender, instance, update_fields=None, **kwargs) -> None:
    # Whether the row was shown before this save (None: no row yet, or `hidden` is not
    # written): read from the database, since the instance may not have come from it.
    before = None
    if instance.pk is not None and (update_fields is None or "hidden" in update_fields):
        hidden = Paper.objects.filter(pk=instance.pk).values_list("hidden", flat=True).first()
        before = None if hidden is None else not hidden
    instance._shown_before = before


def _shown_papers_moved(instance, created: bool, update_fields) -> None:
    """Move the kept count of shown papers by what this save did to it."""
    if not created and update_fields is not None and "hidden" not in update_fields:
        return
    before = bool(getattr(instance, "_shown_before", None))
    after = not instance.hidden
    if before != after:
        paper_count_moved(1 if after else -1)


def paper_saved(sender, instance, created, update_fields=None, **kwargs) -> None:
    _shown_papers_moved(instance, created, update_fields)
    if created or (update_fields is not None and not PAPER_FIELDS & set(update_fields)):
        return
    forget_boards_of_paper(instance.pk)


def paper_deleted(sender, instance, **kwargs) -> None:
    # Before the delete: its rows lose their paper (SET_NULL) without a signal of theirs.
    forget_boards_of_paper(instance.pk)
    if Paper.objects.filter(pk=instance.pk, hidden=False).exists():
        paper_count_moved(-1)


def catalogue_changed(sender, **kwargs) -> None:
    forget_dataset_index()


def connect() -> None:
    """Connect the handlers (idempotent: each has its dispatch_uid)."""
    for model in (LeaderboardRow, LeaderboardMetric):
        name = model.__name__
        post_init.connect(remember_board, sender=model, dispatch_uid=f"kept.remember.{name}")
        for signal in (post_save, post_delete):
            signal.connect(board_changed, sender=model, dispatch_uid=f"kept.board.{name}")
    pre_save.connect(shown_before_save, sender=Paper, dispatch_uid="kept.paper.shown")
    post_save.connect(paper_saved, sender=Paper, dispatch_uid="kept.paper.saved")
    pre_delete.connect(paper_deleted, sender=Paper, dispatch_uid="kept.paper.deleted")
    for model in (Dataset, Task):
        name = model.__name__
        for signal in (post_save, post_delete):
            signal.connect(catalogue_changed, sender=model, dispatch_uid=f"kept.index.{name}")
    m2m_changed.connect(
        catalogue_changed, sender=Dataset.tasks.through, dispatch_uid="kept.index.links"
    )
