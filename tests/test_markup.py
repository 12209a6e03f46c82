"""Descriptions and abstracts rendered: Markdown and LaTeX as safe HTML and MathML."""

from __future__ import annotations

import gzip
import html as html_module
import json
import time

import pytest

from papers import markup
from papers.markup import Links, render_abstract, render_description
from tests.conftest import realdata


def html(text: str) -> str:
    return render_description(text).html


def test_markdown_renders_and_soft_breaks_are_spaces():
    out = html("A **GAN** has\r\ntwo *nets*.\r\n\r\nSecond paragraph.")
    assert (
        out == "<p>A <strong>GAN</strong> has two <em>nets</em>.</p>\n<p>Second paragraph.</p>\n"
    )


def test_raw_html_keeps_only_the_safe_few():
    out = html(
        "10<sup>8</sup> H<sub>2</sub>O <script>alert(1)</script><img src=x onerror=alert(1)>"
        '<a href="javascript:alert(1)" onclick="x()">x</a> <b style="color:red">b</b>'
    )
    assert "10<sup>8</sup>" in out and "H<sub>2</sub>O" in out
    assert "<script" not in out and "<img" not in out
    # Shown as text, never run.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in out
    assert "javascript:" not in out and "onclick" not in out and "style=" not in out


def test_text_that_only_looks_like_a_tag_is_kept_as_text():
    assert "&lt;query concept, anchor concept&gt;" in html("pairs <query concept, anchor concept>")
    assert html("A List<T> of Map<K,V>") == "<p>A List&lt;T&gt; of Map&lt;K,V&gt;</p>\n"


@pytest.mark.parametrize(
    "tag",
    ["textarea", "title", "iframe", "noembed", "plaintext", "script", "template", "style",
     "xmp", "noscript", "select", "svg", "math><mtext><table", "!DOCTYPE html", "?php"],
)  # fmt: skip
@pytest.mark.parametrize("where", ["inline", "line"])
def test_raw_html_left_open_shows_as_text_and_never_swallows_what_follows(tag, where):
    """A tag the allow-list does not keep is shown as text, however it is left open,
    and the description after it renders as usual."""
    opening = f"<{tag}>"
    if where == "inline":
        text = f"Before {opening} inside\n\n**After** it."
    else:
        text = f"{opening}\ninside\n\n**After** it.\n\n- and a list"
    out = html(text)
    # <table> is allowed: kept as markup, with what follows beside it.
    assert html_module.escape(opening.replace("<table>", ""), quote=False) in out
    assert "<strong>After</strong> it." in out and "inside" in out
    assert "&lt;/p&gt;" not in out and "&lt;p&gt;" not in out
    if where == "line":
        assert "<li>and a list</li>" in out


def test_raw_html_blocks_keep_their_allowed_tags_and_escape_the_rest():
    out = html("<div>\n<textarea>\n<b>bold</b>\n</div>\n\n**next**")
    assert out == ("<div>\n&lt;textarea&gt;\n<b>bold</b>\n</div>\n<p><strong>next</strong></p>\n")
    assert html("<!-- a note -->\n\nshown") == "\n<p>shown</p>\n"
    assert "<strong>shown</strong>" in html("<!-- left open\n\n**shown**")


def test_math_becomes_mathml_with_markdown_escapes_undone():
    out = html(r"Loss $\min\_{D} V\_{LS}(D)$ and $$\frac{1}{2}$$")
    assert out.count("<math") == 2 and 'display="block"' in out
    assert "<msub>" in out and r"\_" not in out and "$" not in out


def test_math_that_cannot_convert_shows_its_source():
    out = html(r"See $\unknowncommand{x}$ here.")
    assert '<code class="math-source">\\unknowncommand{x}</code>' in out


def test_math_cannot_smuggle_html():
    out = html(r"$\text{<img src=x onerror=alert(1)>}$")
    assert "<img" not in out and "onerror" not in out


def test_headings_sit_below_the_page_headings_and_tables_scroll():
    out = html("# Title\n\n## Part\n\n|a|b|\n|-|-|\n|1|2|")
    assert "<h1" not in out and "<h2" not in out and "<h3>Title</h3>" in out
    assert '<div class="table-scroll"><table>' in out


def test_images_become_links_to_them():
    out = html("![A diagram](https://example.org/d.png)")
    assert out == '<p><a href="https://example.org/d.png" rel="nofollow">[A diagram]</a></p>\n'


def test_papers_with_code_links_are_recorded_and_relative_ones_made_absolute():
    rendered = render_description(
        "[a](https://paperswithcode.com/method/adam) [b](/paper/foo) [c](method/vit) "
        "[d](/sota/x) [e](https://example.org/)"
    )
    assert rendered.records == {("method", "adam"), ("paper", "foo"), ("method", "vit")}
    assert 'href="https://paperswithcode.com/sota/x"' in rendered.html
    assert 'href="https://example.org/"' in rendered.html


@pytest.mark.django_db
def test_links_point_to_our_pages_only_for_records_we_have(django_assert_num_queries):
    from papers.models import Method, Paper

    Method.objects.create(slug="adam", name="Adam")
    Method.objects.create(slug="hidden", name="Hidden", hidden=True)
    Paper.objects.create(slug="foo", title="Foo")
    rendered = [
        render_description("[a](https://paperswithcode.com/method/adam) [h](/method/hidden)"),
        render_description("[p](/paper/foo) [q](/paper/missing) [t](/task/none)"),
    ]
    with django_assert_num_queries(3):  # one per kind named: method, paper, task
        links = Links.resolve(rendered)
    first, second = (links.localise(r) for r in rendered)
    assert '<a href="/method/adam">a</a>' in first
    assert 'href="https://paperswithcode.com/method/hidden"' in first
    assert '<a href="/paper/foo">p</a>' in second
    assert 'href="https://paperswithcode.com/paper/missing"' in second


def test_abstract_hard_line_breaks_join_and_indented_lines_start_paragraphs():
    text = (
        "Discovering the underlying structure of a given graph is one of the\n"
        "fundamental goals in graph mining.\n  The goal of this paper is to model\n"
        "this with $K$ bands <b>x</b>."
    )
    out = render_abstract(text).html
    assert out.startswith("<p>Discovering the underlying structure of a given graph is one of "
                          "the fundamental goals in graph mining.</p><p>The goal")  # fmt: skip
    assert "<math" in out and "&lt;b&gt;x&lt;/b&gt;" in out


def test_a_pathological_description_renders_fast_and_whole():
    """Markdown parsing is linear but slow on a run of `![` (1.4 s of CPU for 100,000
    characters): past its first MARKUP_MAX characters a text is shown as plain text."""
    text = "![" * 50_000
    started = time.process_time()
    out = html(text)
    assert time.process_time() - started < 0.5
    assert out.count("![") == 50_000  # all of it shown


@pytest.mark.parametrize("render", [render_description, render_abstract], ids=["md", "abstract"])
def test_formulas_past_the_budget_are_shown_as_their_source(render):
    """25,000 formulas once made 1.35 MB of HTML out of 100 KB: a text renders its first
    MATH_MAX formulas as MathML and shows the others as the LaTeX they are."""
    text = "$x$ " * 25_000
    out = render(text).html
    assert out.count("<math") == markup.MATH_MAX
    assert out.count("$x$") == 25_000 - markup.MATH_MAX
    assert len(out) < 1.5 * len(text)


def test_long_formulas_spend_the_budget_in_order():
    big = "+".join(["a"] * 2_000)  # 3,999 characters of LaTeX
    out = html(f"${big}$ then $y$ then ${big}$ then $z$")
    assert out.count("<math") == 2  # the first big one and $y$
    assert out.endswith(f"then ${big}$ then $z$</p>\n")


def test_text_past_the_rendered_part_is_shown_as_plain_paragraphs():
    head = "**bold** " * 1_000  # 9,000 characters
    out = html(f"{head}\n\n{'word ' * 400}\n\n**not bold** <b>x</b>")
    assert out.count("<strong>bold</strong>") == 1_000
    assert out.endswith("<p>**not bold** &lt;b&gt;x&lt;/b&gt;</p>\n")


@pytest.mark.realdata
def test_real_method_descriptions_render_without_raw_markdown_or_unsafe_html():
    with gzip.open(realdata("mariaayuso__topic-modeling-on-software/methods.json.gz")) as file:
        methods = json.load(file)
    with_math = fallbacks = raw_bold = 0
    for method in methods:
        text = method.get("description") or ""
        out = html(text)
        assert "<script" not in out and "onerror" not in out
        raw_bold += "**" in out  # only where the source breaks CommonMark ("**FastMoE **")
        if "$" in text:
            with_math += "<math" in out
            fallbacks += out.count("math-source")
    assert with_math > 500  # of the 588 with a $
    assert fallbacks < 10
    assert raw_bold < len(methods) // 100


@pytest.mark.realdata
def test_real_dataset_and_task_descriptions_render(tmp_path):
    path = realdata("viswavi__datafinder/data/dataset_search_collection.jsonl")
    rendered = 0
    with path.open() as lines:
        for line in lines:
            record = json.loads(line)
            out = html(record.get("contents") or "")
            assert "<script" not in out and "\r" not in out
            rendered += 1
    assert rendered > 3000
    tasks = json.loads(
        realdata("paperswithcode__sota-extractor/data/tasks/nlpprogress.json").read_text()
    )
    out = html(tasks[0]["subtasks"][0]["datasets"][0]["description"])
    assert '<div class="table-scroll"><table>' in out  # the partition table
