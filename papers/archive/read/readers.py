"""Read archive files as a stream of records, whatever their container.

Containers: a JSON array (streamed with ijson), a single JSON object (one seed
record, or an API page with `results`), JSON Lines, and Parquet (record batches);
any of the JSON forms may be gzip-compressed (detected by magic bytes, not by the
file name). Memory stays bounded by one record (one batch for Parquet).

Whatever a file holds, a bad record is a reject of that record, never the end of the
import (see `check_record`): a record larger than MAX_RECORD_BYTES or nested deeper than
MAX_DEPTH levels is skipped without being built, and a string that is not Unicode (a
lone surrogate such as "\\ud800", which JSON can write) rejects its record, in every
container alike.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isal import igzip, isal_zlib

from papers import jsonsafe
from papers.arxiv.snapshot import looks_like_snapshot

KINDS = ("records", "papers", "links", "evaluation-tables", "methods", "datasets", "arxiv")

# The largest record read, in characters of JSON text (the biggest real records, whole
# evaluation-table task trees, are a few MB), and the deepest nesting (real records
# nest about 15 levels). A record past either is rejected without being built.
MAX_RECORD_BYTES = 16 * 2**20
MAX_DEPTH = 64
CHUNK_CHARS = 1 << 20  # characters read from a JSON array at a time

# Columns that Parquet shards may carry as JSON text rather than nested types.
_NESTED = {
    "authors", "tasks", "methods", "datasets", "subtasks", "sota", "collections", "paper",
    "code_links", "syntology", "source", "about", "modalities", "languages", "variants",
    "data_loaders", "categories", "main_collection", "results", "datasets_introduced",
    "methods_introduced", "arxiv_metadata", "syntology_extracted_results", "subdatasets",
    "dataset_links", "dataset_citations", "synonyms",
}  # fmt: skip


class ArchiveFileError(Exception):
    """The file as a whole cannot be read: the import of this file stops (exit status 2)."""

    def __init__(self, path: Path | str, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{path}: {reason}")


@dataclass(slots=True)
class Item:
    number: int  # 1-based position of the record in the file
    line: int | None  # 1-based line, for JSON Lines
    data: Any


def _text(stream) -> io.TextIOWrapper:
    """The file as text. Bytes that are not UTF-8 (a raw 0xFF, an encoded surrogate)
    come through as lone surrogates (Python's surrogateescape), so that the record or
    line holding them is rejected (check_record) and the rest of the file read."""
    return io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape")


class _CountingReader(io.RawIOBase):
    """Wraps the raw file to know how far into it a parse error happened."""

    def __init__(self, raw):
        self.raw = raw
        self.offset = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.raw.readinto(buffer)
        self.offset += n or 0
        return n


class ArchiveReader:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._counter: _CountingReader | None = None

    @property
    def offset(self) -> int:
        return self._counter.offset if self._counter else 0

    def _open(self):
        raw = open(self.path, "rb")  # noqa: SIM115 - closed by the caller's context
        magic = raw.read(4)
        raw.seek(0)
        self._counter = _CountingReader(raw)
        buffered = io.BufferedReader(self._counter, buffer_size=1 << 16)
        if magic[:2] == b"\x1f\x8b":
            # ISA-L's gzip: the same reader as the standard library's, decompressing
            # about 4x faster.
            return igzip.GzipFile(fileobj=buffered, mode="rb")
        return buffered

    def is_parquet(self) -> bool:
        with open(self.path, "rb") as fh:
            return fh.read(4) == b"PAR1"

    def items(self) -> Iterator[Item]:
        if not self.path.exists():
            raise ArchiveFileError(self.path, "no such file")
        if self.is_parquet():
            yield from self._parquet_items()
            return
        try:
            with self._open() as stream:
                yield from self._json_items(stream)
        except (OSError, EOFError, isal_zlib.error) as exc:  # BadGzipFile is an OSError
            raise ArchiveFileError(
                self.path, f"cannot decompress near byte {self.offset}: {exc}"
            ) from None
        except UnicodeDecodeError as exc:
            raise ArchiveFileError(
                self.path, f"not UTF-8 text near byte {self.offset}: {exc}"
            ) from None

    def _json_items(self, stream) -> Iterator[Item]:
        head = stream.peek(4096)[:4096] if hasattr(stream, "peek") else b""
        first = head.lstrip()[:1]
        if first == b"[":
            yield from self._array_items(_text(stream))
            return
        if first != b"{":
            if not head.strip():
                raise ArchiveFileError(self.path, "the file is empty")
            raise ArchiveFileError(
                self.path, "not JSON: expected an array, an object or JSON Lines"
            )
        text = _text(stream)
        first_line, whole = _read_line(text)
        first_obj, deep = None, False
        try:
            first_obj = json.loads(first_line) if whole else None
        except json.JSONDecodeError:
            pass
        except RecursionError:
            deep = True
        if first_obj is None and whole and not deep:
            # One (pretty-printed) object: a single record, or an API page of them.
            rest = text.read(MAX_RECORD_BYTES + 1 - len(first_line))
            if len(first_line) + len(rest) > MAX_RECORD_BYTES:
                yield Item(1, None, _too_large())
                return
            yield from self._object_items(first_line + rest)
            return
        blank_lines = 0
        line, line_whole = _read_line(text)
        while line and line_whole and not line.strip():
            blank_lines += 1
            line, line_whole = _read_line(text)
        if first_obj is not None and not line:  # nothing but blank lines after it
            yield from self._object_items(first_line)
            return
        # JSON Lines.
        yield Item(1, 1, _line_record(first_line, whole))
        number, line_no = 1, 2 + blank_lines
        while line:
            if not line_whole or line.strip():
                number += 1
                yield Item(number, line_no, _line_record(line, line_whole))
            line, line_whole = _read_line(text)
            line_no += 1

    def _array_items(self, text: io.TextIOWrapper) -> Iterator[Item]:
        """The elements of a top-level JSON array, each decoded on its own (C speed),
        from a buffer refilled a chunk at a time; an element past MAX_RECORD_BYTES or
        MAX_DEPTH is skipped, never built."""
        buffer = _Buffer(text)
        buffer.expect("[")
        number = 0
        if buffer.next_char() == "]":
            buffer.pos += 1
        else:
            while True:
                number += 1
                buffer.next_char()  # to the record's first character
                yield Item(number, None, self._array_element(buffer))
                following = buffer.next_char()
                buffer.pos += 1
                if following == "]":
                    break
                if following != ",":
                    raise self._invalid(buffer, "expected ',' or ']' after a record")
        if buffer.next_char():
            raise self._invalid(buffer, "more after the end of the array")

    def _array_element(self, buffer: _Buffer) -> Any:
        while True:
            start = buffer.pos
            try:
                data, end = _raw_decode(buffer.text, start)
            except json.JSONDecodeError as exc:
                incomplete = (
                    exc.msg.startswith("Unterminated string") or exc.pos >= len(buffer.text) - 8
                )
                if buffer.eof or not incomplete:
                    raise self._invalid(buffer, f"{exc.msg} (column {exc.colno})") from None
                if len(buffer.text) - start > MAX_RECORD_BYTES:
                    buffer.skip_value()
                    return _too_large()
                buffer.more()
                continue
            except RecursionError:
                buffer.skip_value()
                return _too_deep()
            if end == len(buffer.text) and not buffer.eof:
                buffer.more()  # a number or a literal may go on in the next chunk
                continue
            buffer.pos = end
            if end - start > MAX_RECORD_BYTES:
                return _too_large()
            return check_record(data, buffer.text, start, end)

    def _invalid(self, buffer: _Buffer, reason: str) -> ArchiveFileError:
        return ArchiveFileError(self.path, f"not valid JSON near byte {self.offset}: {reason}")

    def _object_items(self, text: str) -> Iterator[Item]:
        try:
            obj = _loads(text)
        except json.JSONDecodeError as exc:
            raise ArchiveFileError(
                self.path, f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from None
        except RecursionError:
            yield Item(1, None, _too_deep())
            return
        if isinstance(obj.get("results"), list) and "count" in obj:
            signs = _Signs.of(text, 0, len(text))  # once for the page, not once a result
            for number, data in enumerate(obj["results"], 1):
                yield Item(number, None, _checked(data, signs, lambda d=data: json.dumps(d)))
        else:
            yield Item(1, None, check_record(obj, text, 0, len(text)))

    def _parquet_items(self) -> Iterator[Item]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            parquet = pq.ParquetFile(self.path)
        except (pa.ArrowInvalid, OSError) as exc:
            raise ArchiveFileError(self.path, f"not a readable Parquet file: {exc}") from None
        number = 0
        try:
            for batch in parquet.iter_batches(batch_size=5000):
                for row in batch.to_pylist():
                    number += 1
                    yield Item(number, None, _parquet_row(row))
        except (pa.ArrowInvalid, OSError) as exc:
            raise ArchiveFileError(
                self.path, f"cannot read Parquet after record {number}: {exc}"
            ) from None


@dataclass(slots=True)
class _Unparseable:
    """A record that cannot be read (a JSON Lines line that is not JSON, a record too
    large or too deep, text that is not Unicode): a bad record, not a bad file. `raw` is
    its text when there is any to keep (a record too large is never held)."""

    reason: str
    raw: str | None
    field: str = "(record)"


_DECODER = json.JSONDecoder()  # floats as float, as ijson's use_float=True did


def _raw_decode(text: str, start: int) -> tuple[Any, int]:
    """A JSON value from text[start:], with the numbers JSON columns cannot hold (NaN,
    infinities, 1e400, overlong integers) kept as their text (papers.jsonsafe)."""
    try:
        data, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer too long for Python to read
        return jsonsafe.DECODER.raw_decode(text, start)
    if jsonsafe.UNUSUAL.search(text, start, end):
        return jsonsafe.DECODER.raw_decode(text, start)
    return data, end


def _loads(text: str) -> Any:
    data, end = _raw_decode(text, len(text) - len(text.lstrip(_WHITESPACE)))
    if text[end:].strip(_WHITESPACE):
        raise json.JSONDecodeError("Extra data", text, end)
    return data


# A \u escape of a UTF-16 surrogate in JSON text: most are halves of a pair, which json
# joins into one character; any left alone in a string is not Unicode.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_WHITESPACE = " \t\r\n"


def _too_large() -> _Unparseable:
    return _Unparseable(f"larger than {MAX_RECORD_BYTES // 2**20} MB of JSON text", None)


def _too_deep() -> _Unparseable:
    return _Unparseable(f"nested deeper than {MAX_DEPTH} levels", None)


def check_record(data: Any, text: str, start: int, end: int) -> Any:
    """`data`, decoded from text[start:end], or why it is to be rejected: nested deeper
    than MAX_DEPTH levels, or holding a lone surrogate (naming where). NUL characters,
    which PostgreSQL cannot store in text or JSON, are dropped from every string, as
    normalise.text drops them from text fields. The text is looked at first (C speed),
    so an ordinary record is not walked at all."""
    return _checked(data, _Signs.of(text, start, end), lambda: text[start:end])


@dataclass(slots=True)
class _Signs:
    """What a record's JSON text says about it: whether it may nest too deep (enough
    brackets), hold a lone surrogate (a \\u escape of one) or a NUL (\\u0000)."""

    deep: bool
    surrogate: bool
    nul: bool
    undecodable: int  # where in the text a byte that was not UTF-8 stands, or -1

    @classmethod
    def of(cls, text: str, start: int, end: int) -> _Signs:
        brackets = text.count("[", start, end) + text.count("{", start, end)
        escape = text.find("\\ud", start, end) >= 0 or text.find("\\uD", start, end) >= 0
        byte = _SURROGATE.search(text, start, end)
        return cls(
            deep=brackets > MAX_DEPTH,
            surrogate=escape and _SURROGATE_ESCAPE.search(text, start, end) is not None,
            nul=text.find("\\u0000", start, end) >= 0,
            undecodable=byte.start() - start if byte else -1,
        )


def _checked(data: Any, signs: _Signs, raw: Callable[[], str]) -> Any:
    """check_record() of `data`, given the signs of its text and how to get its text."""
    if signs.undecodable >= 0:
        text = raw()
        byte = ord(text[signs.undecodable]) - 0xDC00  # surrogateescape's mark of a byte
        return _Unparseable(
            f"not UTF-8 text: the byte 0x{byte:02X} at character {signs.undecodable + 1}",
            text,
        )
    if signs.deep and _depth(data) > MAX_DEPTH:
        return _Unparseable(_too_deep().reason, raw())
    if signs.surrogate and (where := _surrogate_at(data)):
        character = _SURROGATE.search(where[1]).group()
        return _Unparseable(
            f"a lone surrogate ({character.encode('unicode_escape').decode()}) is not Unicode",
            raw(),
            where[0],
        )
    return _without_nul(data) if signs.nul else data


def _without_nul(data: Any) -> Any:
    """`data` with NUL characters dropped from its strings and keys (at most MAX_DEPTH
    levels deep: check_record looked first)."""
    if isinstance(data, str):
        return data.replace("\x00", "")
    if isinstance(data, list):
        return [_without_nul(item) for item in data]
    if isinstance(data, dict):
        return {_without_nul(key): _without_nul(value) for key, value in data.items()}
    return data


def _depth(data: Any) -> int:
    """How many levels of arrays and objects `data` nests (stops counting past the limit)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, level)
            if deepest > MAX_DEPTH:
                break
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, level + 1) for child in children)
    return deepest


def _surrogate_at(data: Any, path: str = "") -> tuple[str, str] | None:
    """(dotted path, text) of the first key or string holding a lone surrogate."""
    if isinstance(data, str):
        return (path or "(record)", data) if _SURROGATE.search(data) else None
    if isinstance(data, list):
        for index, item in enumerate(data):
            if found := _surrogate_at(item, f"{path}[{index}]"):
                return found
    elif isinstance(data, dict):
        for key, value in data.items():
            where = f"{path}.{key}" if path else str(key)
            if _SURROGATE.search(str(key)):
                return where, str(key)
            if found := _surrogate_at(value, where):
                return found
    return None


def _read_line(text: io.TextIOWrapper) -> tuple[str, bool]:
    """The next line, and whether it is whole: a line longer than MAX_RECORD_BYTES is
    read no further than that, and the rest of it skipped (in constant memory)."""
    line = text.readline(MAX_RECORD_BYTES + 1)
    if len(line) <= MAX_RECORD_BYTES or line.endswith("\n"):
        return line, True
    while (rest := text.readline(CHUNK_CHARS)) and not rest.endswith("\n"):
        pass
    return line[:1], False


def _line_record(line: str, whole: bool) -> Any:
    if not whole:
        return _too_large()
    try:
        data = _loads(line)
    except json.JSONDecodeError as exc:
        return _Unparseable(f"not valid JSON: {exc.msg} (column {exc.colno})", line, "(line)")
    except RecursionError:
        return _Unparseable(_too_deep().reason, line[:1000])
    return check_record(data, line, 0, len(line))


def _parquet_row(row: dict) -> Any:
    """A Parquet row with its JSON-text columns decoded, checked like a JSON record."""
    size = sum(len(value) for value in row.values() if isinstance(value, str))
    if size > MAX_RECORD_BYTES:
        return _too_large()
    for key, value in row.items():
        if isinstance(value, str) and "\x00" in value:
            row[key] = value = value.replace("\x00", "")
        if isinstance(value, float) and not math.isfinite(value):
            row[key] = jsonsafe.safe(value)
        if key in _NESTED and isinstance(value, str) and value[:1] in "[{":
            try:
                decoded = _loads(value)
            except json.JSONDecodeError:
                continue
            except RecursionError:
                return _too_deep()
            checked = check_record(decoded, value, 0, len(value))
            if (bad := unparseable(checked)) is not None:
                inner = "" if bad.field == "(record)" else bad.field
                field = key + ("" if inner[:1] in ("", "[") else ".") + inner
                return _Unparseable(bad.reason, json.dumps(row, default=str), field)
            row[key] = decoded
    return row


class _Buffer:
    """Decoded text of a JSON array read a chunk at a time: `text[pos:]` is what is still
    to be read. Reading more keeps only that (plus the new chunk), doubling the chunk
    while one record outgrows it (up to a quarter of MAX_RECORD_BYTES), so gathering a
    record costs about linear time."""

    def __init__(self, stream: io.TextIOWrapper):
        self.stream = stream
        self.text = ""
        self.pos = 0
        self.eof = False
        self.more()

    def more(self) -> None:
        pending = len(self.text) - self.pos
        chunk = self.stream.read(max(CHUNK_CHARS, min(pending, MAX_RECORD_BYTES // 4)))
        self.eof = not chunk
        self.text = self.text[self.pos :] + chunk
        self.pos = 0

    def next_char(self) -> str:
        """The next character that is not whitespace ("" at the end of the file)."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.text) or self.eof:
                return self.text[self.pos : self.pos + 1]
            self.more()

    def expect(self, character: str) -> None:
        found = self.next_char()
        if found != character:
            raise ValueError(f"expected {character!r}, found {found!r}")
        self.pos += 1

    def skip_value(self) -> None:
        """Move past the value that starts at `pos`, reading as little at a time as a
        chunk: its strings and brackets are followed, nothing is built."""
        depth, in_string = 0, False
        i = self.pos
        while True:
            pattern = _STRING_STOPS if in_string else _VALUE_STOPS
            found = pattern.search(self.text, i)
            if found is None or (found.group() == "\\" and found.end() >= len(self.text)):
                if self.eof:
                    self.pos = len(self.text)
                    return
                self.pos = found.start() if found is not None else len(self.text)
                self.more()
                i = self.pos
                continue
            character, i = found.group(), found.end()
            if in_string:
                if character == "\\":
                    i += 1  # the escaped character
                    continue
                in_string = False  # the closing quote
            elif character == '"':
                in_string = True
                continue
            elif character in "[{":
                depth += 1
                continue
            elif character in "]}":
                if depth == 0:  # the array's own end, after a bare number or literal
                    i -= 1
                depth -= 1
            elif depth == 0:  # a comma or whitespace after a bare number or literal
                i -= 1
            if depth <= 0:
                self.pos = i
                return


_VALUE_STOPS = re.compile(r'["\[\]{},\s]')
_STRING_STOPS = re.compile(r'["\\]')


def detect_kind(data: Any) -> str | None:
    """Which archive file a record comes from, judged from its keys."""
    if not isinstance(data, dict):
        return None
    keys = data.keys()
    url = str(data.get("url") or "")
    if "syntology" in keys or ("code_links" in keys and url.startswith("/paper/")):
        return "records"
    if "repo_url" in keys:
        return "links"
    if looks_like_snapshot(keys):  # arXiv's metadata snapshot
        return "arxiv"
    if "task" in keys and ("datasets" in keys or "subtasks" in keys):
        return "evaluation-tables"
    if "/method/" in url or "collections" in keys or {"id", "full_name", "paper"} <= keys:
        return "methods"
    if "/dataset/" in url or "modalities" in keys or {"contents", "variants"} <= keys:
        return "datasets"
    if "title" in keys and ({"paper_url", "abstract", "url_abs", "arxiv_id"} & keys):
        return "papers"
    return None


def unparseable(data: Any) -> _Unparseable | None:
    return data if isinstance(data, _Unparseable) else None
