"""The plain values each archive kind's parser gives the writer (papers.archive.write).

Which source wrote a paper's fields is its rank: a source never overwrites a non-empty
value written by a higher-ranked one, so files give the same end state in any order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RANK_STUB, RANK_DUMP, RANK_RECORD = 0, 1, 2


@dataclass(slots=True)
class PaperIn:
    slug: str
    rank: int
    fields: dict[str, Any]
    authors: list[str] | None = None
    tasks: list[str] | None = None
    methods: list[str] | None = None
    # (title, abstract, author names, search vector) computed ahead of the writer on
    # PostgreSQL (papers.archive.engines.postgresql.vectors), or None.
    search: tuple[str, str, str, str] | None = None
    # Keyed by its arXiv id (the record had no paper URL): `slug` is provisional
    # (n.arxiv_slug), and the paper that has this arXiv id, if any, is the one updated.
    by_arxiv: bool = False
    edited: bool = False  # the record says staff edited it (see common.edited())


@dataclass(slots=True)
class RepoIn:
    url: str
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class LinkIn:
    paper: PaperIn
    repo: RepoIn
    fields: dict[str, Any]
    edited: bool = False


@dataclass(slots=True)
class RecordIn:
    paper: PaperIn
    links: list[LinkIn]
    report: dict[str, Any] | None
    report_repos: list[tuple[RepoIn, str]]
    samples: list[dict[str, Any]]
    datasets_introduced: list[str]
    methods_introduced: list[str]


@dataclass(slots=True)
class MethodIn:
    slug: str
    fields: dict[str, Any]
    collections: list[dict[str, str]]
    edited: bool = False


@dataclass(slots=True)
class DatasetIn:
    slug: str  # "" for a dataset known only by its name, which is then its identity
    fields: dict[str, Any]
    tasks: list[str]
    edited: bool = False


@dataclass(slots=True)
class TaskIn:
    """A node of an evaluation-tables tree. Its identity is its path of names from the
    top-level task: the loader (papers.archive.write.identity) gives it the slug of its name
    unless another node holds that slug, then one qualified by its parent's."""

    path: tuple[str, ...]
    fields: dict[str, Any]
    position: int = 0  # among its parent's subtasks
    # What the node holds (description, datasets, subtasks): the same subtask repeated
    # under several parents holds the same, and is one task.
    content_key: str = ""
    # Only named ({"task": …}): a mention of a task given in full elsewhere.
    reference: bool = False
    # The slug a `url` gives (our exports name a task whose slug its name would not
    # give): then the identity, whatever the path.
    slug: str = ""

    @property
    def name(self) -> str:
        return self.path[-1]


@dataclass(slots=True)
class LeaderboardIn:
    task: tuple[str, ...]  # the task node's path
    # The dataset: its name, and its slug where the board gives one (our exports do where
    # the name would not lead to it), which is then its identity.
    dataset: tuple[str, str]
    parent: tuple[str, str] | None  # the parent board's dataset, for a subdataset
    position: int  # in the task's boards, source order, subdatasets after their parent
    fields: dict[str, Any]
    metrics: list[str]
    rows: list[dict[str, Any]]
    # Metric name → the direction the board's description states for it, if any.
    stated: dict[str, bool | None]


@dataclass(slots=True)
class EvaluationIn:
    tasks: list[TaskIn]
    leaderboards: list[LeaderboardIn]
    stubs: list[PaperIn]
