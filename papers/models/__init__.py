from papers.models.base import Record
from papers.models.facts import KeptFact
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
)
from papers.models.venues import Venue

# What the site works out from the records and keeps for the pages (papers.kept: the facts
# of each board, the venues): neither staff's nor an archive's data (no admin, no natural
# keys, never exported).
KEPT_FACTS = (MetricRanking, LeaderboardExecution, Venue, KeptFact)

__all__ = [
    "KEPT_FACTS",
    "NEWEST_FIRST",
    "Author",
    "CodeLink",
    "Collection",
    "Dataset",
    "KeptFact",
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
    "ranked_rows",
    "report_by_repo_kind",
    "report_summary",
    "restate_directions",
    "revalue_boards",
    "uncertain_date",
    "uncertain_year",
    "unranked_values",
]
