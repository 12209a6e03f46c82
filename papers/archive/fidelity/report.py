"""What the check of one file found (FileReport), which the kinds' checks fill."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

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
