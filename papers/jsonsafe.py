"""JSON that every database's JSON column accepts, whatever the text it came from.

Python's json module reads, and by default writes, `NaN`, `Infinity` and `-Infinity`,
which JSON has no literal for (SQLite's JSON_VALID check and PostgreSQL's jsonb refuse
them); a number such as 1e400 reads as an infinity; an integer of more than 4,300 digits
cannot be read at all. Wherever outside JSON text comes in (archive files, the admin's
JSON fields), such a number is kept as the text it was written as: "NaN", "1e400", the
digits. Nothing is lost, and nothing ranks it as a number.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# Digits past which an integer is kept as its text: well inside Python's limit on
# integer parsing (4,300 digits), and past any count the archive holds.
LONGEST_INTEGER = 300


def _float(text: str) -> float | str:
    number = float(text)
    return number if math.isfinite(number) else text


def _int(text: str) -> int | str:
    return int(text) if len(text.lstrip("-")) <= LONGEST_INTEGER else text


class Decoder(json.JSONDecoder):
    """A JSONDecoder keeping such numbers as their text (forms.JSONField(decoder=…))."""

    def __init__(self, **kwargs):
        kwargs.update(parse_float=_float, parse_int=_int, parse_constant=str)
        super().__init__(**kwargs)


DECODER = Decoder()
# What JSON text holding such a number shows (cheap to look for at C speed, so that the
# common record is decoded by the plain, faster decoder): a NaN or infinity literal, a
# three-digit exponent, a run of LONGEST_INTEGER digits.
UNUSUAL = re.compile(rf"NaN|Infinity|[eE][+]?\d{{3}}|\d{{{LONGEST_INTEGER}}}")


def loads(text: str) -> Any:
    """json.loads, with NaN, infinities and overlong integers kept as their text."""
    return DECODER.decode(text)


def safe(value: Any) -> Any:
    """`value` with every number JSON cannot hold (a NaN or infinite float, an integer
    past a float's range) replaced by its text."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1023:
        return str(value)
    if isinstance(value, list):
        return [safe(item) for item in value]
    if isinstance(value, dict):
        return {str(key): safe(item) for key, item in value.items()}
    return value
