"""Titles and snippets as HTML with their LaTeX rendered, as abstracts render theirs.

A title such as "An $L_0$-Robust Sparse Fourier Transform" is plain text with inline
math: wherever a title (or an abstract's snippet) is shown as HTML, each `$…$` becomes
MathML through papers.markup.render_abstract (its formulas are sanitised there), and
the rest is escaped. The page's <title>, its meta tags and the feeds keep the plain
text.

A page shows up to a hundred titles: one without a `$` is only escaped, and one with
math is rendered once per process (most titles recur on many pages).
"""

from __future__ import annotations

import functools
import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from papers.highlights import MARK_END, MARK_START  # around a highlight's matches
from papers.markup import render_abstract

# Inline math as abstracts read it (papers.markup): $$…$$ or $…$ on one line; a dollar
# escaped as in LaTeX (`\$1 Today or \$2 Tomorrow?`, a real title) is a dollar sign.
MATH = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$((?:\\\$|[^$\n])+?)(?<!\\)\$", re.DOTALL)
_MARKS = re.compile(f"[{MARK_START}{MARK_END}]")
RENDERED = 4096  # formulas and titles kept rendered per process


@functools.lru_cache(maxsize=RENDERED)
def _formula(source: str) -> str:
    """One formula (with its dollars) as sanitised MathML, as in an abstract."""
    rendered = render_abstract(source).html
    return rendered.removeprefix("<p>").removesuffix("</p>")


def _text(text: str, state: list[bool]) -> str:
    """Text between formulas, escaped, its match markers as <mark> (state[0]: a mark
    is open)."""
    out = []
    for piece in re.split(f"([{MARK_START}{MARK_END}])", text):
        if piece == MARK_START:
            if not state[0]:
                out.append("<mark>")
            state[0] = True
        elif piece == MARK_END:
            if state[0]:
                out.append("</mark>")
            state[0] = False
        elif piece:
            out.append(escape(piece.replace("\\$", "$")))
    return "".join(out)


def _render(text: str) -> str:
    state = [False]  # whether a <mark> is open
    out, last = [], 0
    for match in MATH.finditer(text):
        out.append(_text(text[last : match.start()], state))
        source = match[0]
        was_open = state[0]
        for marker in _MARKS.findall(source):
            state[0] = marker == MARK_START
        formula = _formula(_MARKS.sub("", source))
        if not was_open and (MARK_START in source or state[0]):
            formula = f"<mark>{formula}</mark>"  # a match inside the formula
        out.append(formula)
        if was_open and not state[0]:
            out.append("</mark>")
        elif not was_open and state[0]:
            out.append("<mark>")
        last = match.end()
    out.append(_text(text[last:], state))
    if state[0]:
        out.append("</mark>")
    return "".join(out)


@functools.lru_cache(maxsize=RENDERED)
def _rendered(text: str) -> str:
    return _render(text)


def math_text(text: str | None) -> SafeString:
    """Plain text (a title, a snippet) as HTML: escaped, its $…$ math as MathML."""
    text = " ".join((text or "").split())
    if "$" not in text:
        return escape(text)
    return mark_safe(_rendered(text))  # text escaped, formulas sanitised (render_abstract)


def marked_text(text: str | None) -> SafeString:
    """A search highlight (text with match markers) as HTML: escaped, the matches as
    <mark>, its math as MathML."""
    return mark_safe(_render(text or ""))  # text escaped, formulas sanitised


def math_spans(text: str) -> list[tuple[int, int]]:
    """Where the formulas of `text` start and end."""
    return [match.span() for match in MATH.finditer(text)] if "$" in text else []


def outside_math(text: str, cut: int) -> int:
    """`cut`, or the start of the formula it falls inside: a text cut there keeps its
    formulas whole."""
    for start, end in math_spans(text):
        if start < cut < end:
            return start
    return cut
