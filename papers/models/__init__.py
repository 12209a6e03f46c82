from papers.models.base import Record
from papers.models.leaderboards import (
    Leaderboard,
    LeaderboardExecution,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    ranked_rows,
    restate_directions,
    revalue_boards,
    unranked_values,
)
from papers.models.papers import (
    NEWEST_FIRST,
    Author,
    CodeLink,
    Paper,
    PaperAuthor,
    RelatedPaper,
    Repository,
    refresh_counts,
    uncertain_date,
    uncertain_year,
)
from papers.models.reports import ReportRepository, Sample, report_by_repo_kind, report_summary
from papers.models.taxonomy import (
    Collection,
    Dataset,
    Method,
    MethodCollection,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Task,
    TaskEdge,
    linked_records,
    refresh_browse_counts,
    refresh_browse_counts_of_papers,
)
from papers.models.venues import Venue, refresh_venues

# What the site works out from the records and keeps for the pages (papers.rankings' facts
# of each board, the venues): neither staff's nor an archive's data (no admin, no natural
# keys, never exported).
KEPT_FACTS = (MetricRanking, LeaderboardExecution, Venue)

__all__ = [
    "KEPT_FACTS",
    "NEWEST_FIRST",
    "Author",
    "CodeLink",
    "Collection",
    "Dataset",
    "Leaderboard",
    "LeaderboardExecution",
    "LeaderboardMetric",
    "LeaderboardRow",
    "Method",
    "MethodCollection",
    "MetricRanking",
    "Paper",
    "PaperAuthor",
    "PaperDataset",
    "PaperMethod",
    "PaperTask",
    "Record",
    "RelatedPaper",
    "ReportRepository",
    "Repository",
    "Sample",
    "Task",
    "TaskEdge",
    "Venue",
    "linked_records",
    "ranked_rows",
    "refresh_browse_counts",
    "refresh_browse_counts_of_papers",
    "refresh_counts",
    "refresh_venues",
    "report_by_repo_kind",
    "report_summary",
    "restate_directions",
    "revalue_boards",
    "uncertain_date",
    "uncertain_year",
    "unranked_values",
]
