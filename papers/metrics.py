"""Reading a leaderboard's metrics: the number each value states, and which way is better.

Values. The dumps write a metric's values as numbers or as text: "89.09%", "0.6495 ±
0.0043", "34M", "**70.3**", "1,234.5", and, from some writers, "37,7" with a decimal
comma. Whether a comma between digits is a decimal comma or a thousands separator is
decided for the whole column (one metric of one board), never value by value:

- a comma followed by one, two, or more than three digits ("37,7", "76,2%", "0,6495"),
  or by three digits after a lone 0 ("0,912") or after four or more digits ("1234,567"),
  or after a dot used as a thousands separator ("1.234,5"), can only be decimal;
- "1,234,567" and "1,234.5" can only hold thousands separators;
- the rest, "12,345", is read as 12.345 when the column's other values include decimal
  commas and no decimal dots; else as 12345 when the column holds values of that size
  (thousands separators elsewhere, or a value of 1,000 or more written with a decimal
  dot); else as 12.345 when the column holds any other number (it is then the column's
  only value that large); else, when every value has that shape, as the separators of
  the board's other columns tell (decimal commas and no decimal dots, or thousands
  separators), else as a fraction when the value is a percentage ("76,234%") or the
  metric's name says it is one (accuracy, F1, EM, BLEU…), else as 12345.

A value is read cleanly or not at all: "2.2.M", "1,2,3" or "O.753" (a letter O) are no
number, and neither is anything infinite ("1e400", a 400-digit integer) or NaN. Such a
value stays as given and unranked; the fidelity report lists it. A magnitude suffix
(K, M, B, G, T in any case, alone or before "B" for bytes or a unit such as FLOPs,
or a word: "million") scales the number: "339m" is 339 million, "2.2B" 2.2 billion.

Directions. A metric is lower-is-better when its name says so: its words (split at
spaces and punctuation, at camelCase and at letters against digits: "mRMSE" → m, RMSE;
"SceneFID" → Scene, FID; "NoC@90" → NoC, 90; two neighbours also count as one word:
"Sq Rel" → sqrel) hold one of LOWER_STEMS (errors, losses,
distances, divergences, times, sizes, counts of clicks and parameters) and none of
HIGHER_HEADS (AUC, accuracy, precision, recall, F1, mAP, IoU, PSNR, SSIM, BLEU…), which
wins: "AUC (horizon error)" is higher-is-better. Words in brackets count only when the
words outside them say nothing ("CPU (sec)", "Speed (FPS)"). "ERR@20", an expected
reciprocal rank at a cutoff, is higher-is-better. The board's description ("lower is
better") and staff's choice per metric override the name (`LeaderboardMetric.is_lower_better`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# --- directions ------------------------------------------------------------------------------

# Words whose metric is better smaller. Matched against whole words and against the pieces
# of compound words; a plural ("errors", "losses", "distances") matches its stem.
LOWER_STEMS = frozenset(
    {
        # errors and error rates
        "error", "err", "wer", "cer", "ter", "eer", "hter", "mae", "mse", "rmse", "rmsle",
        "mape", "smape", "nme", "epe", "aepe", "mpjpe", "pampjpe", "mpvpe", "ate", "rpe",
        "crps", "absrel", "sqrel", "fl", "d1", "badpix", "bad", "outlier", "miss", "fpr",
        "fnr", "far", "frr", "mr", "regret", "wrong", "mistake", "degradation",
        # losses, likelihoods to minimise, code lengths
        "loss", "logloss", "nll", "negll", "entropy", "crossentropy", "perplexity", "ppl",
        "bpc", "bpd", "bpb", "bit", "nat",
        # distances and divergences between a result and the truth
        "distance", "divergence", "kl", "jsd", "chamfer", "emd", "hausdorff", "wasserstein",
        "ade", "fde", "minade", "minfde", "fid", "kid", "fvd", "fad", "lpips", "deviation",
        # time and cost
        "time", "runtime", "latency", "ms", "sec", "second", "minute", "hour", "day",
        "gpuhour",
        # sizes and counts of what a result spends
        "size", "param", "parameter", "flop", "gflop", "mflop", "tflop", "mac", "gmac",
        "memory", "mb", "gb", "kb", "byte", "noc", "click", "storage", "energy", "carbon",
    }
)  # fmt: skip
# Words naming a higher-is-better measure: where one stands beside a lower stem, it is
# the measure and the other word qualifies it ("AUC (horizon error)", "Reciprocal rank").
HIGHER_HEADS = frozenset(
    {
        "accuracy", "acc", "auc", "auroc", "aupr", "auprc", "precision", "recall", "f1",
        "f05", "f2", "fscore", "fmeasure", "map", "ap", "ap50", "ap75", "iou", "miou",
        "dice", "psnr", "ssim", "msssim", "bleu", "sacrebleu", "chrf", "rouge", "meteor",
        "cider", "spice", "bertscore", "mrr", "reciprocal", "ndcg", "hits", "hit", "em",
        "pck", "ods", "ois", "fps", "throughput", "success", "kappa", "correlation",
        "pearson", "spearman", "r2", "mos", "pesq", "stoi", "sdr", "sdri", "sisdr", "sisdri",
        "sisnr", "sisnri", "snr", "snri", "elo", "reward", "return", "coverage", "agreement",
        "speedup", "hr",
    }
)  # fmt: skip
# Lower-is-better words that count what a result spends, not how good it is: the field
# does not move them one way over time (models grow), so no history contradicts them.
COST_STEMS = frozenset(
    {
        "time", "runtime", "latency", "ms", "sec", "second", "minute", "hour", "day",
        "gpuhour", "size", "param", "parameter", "flop", "gflop", "mflop", "tflop", "mac",
        "gmac", "memory", "mb", "gb", "kb", "byte", "storage", "energy", "carbon",
    }
)  # fmt: skip
# Higher-is-better measures that are fractions or percentages (never past 100).
BOUNDED_HEADS = frozenset(
    {
        "accuracy", "acc", "auc", "auroc", "aupr", "auprc", "precision", "recall", "f1",
        "f05", "f2", "fscore", "fmeasure", "map", "ap", "ap50", "ap75", "iou", "miou",
        "dice", "ssim", "msssim", "bleu", "sacrebleu", "chrf", "rouge", "meteor", "mrr",
        "ndcg", "hits", "hit", "em", "pck", "success", "kappa", "coverage", "agreement", "hr",
    }
)  # fmt: skip
# A cutoff after "ERR" makes it an expected reciprocal rank, not an error; a rank
# averaged over queries (mean rank, MR) is better smaller, while "Rank-1" is an accuracy.
_ERR_AT = re.compile(r"\berr\s*@", re.IGNORECASE)
_MEAN_RANK = re.compile(
    r"(?<![a-z])(?:mean|median|average|avg)[\s_-]*rank(?![a-z])", re.IGNORECASE
)
_BRACKETS = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\]")
# Word separators; a dot is one except between digits (F0.5, 1.5B).
_SEPARATORS = re.compile(r"(?:[^\w.]|_|(?<!\d)\.|\.(?!\d))+")
# Places to split a compound word: lower→Upper, UPPER→Upper-lower, letter↔digit.
_CAMEL = re.compile(
    r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])"
)


def _words(text: str) -> list[str]:
    """Each word of `text` lowercased, each two neighbours as one ("Sq Rel", "Log Loss"),
    then the pieces of the compound ones."""
    words = [w for w in _SEPARATORS.split(text) if w]
    out = [w.lower().replace(".", "") for w in words]
    out += [a + b for a, b in itertools.pairwise(out)]
    for word in words:
        pieces = [p.lower() for p in _CAMEL.split(word) if p]
        if len(pieces) > 1:
            out += pieces
    return out


def _in(word: str, vocabulary: frozenset[str]) -> bool:
    if word in vocabulary:
        return True
    if word.endswith("es") and word[:-2] in vocabulary:
        return True
    return word.endswith("s") and word[:-1] in vocabulary


def _says(words: list[str]) -> bool | None:
    if any(_in(w, HIGHER_HEADS) for w in words):
        return False
    if any(_in(w, LOWER_STEMS) for w in words):
        return True
    return None


def inferred_direction(metric_name: str) -> bool | None:
    """Whether a metric's smaller values are better as its name says: True (lower is
    better), False (a higher-is-better measure is named), None (the name says nothing,
    as "Score" or a dataset's name as a column)."""
    if _ERR_AT.search(metric_name):
        return False
    if _MEAN_RANK.search(metric_name) and "reciprocal" not in metric_name.lower():
        return True
    name = metric_name
    inside = " ".join(a or b for a, b in _BRACKETS.findall(name))
    outside = _BRACKETS.sub(" ", name)
    said = _says(_words(outside))
    return said if said is not None else _says(_words(inside))


def is_bounded(metric_name: str) -> bool:
    """Whether the name says the metric is a fraction or a percentage (accuracy, F1…)."""
    return any(_in(w, BOUNDED_HEADS) for w in _words(_BRACKETS.sub(" ", metric_name)))


def is_cost(metric_name: str) -> bool:
    """Whether the name says the metric counts a cost (parameters, time, memory…)."""
    return any(_in(w, COST_STEMS) for w in _words(_BRACKETS.sub(" ", metric_name)))


def infer_lower_is_better(metric_name: str) -> bool:
    """Whether a metric's smaller values are better, judged from its name alone (higher
    when the name says nothing: accuracy, F1, BLEU…)."""
    return inferred_direction(metric_name) is True


# What a board's description says of its metrics: "(lower is better)", "higher = better".
_STATED = re.compile(
    r"\b(lower|smaller|less|higher|larger|greater|more)\s*(?:is|=|are)\s*better\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?;\n])\s+")


def _stated(text: str) -> bool | None:
    lower = {"lower", "smaller", "less"}
    said = {m.group(1).lower() in lower for m in _STATED.finditer(text)}
    return said.pop() if len(said) == 1 else None


def stated_lower_is_better(
    description: str, metric_name: str | None = None, metrics: int = 1
) -> bool | None:
    """The direction a board's description states for one of its metrics: what a
    sentence naming the metric states ("Models are evaluated on perplexity (lower is
    better)"); else what the whole description states, when the board has one metric or
    the metric's name says nothing of its direction; else None."""
    if metric_name:
        named = [s for s in _SENTENCE.split(description) if metric_name.casefold() in s.casefold()]
        said = _stated(" ".join(named))
        if said is not None:
            return said
    if metric_name is None or metrics <= 1 or inferred_direction(metric_name) is None:
        return _stated(description)
    return None


# --- values ------------------------------------------------------------------------------------

# Wrapping a value may carry in the dumps: a byte-order mark, Markdown emphasis (**70.3**,
# _70.3_), and the spaces around them.
_WRAPPING = "\ufeff\u200b *_`\t\n"
_NUMBER = re.compile(
    r"(?P<sign>[-+\u2212]?)(?P<body>\d(?:[\d.,]*\d)?|[.,]\d+)(?P<exp>[eE][-+]?\d+)?"
)
_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_SCALE_WORDS = re.compile(r"(thousand|million|billion|trillion)\b", re.IGNORECASE)
_SCALE_WORD = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
# Units a magnitude suffix may stand before: "2.1GB", "3.5GFLOPs", "12MParams".
_SUFFIXED_UNIT = re.compile(r"(?:b|bytes?|flops?|macs?|params?|parameters?)\b", re.IGNORECASE)
_GROUPS = re.compile(r"\d{1,3}(?:,\d{3})+")  # 1,234 or 1,234,567
_DOT_GROUPS = re.compile(r"\d{1,3}(?:\.\d{3})+")  # 1.234.567


@dataclass(frozen=True, slots=True)
class _Token:
    """A value's number as written: `plain` is its number when the text has one reading,
    `ambiguous` its body when it has the two of "12,345" (thousands, or decimal comma)."""

    plain: float | None = None
    ambiguous: str = ""
    scale: float = 1.0
    sign: float = 1.0
    decimal_comma: bool = False  # the value can only be read with a decimal comma
    thousands: bool = False  # it can only be read with thousands separators
    decimal_dot: bool = False  # it is written with a decimal dot (or is a JSON fraction)
    percent: bool = False  # a percentage


_NOTHING = _Token()


def _finite(number: float) -> float | None:
    return number if math.isfinite(number) else None


def _body(body: str) -> _Token | str | None:
    """The number a body of digits and separators states, or the body itself when it is
    ambiguous ("12,345"), or None when it is not a well-formed number."""
    commas, dots = body.count(","), body.count(".")
    if not commas and dots <= 1:
        return _Token(float(body if body[0] != "." else "0" + body), decimal_dot=bool(dots))
    if not commas:  # 1.234.567: dots as thousands separators
        return (
            _Token(float(body.replace(".", "")), thousands=True)
            if _DOT_GROUPS.fullmatch(body)
            else None
        )
    if not dots:
        if commas == 1:
            head, tail = body.split(",")
            if len(tail) == 3 and 1 <= len(head) <= 3 and head != "0":
                return body  # 12,345
            return _Token(float(f"{head or '0'}.{tail}"), decimal_comma=True)
        return (
            _Token(float(body.replace(",", "")), thousands=True)
            if _GROUPS.fullmatch(body)
            else None
        )
    # Both: the last one is the decimal separator, the other groups thousands.
    if body.rfind(".") > body.rfind(","):
        head, tail = body.rsplit(".", 1)
        if dots == 1 and _GROUPS.fullmatch(head):
            return _Token(float(head.replace(",", "") + "." + tail), thousands=True,
                          decimal_dot=True)  # fmt: skip
        return None
    head, tail = body.rsplit(",", 1)
    if commas == 1 and _DOT_GROUPS.fullmatch(head):
        return _Token(float(head.replace(".", "") + "." + tail), decimal_comma=True)
    return None


def _token(raw) -> _Token:
    """What one value says, before its column decides the ambiguous ones."""
    if raw is None or isinstance(raw, bool):
        return _NOTHING
    if isinstance(raw, int | float):
        try:
            number = float(raw)
        except OverflowError:  # an integer past float's range
            return _NOTHING
        whole = isinstance(raw, int) or number.is_integer()
        return _Token(_finite(number), decimal_dot=not whole)
    if not isinstance(raw, str):
        return _NOTHING
    text = raw.strip(_WRAPPING)
    if not text or text[0] == "(":
        return _NOTHING
    text = text.lstrip("~≈<>= ")
    match = _NUMBER.match(text)
    if not match:
        return _NOTHING
    rest = text[match.end() :]
    if rest[:1].isdigit() or (rest[:1] in ".," and rest[1:2].isalnum()):
        return _NOTHING  # "2.2.M", "1,2,3": not one well-formed number
    read = _body(match.group("body"))
    if read is None:
        return _NOTHING
    # "1e400" is infinite, and is then no number.
    scale = float("1" + match.group("exp")) if match.group("exp") else 1.0
    rest = rest.strip(_WRAPPING)
    if rest[:1].lower() in _SUFFIX and (
        len(rest) == 1 or not rest[1].isalpha() or _SUFFIXED_UNIT.match(rest, 1)
    ):
        scale *= _SUFFIX[rest[0].lower()]
    elif word := _SCALE_WORDS.match(rest):
        scale *= _SCALE_WORD[word.group(1).lower()]
    sign = -1.0 if match.group("sign") in ("-", "\u2212") else 1.0
    if isinstance(read, str):
        return _Token(ambiguous=read, scale=scale, sign=sign, percent="%" in rest[:3])
    if read.plain is None:
        return _NOTHING
    return _Token(
        _finite(sign * read.plain * scale),
        decimal_comma=read.decimal_comma,
        thousands=read.thousands,
        decimal_dot=read.decimal_dot,
    )


def _comma_is_decimal(tokens: Sequence[_Token], *, sizes: bool = True) -> bool | None:
    """How these values read "12,345" (the rules in the module's docstring); None when
    nothing else among them tells. Without `sizes`, only separators tell (the values of
    other columns say nothing of this one's size)."""
    comma = any(t.decimal_comma for t in tokens)
    dot = any(t.decimal_dot for t in tokens)
    if comma and not dot:
        return True
    if any(t.thousands for t in tokens) or any(
        t.decimal_dot and t.plain is not None and abs(t.plain) >= 1000 for t in tokens
    ):
        return False
    if sizes and any(t.plain is not None for t in tokens):
        return True
    return None


def _read(tokens: Sequence[_Token], decimal: bool | None) -> list[float | None]:
    out: list[float | None] = []
    for token in tokens:
        if not token.ambiguous:
            out.append(token.plain)
            continue
        # With nothing to tell, a percentage ("76,234%") is read as one, else thousands.
        comma = "." if decimal or (decimal is None and token.percent) else ""
        out.append(_finite(token.sign * float(token.ambiguous.replace(",", comma)) * token.scale))
    return out


def read_column(values: Iterable) -> list[float | None]:
    """The number each value of one metric column states (None where it states none),
    the column deciding how its commas read."""
    tokens = [_token(raw) for raw in values]
    if not any(t.ambiguous for t in tokens):
        return [t.plain for t in tokens]
    return _read(tokens, _comma_is_decimal(tokens))


def reads_alone(metrics) -> bool:
    """Whether each of a row's values (metric name → value as given) states its number
    whatever its column holds: none has the two readings of "12,345" (thousands, or a
    decimal comma) that its column decides between."""
    if not isinstance(metrics, dict):
        return False
    return not any(_token(raw).ambiguous for raw in metrics.values())


def read_value(raw) -> float | None:
    """The number a value states read alone (a column of one)."""
    return read_column([raw])[0]


def has_value(raw) -> bool:
    """Whether a value says anything at all ("", null, "-" and "—" say nothing)."""
    if raw is None or isinstance(raw, bool):
        return raw is not None
    if isinstance(raw, str):
        return raw.strip(_WRAPPING + "-\u2013\u2014\u2212?") != ""
    return True


def read_rows(metrics: Sequence[dict]) -> list[dict[str, float | None]]:
    """Each row's metric name → number, for the rows of one board (`metrics`: each row's
    metric name → value as given), every column read as a whole; a column whose values
    alone cannot tell how its commas read ("90,871" throughout) reads them as the board's
    other columns do, or as its name says."""
    columns: dict[str, list[tuple[int, _Token]]] = {}
    for i, row in enumerate(metrics):
        for name, raw in row.items():
            columns.setdefault(name, []).append((i, _token(raw)))
    board: bool | None = None
    if any(t.ambiguous for column in columns.values() for _, t in column):
        every = [t for column in columns.values() for _, t in column]
        board = _comma_is_decimal(every, sizes=False)
    out: list[dict[str, float | None]] = [{} for _ in metrics]
    for name, column in columns.items():
        tokens = [t for _, t in column]
        decimal = _comma_is_decimal(tokens) if any(t.ambiguous for t in tokens) else None
        if decimal is None:
            decimal = True if board is None and is_bounded(name) else board
        for (i, _), number in zip(column, _read(tokens, board if decimal is None else decimal),
                                  strict=True):  # fmt: skip
            out[i][name] = number
    return out


def json_safe_metrics(metrics) -> dict:
    """A row's metrics as JSON can hold them: a number JSON has no literal for (NaN, an
    infinity, an integer past a float's range) becomes its text, kept and unranked."""
    if not isinstance(metrics, dict):
        return {}
    out = {}
    for name, value in metrics.items():
        if isinstance(value, float) and not math.isfinite(value):
            value = str(value).replace("inf", "Infinity").replace("nan", "NaN")
        elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1023:
            value = str(value)
        out[str(name)] = value
    return out


# --- a direction the results contradict ---------------------------------------------------------

CONTRADICTION_MIN_RESULTS = 5


def new_bests(values: Sequence[float], lower_is_better: bool) -> int:
    """How many of these values (in date order) beat every one before them."""
    best, count = None, 0
    for value in values:
        if best is None or (value < best if lower_is_better else value > best):
            best, count = value, count + 1
    return count


def contradicts(values: Sequence[float], lower_is_better: bool) -> bool:
    """Whether results, in date order, set records the other way: the field moves
    forward, so under the right direction new bests keep coming; under the wrong one the
    newest results keep beating the old in the other direction. True when, of at least
    CONTRADICTION_MIN_RESULTS results, the other direction has three new bests or more,
    twice as many as this one, and the newest of them is its best. (Not asked of costs:
    see is_cost().)"""
    if len(values) < CONTRADICTION_MIN_RESULTS:
        return False
    mine = new_bests(values, lower_is_better)
    other = new_bests(values, not lower_is_better)
    newest_is_best = values[-1] == (max(values) if lower_is_better else min(values))
    return other >= 3 and other >= 2 * mine and newest_is_best


def metric_text(value: Any) -> str:
    """A metric value as the source gives it: text verbatim, numbers without a float's
    ".0" (62687, not 62687.0)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    return str(value)
