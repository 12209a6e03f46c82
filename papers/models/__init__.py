from papers.models.base import Record
from papers.models.leaderboards import (
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    infer_lower_is_better,
    parse_metric_value,
    ranked_rows,
)
from papers.models.papers import (
    Author,
    CodeLink,
    Paper,
    PaperAuthor,
    RelatedPaper,
    Repository,
    uncertain_date,
)
from papers.models.reports import ReportRepository, Sample, report_by_repo_kind, report_summary
from papers.models.taxonomy import (
    Collection,
    Dataset,
    Method,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Task,
    TaskEdge,
)

__all__ = [
    "Author",
    "CodeLink",
    "Collection",
    "Dataset",
    "Leaderboard",
    "LeaderboardMetric",
    "LeaderboardRow",
    "Method",
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
    "infer_lower_is_better",
    "parse_metric_value",
    "ranked_rows",
    "report_by_repo_kind",
    "report_summary",
    "uncertain_date",
]
