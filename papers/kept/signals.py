"""Never stale: a save or delete through the ORM forgets what was kept of the boards it
touches, so their pages rank the rows themselves until the next refresh
(papers.kept.rankings). Connected once, by the app's ready() (`connect()`).

Bulk writes send no signals: the importer forgets the boards it writes itself, in the
same transaction (`papers.kept.forget_boards()`).
"""

from __future__ import annotations

from django.db.models.signals import post_delete, post_init, post_save, pre_delete

from papers.kept.rankings import forget_boards, forget_boards_of_paper
from papers.models import LeaderboardMetric, LeaderboardRow, Paper

# The paper fields a board's facts read (the chart's dates, the execution facts).
PAPER_FIELDS = {"published", "hidden", "has_report", "sample_statuses", "report_claim"}


def remember_board(sender, instance, **kwargs) -> None:
    # The board it was loaded on: a save that moves it changes that board too. Read
    # from __dict__ so that a deferred column is not loaded for it.
    instance._board_loaded = instance.__dict__.get("leaderboard_id")


def board_changed(sender, instance, **kwargs) -> None:
    forget_boards({instance.leaderboard_id, getattr(instance, "_board_loaded", None)})
    instance._board_loaded = instance.leaderboard_id


def paper_saved(sender, instance, created, update_fields=None, **kwargs) -> None:
    if created or (update_fields is not None and not PAPER_FIELDS & set(update_fields)):
        return
    forget_boards_of_paper(instance.pk)


def paper_deleted(sender, instance, **kwargs) -> None:
    # Before the delete: its rows lose their paper (SET_NULL) without a signal of theirs.
    forget_boards_of_paper(instance.pk)


def connect() -> None:
    """Connect the handlers (idempotent: each has its dispatch_uid)."""
    for model in (LeaderboardRow, LeaderboardMetric):
        name = model.__name__
        post_init.connect(remember_board, sender=model, dispatch_uid=f"kept.remember.{name}")
        for signal in (post_save, post_delete):
            signal.connect(board_changed, sender=model, dispatch_uid=f"kept.board.{name}")
    post_save.connect(paper_saved, sender=Paper, dispatch_uid="kept.paper.saved")
    pre_delete.connect(paper_deleted, sender=Paper, dispatch_uid="kept.paper.deleted")
