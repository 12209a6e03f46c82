"""Parse what a person types into the search box, the same way for every engine.

Grammar (forgiving: anything else is treated as words):
  word          must match (stemmed)
  "a phrase"    the words in this order; an unbalanced quote runs to the end
  -word, -"a b" must not match
  a OR b        either (binds tighter than the implicit AND)
The last bare word also matches as a prefix while the person is still typing.
A query may be kept to one field (`parse(text, field="title")`: the API's title and
abstract filters), and queries joined (`ParsedQuery.joined`) so that one search answers
a text and its field filters together.
Only letters and digits reach the engines: operators are rebuilt by the backends,
so no FTS or tsquery syntax error can come from user input.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, replace

MAX_QUERY_CHARS = 500  # longer input is cut, not rejected
MAX_TERMS = 12
FIELDS = ("title", "abstract")  # fields a term may be kept to
RELAXED_FROM = 4  # groups (words, phrases) from which a query that matches nothing is relaxed
_TOKEN = re.compile(r'-?"[^"]*"?|\S+')
_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # letters and digits only
# Dropped from bare words so that both engines agree: PostgreSQL's English configuration
# (its snowball english.stop, which these are) leaves them out of its index and its
# queries, while SQLite's FTS5 indexes every word and would require them, reading a
# common word's every match to find none of the pages that omit it ("how can we …").
STOP_WORDS = frozenset(
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his "
    "himself she her hers herself it its itself they them their theirs themselves what "
    "which who whom this that these those am is are was were be been being have has had "
    "having do does did doing a an the and but if or because as until while of at by for "
    "with about against between into through during before after above below to from up "
    "down in out on off over under again further then once here there when where why how "
    "all any both each few more most other some such no nor not only own same so than too "
    "very s t can will just don should now".split()
)


@dataclass(frozen=True)
class Term:
    words: tuple[str, ...]  # one word, or a phrase
    prefix: bool = False  # the last word matches as a prefix
    field: str | None = None  # one of FIELDS, or None for any field

    @property
    def is_phrase(self) -> bool:
        return len(self.words) > 1


@dataclass
class ParsedQuery:
    groups: list[list[Term]] = dataclasses.field(default_factory=list)  # AND of ORs
    excluded: list[Term] = dataclasses.field(default_factory=list)
    truncated: bool = False
    # All groups but this many may fail to match (relaxed()); 0: every group must.
    spare: int = 0

    @property
    def empty(self) -> bool:
        return not self.groups

    @property
    def has_prefix(self) -> bool:
        return any(term.prefix for group in self.groups for term in group)

    def finished(self) -> ParsedQuery:
        """The same query with the typed last word read as a finished word."""
        groups = [[replace(term, prefix=False) for term in group] for group in self.groups]
        return replace(self, groups=groups)

    def relaxed(self) -> ParsedQuery | None:
        """The same query matching every group but one, for a long query that matches
        nothing (a pasted title with one word wrong or missing); None for a query of
        fewer than RELAXED_FROM groups, which is searched as typed only. Its last word
        is read as a finished word: as a prefix it is expanded in each conjunction of
        the union (a pasted title ending in a common word: 0.4 s on PostgreSQL), and a
        word still being typed that no paper holds as typed is the one left out."""
        if self.spare or len(self.groups) < RELAXED_FROM:
            return None
        return replace(self.finished(), spare=1)

    def without(self, positions: list[int]) -> ParsedQuery:
        """The same query less the groups at `positions`, every other group required."""
        groups = [group for i, group in enumerate(self.groups) if i not in positions]
        return replace(self, groups=groups, spare=0)

    def all_but(self) -> list[list[list[Term]]]:
        """The conjunctions of groups the query is the union of: itself, or (relaxed)
        each way of leaving out `spare` = 1 of its groups."""
        if not self.spare:
            return [self.groups]
        return [self.groups[:i] + self.groups[i + 1 :] for i in range(len(self.groups))]

    def joined(self, other: ParsedQuery) -> ParsedQuery:
        """Both queries' conditions: every group of each, the exclusions of both."""
        return ParsedQuery(
            groups=[*self.groups, *other.groups],
            excluded=[*self.excluded, *other.excluded],
            truncated=self.truncated or other.truncated,
        )

    def words(self) -> list[str]:
        """Every positive word, for highlighting."""
        return [w for group in self.groups for term in group for w in term.words]


def parse(text: str, *, typing: bool = True, field: str | None = None) -> ParsedQuery:
    """`typing=False` reads the text as finished (an API query): no prefix matching.
    `field`: every term must match in that field (one of FIELDS)."""
    assert field is None or field in FIELDS, field
    text = (text or "").replace("\x00", " ")
    result = ParsedQuery(truncated=len(text) > MAX_QUERY_CHARS)
    text = text[:MAX_QUERY_CHARS]
    tokens = _TOKEN.findall(text)
    ends_open = (
        typing and bool(text) and not text[-1].isspace() and not text.rstrip().endswith('"')
    )
    pending_or = False
    count = 0
    for index, token in enumerate(tokens):
        if token == "OR":
            pending_or = bool(result.groups)
            continue
        negative = token.startswith("-") and len(token) > 1
        body = token[1:] if negative else token
        quoted = body.startswith('"')
        words = tuple(w.lower() for w in _WORD.findall(body))
        if not words:
            continue
        if count >= MAX_TERMS:
            result.truncated = True
            break
        count += 1
        is_last = index == len(tokens) - 1
        if quoted or negative or (len(words) > 1 and "-" in body.strip("-")):
            # A quoted phrase, or a hyphenated word ("state-of-the-art") read as one.
            terms = [Term(words, field=field)]
        else:
            terms = [
                Term((w,), prefix=is_last and ends_open and i == len(words) - 1, field=field)
                for i, w in enumerate(words)
                if w not in STOP_WORDS or (is_last and ends_open and not result.groups)
            ]
            if not terms:
                continue
        if negative:
            result.excluded.extend(terms)
        elif pending_or:
            result.groups[-1].extend(terms[:1])
            result.groups.extend([t] for t in terms[1:])
        else:
            result.groups.extend([t] for t in terms)
        pending_or = False
    return result
