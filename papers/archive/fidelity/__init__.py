"""Source against database: what the database holds of the records some files give.

For each file, read with the importer's own readers and parsers: how many records it
gives and rejects, how many distinct records they are (a record may be given twice), how
many the database holds and which are lost, which distinct records share one row (merged),
which are hidden, which values the database holds but cannot rank, which leaderboards one
name splits into two, which of the file's keys carry values the database does not keep
(dropped: the parser does not read them; not stored: it reads them, yet the row lacks
them), and which metrics' directions staff or a description set, or their results
contradict. Run it after importing the files, on that database (`manage.py
fidelity_report FILE…`, or with `--scratch` in a fresh one). The kinds' own checks are in
`records.py` and `evaluations.py`, over one FileReport per file (`report.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from papers.archive.fidelity import evaluations, records
from papers.archive.fidelity.report import FileReport
from papers.archive.read.normalise import RecordError
from papers.archive.read.pipeline import PARSERS
from papers.archive.read.readers import ArchiveReader, detect_kind, unparseable


@dataclass
class Verdict:
    """One line for a whole run: what was lost, merged or split, hidden, unranked, and
    what to review. `import_archive` prints it from its own counts, `fidelity_report`
    from its checks."""

    lost: int = 0
    merged: int = 0
    split: int = 0
    hidden: int = 0
    unranked: int = 0
    review: int = 0  # directions whose results contradict them
    given_again: int = 0  # records given twice, kept as one (boards: every row of both)

    @classmethod
    def of(cls, reports: list[FileReport]) -> Verdict:
        return cls(
            lost=sum(len(r.lost) + r.rejected + r.rows_lost_count for r in reports),
            merged=sum(len(r.merged) for r in reports),
            split=sum(len(r.split) for r in reports),
            hidden=sum(len(r.hidden) for r in reports),
            unranked=sum(r.unranked_count for r in reports),
            review=sum(len(r.contradicted) for r in reports),
            given_again=sum(r.repeated for r in reports),
        )

    def __bool__(self) -> bool:
        return any((self.lost, self.merged, self.split, self.hidden, self.unranked,
                    self.review, self.given_again))  # fmt: skip

    def line(self) -> str:
        if not self:
            return "Fidelity: nothing lost, merged, split, hidden or unranked."
        parts = [
            f"{self.lost:,} lost or rejected",
            f"{self.merged:,} merged",
            f"{self.split:,} boards split",
            f"{self.hidden:,} hidden",
            f"{self.unranked:,} values unranked",
        ]
        if self.review:
            parts.append(f"{self.review:,} metric directions to review")
        if self.given_again:
            parts.append(f"{self.given_again:,} records given again (kept as one)")
        return "Fidelity: " + ", ".join(parts) + "."


def _records(path: Path, kind: str | None, report: FileReport) -> Iterator[tuple[dict, Any]]:
    """(raw, parsed) for each record the importer would take."""
    for item in ArchiveReader(path).items():
        report.records += 1
        if unparseable(item.data) is not None:
            report.rejected += 1
            continue
        if not report.kind:
            report.kind = kind or detect_kind(item.data) or ""
            if not report.kind:
                raise RecordError("(record)", "cannot tell which archive file this is")
        try:
            yield item.data, PARSERS[report.kind](item.data)
        except RecordError:
            report.rejected += 1


def reports(paths: list[Path | str], kind: str | None = None) -> list[FileReport]:
    """A report per file, in order. Files are taken as imported in that order: a board a
    later file gives again with rows is that file's (its rows replaced this one's)."""
    out: list[FileReport] = []
    later: set[int] = set()  # boards given by the files after the one at hand
    for path in reversed(paths):
        report = FileReport(str(path), kind or "")
        out.append(report)
        try:
            items = list(_records(Path(path), kind, report))
        except Exception as exc:  # an unreadable file is a line of the report, not a crash
            report.error = str(exc)
            continue
        if report.kind == "evaluation-tables":
            later |= evaluations.check(report, items, later)
            continue
        check = {
            "papers": records.papers,
            "records": records.papers,
            "arxiv": records.papers,
            "links": records.links,
            "methods": records.methods,
            "datasets": records.datasets,
        }[report.kind]
        check(report, items)
    return out[::-1]
