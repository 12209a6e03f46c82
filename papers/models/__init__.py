from papers.models.accounts import AuthorClaim, Member, ResultVerification, Verdict
from papers.models.base import ARCHIVE_SNAPSHOT, Record
from papers.models.contributions import ApiToken, Level, Proposal, Revision
from papers.models.facts import KeptFact
from papers.models.harvests import Harvest
from papers.models.leaderboards import (
    Leaderboard,
    LeaderboardExecution,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    ranked_rows,
    reread_board,
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
    Unindexed,
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
# Who may write and what they wrote (papers.contributions): not archive data either (never
# exported, nor compared between imports).
CONTRIBUTIONS = (ApiToken, Revision, Proposal, Member, AuthorClaim, ResultVerification)
# The arXiv harvests' journal (papers.arxiv.harvest): the site's operations, not data
# (no admin, no natural keys, never exported).
JOURNALS = (Harvest,)

__all__ = [
    "ARCHIVE_SNAPSHOT",
    "CONTRIBUTIONS",
    "JOURNALS",
    "KEPT_FACTS",
    "NEWEST_FIRST",
    "ApiToken",
    "Author",
    "AuthorClaim",
    "CodeLink",
    "Collection",
    "Dataset",
    "Harvest",
    "KeptFact",
    "Leaderboard",
    "LeaderboardExecution",
    "LeaderboardMetric",
    "LeaderboardRow",
    "Level",
    "Member",
    "Method",
    "MethodCollection",
    "MetricRanking",
    "Paper",
    "PaperAuthor",
    "PaperDataset",
    "PaperMethod",
    "PaperTask",
    "Proposal",
    "Record",
    "RelatedPaper",
    "ReportRepository",
    "Repository",
    "ResultVerification",
    "Revision",
    "Sample",
    "Task",
    "TaskEdge",
    "Unindexed",
    "Venue",
    "Verdict",
    "ranked_rows",
    "report_by_repo_kind",
    "report_summary",
    "reread_board",
    "restate_directions",
    "revalue_boards",
    "uncertain_date",
    "uncertain_year",
    "unranked_values",
]
