"""Parse one raw record of each archive kind into plain, validated values.

Each parser takes the raw dict and returns the values the writer writes (shapes.py); a
value that cannot be read raises RecordError naming its field (dotted path). One module
per kind: papers.py, links.py, records.py (seed-shaped records), taxonomy.py (methods,
datasets), evaluations.py.
"""

from __future__ import annotations

from papers.archive.read.parsers.evaluations import parse_evaluation
from papers.archive.read.parsers.links import parse_link
from papers.archive.read.parsers.papers import parse_paper
from papers.archive.read.parsers.records import parse_record
from papers.archive.read.parsers.shapes import (
    RANK_DUMP,
    RANK_RECORD,
    RANK_STUB,
    DatasetIn,
    EvaluationIn,
    LeaderboardIn,
    LinkIn,
    MethodIn,
    PaperIn,
    RecordIn,
    RepoIn,
    TaskIn,
)
from papers.archive.read.parsers.taxonomy import parse_dataset, parse_method

__all__ = [
    "PARSERS",
    "RANK_DUMP",
    "RANK_RECORD",
    "RANK_STUB",
    "DatasetIn",
    "EvaluationIn",
    "LeaderboardIn",
    "LinkIn",
    "MethodIn",
    "PaperIn",
    "RecordIn",
    "RepoIn",
    "TaskIn",
    "parse_dataset",
    "parse_evaluation",
    "parse_link",
    "parse_method",
    "parse_paper",
    "parse_record",
]


PARSERS = {
    "records": parse_record,
    "papers": parse_paper,
    "links": parse_link,
    "methods": parse_method,
    "datasets": parse_dataset,
    "evaluation-tables": parse_evaluation,
}
