"""What the parsers of several kinds share."""

from __future__ import annotations

from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError


def edited(raw: dict) -> bool:
    """Whether a record says staff edited it (`"edited_in_admin": true`, which exports
    write): the import marks its row edited, so that later imports leave it alone. Papers,
    code links, methods and datasets are marked once every file is written (another
    file may still fill them: papers.archive.edits); the rest as they are written."""
    return raw.get("edited_in_admin") is True


def edited_field(raw: dict) -> dict[str, bool]:
    return {"edited_in_admin": True} if edited(raw) else {}


def require_dict(raw: Any) -> dict:
    if not isinstance(raw, dict):
        raise RecordError("(record)", f"expected an object, got {type(raw).__name__}")
    return raw


def published(raw: dict, key: str) -> dict[str, Any]:
    return {"published": n.date(raw.get(key), key)}


def names(value: Any, field_name: str) -> list[str]:
    """Names from a list of strings or of objects with a name/task key."""
    if value in (None, ""):
        return []
    if not isinstance(value, list):
        raise RecordError(field_name, f"expected a list, got {type(value).__name__}")
    names = []
    for index, item in enumerate(value):
        if isinstance(item, dict):
            item = item.get("name") or item.get("task")
        name = n.one_line(item, f"{field_name}[{index}]")
        if name:
            names.append(name)
    return names
