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
`records.py` and `evaluations.py`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from papers.archive.fidelity import evaluations, records
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers import PARSERS
from papers.archive.read.readers import ArchiveReader, detect_kind, unparseable

# Keys some sources add that are not Papers with Code's: kept out on purpose.
NOT_ARCHIVE = {
    "area": "a label the crawler's author added (1pha)",
    "task_id": "a label the crawler's author added (1pha)",
    "synonyms": "always empty in the dumps seen",
}


def given(value: Any) -> bool:
    """Whether a source or a database value holds anything (False is a value)."""
    return value not in (None, "", [], {})


@dataclass
class FileReport:
    EXAMPLES = 5

    path: str
    kind: str = ""
    records: int = 0
    rejected: int = 0
    distinct: int = 0
    repeated: int = 0
    found: int = 0
    lost: list[str] = field(default_factory=list)
    rows_lost: list[str] = field(default_factory=list)  # "3 rows of <board>"
    rows_lost_count: int = 0
    merged: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    split: list[str] = field(default_factory=list)  # boards one name splits in two
    unranked: list[str] = field(default_factory=list)  # the first EXAMPLES, for the notes
    unranked_count: int = 0
    overrides: list[str] = field(default_factory=list)
    contradicted: list[str] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)
    not_stored: Counter = field(default_factory=Counter)
    not_archive: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        return not (
            self.lost or self.rows_lost or self.merged or self.split or self.dropped
            or self.not_stored or self.error
        )  # fmt: skip

    def drops(self, raw: dict, read: set[str], prefix: str = "") -> None:
        """Count the keys of `raw` with a value that the parser does not read."""
        for key, value in raw.items():
            if key in read or not given(value):
                continue
            if key in NOT_ARCHIVE:
                self.not_archive[prefix + key] += 1
            else:
                self.dropped[prefix + key] += 1

    def not_stored_of(
        self, source: dict, row: dict, keys: Iterable[str] | dict[str, str], prefix: str = ""
    ) -> None:
        """Count the keys (key → column, or keys named as their columns) that hold a value
        in `source` and none in the database's `row`."""
        pairs = keys.items() if isinstance(keys, dict) else ((k, k) for k in keys)
        for key, column in pairs:
            if given(source.get(key)) and not given(row.get(column)):
                self.not_stored[prefix + key] += 1

    def lines(self) -> Iterator[str]:
        yield f"{self.path}: {self.kind or 'unknown kind'}"
        if self.error:
            yield f"  NOT READ: {self.error}"
            return
        yield (
            f"  records {self.records:,}, rejected {self.rejected:,}, distinct "
            f"{self.distinct:,} ({self.repeated:,} given again), in the database "
            f"{self.found:,}"
        )
        boards = self.kind == "evaluation-tables"
        for label, items in (("lost", self.lost), ("rows lost", self.rows_lost),
                             ("merged", self.merged), ("hidden", self.hidden),
                             ("split", self.split)):  # fmt: skip
            if label in ("rows lost", "split") and not boards:
                continue
            more = " …" if len(items) > self.EXAMPLES else ""
            shown = "; ".join(items[: self.EXAMPLES]) + more
            count = self.rows_lost_count if label == "rows lost" else len(items)
            yield f"  {label}: {count:,}" + (f" ({shown})" if items else "")
        for label, counter in (("dropped fields", self.dropped),
                               ("read but not stored", self.not_stored)):  # fmt: skip
            listed = ", ".join(f"{key} ({count:,})" for key, count in counter.most_common())
            yield f"  {label}: {listed or 'none'}"
        if self.not_archive:
            kept_out = ", ".join(
                f"{key} ({count:,}: {NOT_ARCHIVE[key.rsplit('.', 1)[-1]]})"
                for key, count in self.not_archive.most_common()
            )
            yield f"  not kept by design: {kept_out}"
        for note in self.notes:
            yield f"  {note}"


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
            "links": records.links,
            "methods": records.methods,
            "datasets": records.datasets,
        }[report.kind]
        check(report, items)
    return out[::-1]
