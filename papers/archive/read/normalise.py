"""Turn raw archive values into clean ones, or say precisely which field is wrong.

The archive writes "nothing" as null, a missing key, "" or [] interchangeably; all
become "" (text), None (dates, numbers) or [] (lists) here. Anything that cannot be
read raises RecordError naming the field, and the importer rejects that record.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from urllib.parse import urlsplit

from django.utils.text import slugify

# The record format's names for the identifier rules (papers.identifiers holds them).
from papers.identifiers import arxiv_of_slug, arxiv_slug, parse_arxiv  # noqa: F401


class RecordError(ValueError):
    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"field {field}: {reason}")


# The longest text one field may carry, unless the field says less: far above the
# longest real texts (abstracts to 2,790 characters and descriptions to 9,007 in the
# real records under ../shared/realdata; 3,439 in the synthetic archive), far below what
# breaks search (a 100 MB abstract: PostgreSQL's search vector, SQLite's snippets).
TEXT_MAX_CHARS = 100_000
# C0 control characters but tab and newline (carriage returns become newlines first) and
# Unicode's noncharacters (U+FDD0-U+FDEF, and the last two code points of every plane,
# U+FFFE, U+FFFF, U+1FFFE…): no page shows them, and a feed cannot carry them at all
# (XML 1.0 has no way to).
_NONCHARACTERS = [
    *range(0xFDD0, 0xFDF0),
    *(plane << 16 | low for plane in range(17) for low in (0xFFFE, 0xFFFF)),
]
_DROPPED = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *_NONCHARACTERS])
_UNWANTED = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\ufdd0-\ufdef"
    + "".join(chr(plane << 16 | 0xFFFE) + chr(plane << 16 | 0xFFFF) for plane in range(17))
    + "]"
)


def _without_controls(text: str) -> str:
    """`text` without the characters _DROPPED names. Nearly every text has none, which
    isprintable() tells at C speed (they are all unprintable; so are line breaks, which
    a long text may hold and which are let through first); the slower search is for the
    rest."""
    if text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return text.translate(_DROPPED) if _UNWANTED.search(text) else text


def text(value: Any, field: str, *, max_length: int | None = None, strip: bool = True) -> str:
    """A text value; null/missing/"" all give "". Line endings become \\n, other control
    characters but tab are dropped; longer than max_length (TEXT_MAX_CHARS unless given)
    is an error."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise RecordError(field, f"expected text, got {type(value).__name__}")
    result = str(value)
    if "\r" in result:
        result = result.replace("\r\n", "\n").replace("\r", "\n")
    result = _without_controls(result)
    if strip:
        result = result.strip()
    limit = TEXT_MAX_CHARS if max_length is None else max_length
    if len(result) > limit:
        raise RecordError(field, f"longer than {limit:,} characters ({len(result):,})")
    return result


def one_line(value: Any, field: str, *, max_length: int = 1000) -> str:
    return " ".join(text(value, field).split())[:max_length] if value is not None else ""


def text_list(value: Any, field: str) -> list[str]:
    """A list of strings; null/missing/"" give []; blanks inside are dropped."""
    if value in (None, ""):
        return []
    if isinstance(value, str):
        raise RecordError(field, "expected a list, got text")
    if not isinstance(value, list | tuple):
        raise RecordError(field, f"expected a list, got {type(value).__name__}")
    items = []
    for index, item in enumerate(value):
        cleaned = one_line(item, f"{field}[{index}]")
        if cleaned:
            items.append(cleaned)
    return items


def obj_list(value: Any, field: str) -> list[dict]:
    if value in (None, ""):
        return []
    if not isinstance(value, list | tuple):
        raise RecordError(field, f"expected a list, got {type(value).__name__}")
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise RecordError(
                f"{field}[{index}]", f"expected an object, got {type(item).__name__}"
            )
    return list(value)


def obj(value: Any, field: str) -> dict:
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise RecordError(field, f"expected an object, got {type(value).__name__}")
    return value


def flag(value: Any, field: str) -> bool:
    """A boolean written as true/false, 1/0, "true"/"false"/"1"/"0"; null is False."""
    if value is None or value == "":
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in {
        "true",
        "1",
        "yes",
        "false",
        "0",
        "no",
    }:
        return value.strip().lower() in {"true", "1", "yes"}
    raise RecordError(field, f"expected true or false, got {value!r}")


def optional_flag(value: Any, field: str) -> bool | None:
    return None if value is None or value == "" else flag(value, field)


def integer(value: Any, field: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise RecordError(field, f"expected a whole number, got {value!r}")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise RecordError(field, f"expected a whole number, got {value!r}")


def date(value: Any, field: str) -> dt.date | None:
    """YYYY-MM-DD (a time part is ignored); null/"" give None."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RecordError(field, f"expected a date (YYYY-MM-DD), got {value!r}")
    candidate = value.strip()[:10]
    try:
        return dt.date.fromisoformat(candidate)
    except ValueError:
        raise RecordError(field, f"not a date (YYYY-MM-DD): {value!r}") from None


def timestamp(value: Any, field: str) -> dt.datetime | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RecordError(field, f"expected a timestamp, got {value!r}")
    try:
        parsed = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise RecordError(field, f"not an ISO 8601 timestamp: {value!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def url_slug(value: Any, field: str) -> str:
    """The last path segment of a Papers with Code URL ("/paper/<slug>", full URLs too)."""
    raw = text(value, field)
    if not raw:
        return ""
    path = urlsplit(raw).path if "://" in raw else raw
    segments = [s for s in path.split("/") if s]
    return segments[-1][:255] if segments else ""


# What a paper slug is made of (Papers with Code's are lowercase words and hyphens).
_SLUG = re.compile(r"[\w.~%+-]+")


def paper_slug(value: Any, field: str, *, bare: bool = False) -> str:
    """A paper slug from `/paper/<slug>` or a Papers with Code paper URL (or, when `bare`,
    a slug given alone); "" for anything else: another site's URL, "javascript:…", "N/A"
    or a sentence is no paper's key."""
    raw = text(value, field)
    if not raw:
        return ""
    if "://" in raw:
        parts = urlsplit(raw)
        if "paperswithcode" not in (parts.hostname or "") and "codewithpapers" not in (
            parts.hostname or ""
        ):
            return ""
        raw = parts.path
    segments = [s for s in raw.split("/") if s]
    if len(segments) >= 2 and segments[-2] == "paper":
        slug = segments[-1]
    elif bare and len(segments) == 1 and "://" not in raw and not raw.startswith("/"):
        slug = segments[0]
    else:
        return ""
    return slug[:255] if _SLUG.fullmatch(slug) else ""


def arxiv_id(value: Any, field: str = "arxiv_id") -> str:
    """The bare arXiv id from an id or an arXiv URL: "arXiv:2006.12467v3" → "2006.12467"."""
    found = parse_arxiv(text(value, field))
    if found is None:
        raise RecordError(field, f"not an arXiv id: {value!r}")
    return found


def arxiv_from_url(value: Any, field: str) -> str:
    """An arXiv id in an arXiv URL, or "" for any other URL (never an error)."""
    try:
        return arxiv_id(value, field) if "arxiv" in str(value or "").lower() else ""
    except RecordError:
        return ""


def slug_of(name: str) -> str:
    return slugify(name)[:255]


PWC = "https://paperswithcode.com"


def pwc_paper_url(slug: str) -> str:
    """A paper's URL as the dumps write it, for a record that names it by slug."""
    return f"{PWC}/paper/{slug}" if slug else ""


_VOWELS = set("aeiouyAEIOUY")
JUNK_MAX = 64  # junk descriptions are a word of mash; longer ones are never looked at


def _mash(text: str) -> bool:
    """One word of ASCII letters without a vowel: "dfhdfh"."""
    word = text.strip()
    return (
        1 < len(word) <= JUNK_MAX
        and word.isascii()
        and word.isalpha()
        and not (_VOWELS & set(word))
    )


def looks_like_junk(name: str, full_name: str, description: str) -> bool:
    """Keyboard mash: a method named "dhf", in full "dfh", described as "dfhdfh". A name
    without vowels alone is no sign (NTK, VGG-16, XLM-R, 3D CNN), nor a description that
    repeats the name: the name, the description and any full name must all be mash."""
    return (
        _mash(name)
        and _mash(description)
        and description.casefold() != name.casefold()
        and (not full_name or _mash(full_name))
    )
