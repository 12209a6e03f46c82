"""Descriptions and abstracts as HTML: Markdown (CommonMark) and LaTeX, rendered safely.

Task, method, dataset and leaderboard descriptions are Markdown as Papers with Code wrote
them: `**bold**`, links (absolute ones to paperswithcode.com and relative `](/paper/…)`
ones), tables, a little raw HTML (`10<sup>8</sup>`) and LaTeX between `$…$` / `$$…$$`.
`render_description()` turns one into HTML with markdown-it-py, math into MathML with
latex2mathml (the LaTeX source, shown as code, where it cannot convert), and then passes
everything through nh3 (ammonia) with an allow-list: no attributes beyond a few, only
http(s)/mailto links. Raw HTML keeps only the allow-list's tags; any other tag is shown
as the text it is (`List<T>`, a stray `<textarea>`), so it can neither run nor take the
rest of the description with it. Headings are demoted below the page's
own (h3 and smaller) and tables scroll inside their own box.

Abstracts are plain text with arXiv's hard line breaks: `render_abstract()` joins the
lines of each paragraph (a blank line or an indented line starts the next) and renders
`$…$` math the same way; nothing else is read as markup.

Links to Papers with Code's paper, method, task and dataset pages become ours when we
have the record: rendering is cached by the text's hash (it does not depend on the
database), and `localise()` swaps the hrefs of the records that exist, found with one
query per kind for everything a page shows (`Links`).
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit

import nh3
from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe
from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt
from markdown_it.common.html_re import close_tag, open_tag
from markdown_it.rules_block import html_block
from mdit_py_plugins.dollarmath import dollarmath_plugin

# Bump to retire every cached rendering when the rendering itself changes.
RENDER_VERSION = 3
CACHE_SECONDS = 7 * 24 * 3600

# What one text may cost to render. Markdown parsing is linear but slow on the worst
# input (a run of `![` takes ~14 µs a character), and each formula is a latex2mathml
# call whose MathML can be ten times its source. The longest description in the archive
# is under 9,000 characters and the most formula-laden has 49 formulas and 1,400
# characters of LaTeX, so these bounds leave real texts whole:
# - the first MARKUP_MAX characters of a text are rendered (Markdown, math), the rest is
#   shown as plain paragraphs;
# - a text's first MATH_MAX formulas, up to MATH_SOURCE_MAX characters of LaTeX in all,
#   become MathML; later ones are shown as their source text, `$…$` included.
MARKUP_MAX = 10_000
MATH_MAX = 200
MATH_SOURCE_MAX = 5_000
PWC = "https://paperswithcode.com"
KINDS = ("paper", "method", "task", "dataset")

# What the sanitizer keeps. HTML: Markdown's own output plus the few tags descriptions
# use for notation; MathML: what latex2mathml writes.
_HTML_TAGS = {
    "p", "br", "hr", "em", "strong", "b", "i", "u", "s", "del", "sup", "sub", "code",
    "pre", "kbd", "blockquote", "ul", "ol", "li", "a", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tr", "th", "td", "div", "span",
}  # fmt: skip
_MATH_TAGS = {
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup",
    "mfrac", "msqrt", "mroot", "mstyle", "mtable", "mtr", "mtd", "munder", "mover",
    "munderover", "mpadded", "mphantom", "menclose", "merror", "semantics", "annotation",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
    "math": {"display"},
    "mo": {"stretchy", "fence", "separator", "lspace", "rspace", "form", "minsize",
           "maxsize", "symmetric", "movablelimits", "accent"},
    "mfrac": {"linethickness"},
    "mspace": {"width", "height", "depth"},
    "mstyle": {"displaystyle", "scriptlevel", "mathvariant", "mathcolor", "mathsize"},
    "mi": {"mathvariant"},
    "mn": {"mathvariant"},
    "mtext": {"mathvariant"},
    "mtable": {"columnalign", "rowspacing", "columnspacing", "displaystyle", "columnlines",
               "rowlines", "frame"},
    "mtd": {"columnalign", "columnspan", "rowspan"},
    "mover": {"accent"},
    "munder": {"accentunder"},
    "menclose": {"notation"},
}  # fmt: skip
_ALLOWED_CLASSES = {"div": {"table-scroll"}, "code": {"math-source"}}


def _sanitise(text: str, rel: str = "nofollow") -> str:
    return nh3.clean(
        text,
        tags=_HTML_TAGS | _MATH_TAGS,
        attributes=_ATTRIBUTES,
        allowed_classes=_ALLOWED_CLASSES,
        url_schemes={"http", "https", "mailto"},
        link_rel=rel,
        strip_comments=True,
    )


# --- math ---------------------------------------------------------------------------------

# Papers with Code ran Markdown before MathJax, so its writers escaped Markdown's
# characters inside math: `\_{i}`, `\*` and `\left\(` mean `_{i}`, `*` and `\left(`.
# (`\{` stays: it is LaTeX's brace.) `\label{…}` numbers an equation; MathML has no use.
_MARKDOWN_ESCAPE_IN_MATH = re.compile(r"(?<!\\)\\([_*()\[\]])")
_LABEL = re.compile(r"\\label\{[^{}]*\}")
# Operator names latex2mathml does not know, written as upright text.
_OPERATORS = re.compile(r"\\(arg|argmin|argmax|operatorname)(?![a-zA-Z])")


def _operator(match: re.Match) -> str:
    return r"\mathrm" if match[1] == "operatorname" else rf"\mathrm{{{match[1]}}}"


@dataclass
class MathBudget:
    """The formulas of one text still to be rendered as MathML (see MATH_MAX)."""

    formulas: int = MATH_MAX
    source: int = MATH_SOURCE_MAX

    def render(self, latex: str, display: bool, delimiter: str) -> str:
        """MathML for the formula while the budget lasts, then its source as text."""
        if self.formulas <= 0 or len(latex) > self.source:
            self.formulas = 0  # in order: no later, shorter formula jumps the queue
            return html.escape(f"{delimiter}{latex}{delimiter}", quote=False)
        self.formulas -= 1
        self.source -= len(latex)
        return math_html(latex, display)


def math_html(latex: str, display: bool = False) -> str:
    """MathML for one formula (sanitised later with the rest), or its source as code when
    latex2mathml cannot convert it or passes a command through unknown (`<mi>\\foo</mi>`)."""
    source = _MARKDOWN_ESCAPE_IN_MATH.sub(r"\1", _LABEL.sub("", latex.strip()))
    source = _OPERATORS.sub(_operator, source)
    try:
        mathml = latex_to_mathml(source, display="block" if display else "inline")
    except Exception:  # latex2mathml raises many kinds on malformed or unknown LaTeX
        mathml = ""
    if not mathml or "<merror" in mathml or ">\\" in mathml:
        return f'<code class="math-source">{html.escape(latex.strip())}</code>'
    return mathml


# --- links --------------------------------------------------------------------------------

_PWC_HOSTS = {"paperswithcode.com", "www.paperswithcode.com"}
_RECORD_PATH = re.compile(r"^/?(paper|method|task|dataset)/([^/?#]+)/?$")


def canonical_href(href: str) -> tuple[str, tuple[str, str] | None]:
    """The href to write, and (kind, slug) when it names a Papers with Code record.

    Relative hrefs are Papers with Code's own (`/paper/x`, `method/y`): they are made
    absolute there, since a page of ours may not exist for them."""
    href = href.strip()
    try:
        parts = urlsplit(href)
    except ValueError:
        return "", None
    if parts.scheme in {"http", "https"} and parts.hostname not in _PWC_HOSTS:
        return href, None
    if parts.scheme and parts.scheme not in {"http", "https"}:
        return href, None  # mailto: kept; anything else the sanitizer drops
    if not parts.scheme and not parts.path:
        return href, None  # "#anchor"
    match = _RECORD_PATH.match(parts.path)
    if match:
        kind, slug = match[1], unquote(match[2])
        return f"{PWC}/{kind}/{quote(slug, safe='')}", (kind, slug)
    path = parts.path if parts.path.startswith("/") else f"/{parts.path}"
    query = f"?{parts.query}" if parts.query else ""
    return f"{PWC}{path}{query}", None


# --- raw HTML -------------------------------------------------------------------------------

# Raw HTML a description may carry through as markup (the sanitizer still strips their
# attributes): the notation and structure tags of _HTML_TAGS. Any other tag, a processing
# instruction or a declaration is shown as text, so that nothing the sanitizer would drop
# with its content (<script>, <template>) or read the rest of the page into (<textarea>,
# <title>, <iframe>, <plaintext>, MathML) ever reaches it: `List<T>` keeps its `<T>`.
_RAW_TAGS = _HTML_TAGS
_TAG = re.compile(f"(?:{open_tag}|{close_tag})")
_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")


def raw_html(text: str) -> str:
    """Raw HTML from a description with the tags of _RAW_TAGS kept, comments dropped, and
    everything else escaped as text."""
    out, at = [], 0
    while (start := text.find("<", at)) >= 0:
        out.append(text[at:start])
        if text.startswith("<!--", start) and (close := text.find("-->", start + 4)) >= 0:
            at = close + 3  # a comment: dropped, as the sanitizer would
            continue
        tag = _TAG.match(text, start)
        if tag is None:
            out.append("&lt;")
            at = start + 1
            continue
        name = _TAG_NAME.match(tag[0])[1].lower()
        out.append(tag[0] if name in _RAW_TAGS else html.escape(tag[0], quote=False))
        at = tag.end()
    out.append(text[at:])
    return "".join(out)


def _kept_block(state, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's HTML block, only for a block that opens with a tag of _RAW_TAGS (a
    <pre> only when it is closed) or with a closed comment. Any other line starting with
    `<` is a paragraph: its tags are escaped and the Markdown after them renders, where
    an HTML block would have taken it raw up to the next blank line, or for <script>,
    <style> and <textarea> up to the end of the text."""
    start = state.bMarks[start_line] + state.tShift[start_line]
    source = state.src
    if source.startswith("<!--", start):
        if source.find("-->", start + 4) < 0:
            return False
    else:
        name = _TAG_NAME.match(source, start)
        if not name or name[1].lower() not in _RAW_TAGS:
            return False
        if name[1].lower() == "pre" and "</pre>" not in source[start:].lower():
            return False
    return html_block(state, start_line, end_line, silent)


def _html(self, tokens, idx, options, env):
    return raw_html(tokens[idx].content)


# --- Markdown -----------------------------------------------------------------------------


def _heading_open(self, tokens, idx, options, env):
    token = tokens[idx]
    token.tag = f"h{min(6, int(token.tag[1]) + 2)}"  # a description's # is the page's h3
    return self.renderToken(tokens, idx, options, env)


def _heading_close(self, tokens, idx, options, env):
    tokens[idx].tag = f"h{min(6, int(tokens[idx].tag[1]) + 2)}"
    return self.renderToken(tokens, idx, options, env)


def _table_open(self, tokens, idx, options, env):
    return '<div class="table-scroll">' + self.renderToken(tokens, idx, options, env)


def _table_close(self, tokens, idx, options, env):
    return self.renderToken(tokens, idx, options, env) + "</div>"


def _link_open(self, tokens, idx, options, env):
    token = tokens[idx]
    href, record = canonical_href(token.attrGet("href") or "")
    token.attrSet("href", href)
    if record:
        env.setdefault("records", set()).add(record)
    return self.renderToken(tokens, idx, options, env)


def _image(self, tokens, idx, options, env):
    """An image becomes a link to it: the page's CSP loads no images from elsewhere."""
    token = tokens[idx]
    src, _ = canonical_href(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    return f'<a href="{html.escape(src)}">[{html.escape(alt)}]</a>'


def _math(display: bool, block: bool = False):
    def render(self, tokens, idx, options, env):
        token = tokens[idx]
        budget = env.setdefault("math", MathBudget())
        out = budget.render(token.content, display, "$$" if display else "$")
        return f"<div>{out}</div>\n" if block else out

    return render


def _softbreak(self, tokens, idx, options, env):
    return " "


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable(
        ["table", "strikethrough"]
    )
    dollarmath_plugin(
        md,
        allow_space=True,
        allow_digits=False,  # "$5 to $10" is money, not math
        double_inline=True,
    )
    md.add_render_rule("math_inline", _math(display=False))
    md.add_render_rule("math_inline_double", _math(display=True))
    md.add_render_rule("math_block", _math(display=True, block=True))
    md.add_render_rule("math_block_label", _math(display=True, block=True))
    md.add_render_rule("heading_open", _heading_open)
    md.add_render_rule("heading_close", _heading_close)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    md.add_render_rule("softbreak", _softbreak)
    md.add_render_rule("html_inline", _html)
    md.add_render_rule("html_block", _html)
    md.block.ruler.at("html_block", _kept_block, {"alt": ["paragraph", "reference", "blockquote"]})
    return md


_MD = _markdown()


@dataclass(frozen=True)
class Rendered:
    """Sanitised HTML and the Papers with Code records its links name."""

    html: str
    records: frozenset[tuple[str, str]] = frozenset()


def _cached(prefix: str, text: str, render) -> Rendered:
    key = f"{prefix}.{RENDER_VERSION}.{hashlib.sha256(text.encode()).hexdigest()}"
    try:
        found = cache.get(key)
    except Exception:
        found = None
    if found is None:
        found = render(text)
        with contextlib.suppress(Exception):  # a failing cache only costs a re-render
            cache.set(key, found, timeout=CACHE_SECONDS)
    return found


def _within_bounds(text: str) -> tuple[str, str]:
    """The text split into what is rendered (its first MARKUP_MAX characters, cut at a
    paragraph break when one falls in their second half) and the rest."""
    if len(text) <= MARKUP_MAX:
        return text, ""
    cut = text.rfind("\n\n", 0, MARKUP_MAX)
    if cut < MARKUP_MAX // 2:
        cut = MARKUP_MAX
    return text[:cut], text[cut:]


def _plain(text: str) -> str:
    """Text as escaped paragraphs, nothing read as markup."""
    parts = (" ".join(part.split()) for part in re.split(r"\n\s*\n", text))
    return "".join(f"<p>{html.escape(part, quote=False)}</p>\n" for part in parts if part)


def _render_markdown(text: str, rel: str = "nofollow") -> Rendered:
    env: dict = {}
    text, rest = _within_bounds(text.replace("\r\n", "\n").replace("\r", "\n"))
    raw = _MD.render(text, env) + _plain(rest)
    return Rendered(_sanitise(raw, rel), frozenset(env.get("records", ())))


# Links in text that users wrote on the site: search engines are told the site does not
# vouch for them (and they earn the linked page nothing).
UGC = "nofollow ugc"


def _render_contributed(text: str) -> Rendered:
    return _render_markdown(text, UGC)


def render_description(text: str, *, contributed: bool = False) -> Rendered:
    """A Markdown description as safe HTML (cached by the text's hash). `contributed`:
    the text was written by a user of the site, so its links carry rel="nofollow ugc"."""
    if not text or not text.strip():
        return Rendered("")
    if contributed:
        return _cached("md-ugc", text, _render_contributed)
    return _cached("md", text, _render_markdown)


_LINK_ELEMENT = re.compile(r"<a\b[^>]*>.*?</a>", re.DOTALL | re.IGNORECASE)
_ANY_TAG = re.compile(r"<[^>]+>")
_BARE_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
SUBSTANTIVE_WORDS = 5


def only_links(text: str) -> bool:
    """Whether a description has links and, once they (their text and their addresses) are
    taken out, fewer than SUBSTANTIVE_WORDS words are left: what a spammer writes."""
    rendered = render_description(text, contributed=True).html
    if "<a " not in rendered and not _BARE_URL.search(text or ""):
        return False
    rest = html.unescape(_ANY_TAG.sub(" ", _LINK_ELEMENT.sub(" ", rendered)))
    words = re.findall(r"[^\W\d_]{2,}", _BARE_URL.sub(" ", rest))
    return len(words) < SUBSTANTIVE_WORDS


# --- abstracts ----------------------------------------------------------------------------

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n|\n(?=[ \t]+\S)")
_INLINE_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", re.DOTALL)


def _render_abstract(text: str) -> Rendered:
    text, rest = _within_bounds(text.replace("\r\n", "\n").replace("\r", "\n").strip())
    budget = MathBudget()
    paragraphs = []
    for part in _PARAGRAPH_BREAK.split(text):
        joined = " ".join(part.split())
        if not joined:
            continue
        out, last = [], 0
        for match in _INLINE_MATH.finditer(joined):
            out.append(html.escape(joined[last : match.start()], quote=False))
            display = match[1] is not None
            latex = match[1] if display else match[2]
            out.append(budget.render(latex, False, "$$" if display else "$"))
            last = match.end()
        out.append(html.escape(joined[last:], quote=False))
        paragraphs.append(f"<p>{''.join(out)}</p>")
    return Rendered(_sanitise("".join(paragraphs) + _plain(rest)))


def render_abstract(text: str) -> Rendered:
    """An abstract as paragraphs of safe HTML, its math as MathML (cached by hash)."""
    if not text or not text.strip():
        return Rendered("")
    return _cached("abstract", text, _render_abstract)


# --- our own pages for the records links name -----------------------------------------------


@dataclass
class Links:
    """Which linked Papers with Code records we have pages for, resolved in at most one
    query per kind for every text on a page."""

    existing: set[tuple[str, str]] = field(default_factory=set)

    @classmethod
    def resolve(cls, rendered: Iterable[Rendered]) -> Links:
        from papers.models import Dataset, Method, Paper, Task

        wanted: dict[str, set[str]] = {}
        for item in rendered:
            for kind, slug in item.records:
                wanted.setdefault(kind, set()).add(slug)
        models = {"paper": Paper, "method": Method, "task": Task, "dataset": Dataset}
        existing = set()
        for kind, slugs in wanted.items():
            rows = models[kind].objects.filter(slug__in=slugs, hidden=False)
            existing |= {(kind, slug) for slug in rows.values_list("slug", flat=True)}
        return cls(existing)

    def localise(self, rendered: Rendered) -> SafeString:
        """The HTML with links to records we have pointing at our pages."""
        out = rendered.html
        for kind, slug in rendered.records:
            if (kind, slug) in self.existing:
                theirs = html.escape(f"{PWC}/{kind}/{quote(slug, safe='')}")
                ours = html.escape(f"/{kind}/{quote(slug, safe='')}")
                for rel in ("nofollow", UGC):
                    out = out.replace(f'href="{theirs}" rel="{rel}"', f'href="{ours}"')
        return mark_safe(out)  # sanitised by nh3 when rendered; only hrefs swapped since


def render_all(*, contributed: bool = False, **texts: str) -> dict[str, SafeString]:
    """Several descriptions of one page, rendered, with their links localised together
    (one query per kind of record linked): render_all(description=task.description).
    `contributed`: the texts were written on the site (render_description)."""
    rendered = {
        name: render_description(text, contributed=contributed) for name, text in texts.items()
    }
    links = Links.resolve(rendered.values())
    return {name: links.localise(r) for name, r in rendered.items()}
