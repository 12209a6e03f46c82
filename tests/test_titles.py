"""Titles with LaTeX ("An $L_0$-RobustSparse Fourier Transform", real API-crawled papers)
render their math wherever they are shown as HTML, as abstracts do; the page's <title>,
its meta tags and the feeds keep the plain text."""

from __future__ import annotations

import json
import re
from unittest import mock

import pytest

from papers import titles
from papers.kept import refresh_all as refresh_browse_counts
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    PaperMethod,
    RelatedPaper,
    Task,
)
from papers.templatetags.papers_tags import cut_title, snippet
from tests.archive_helpers import run_import, write
from tests.conftest import realdata

pytestmark = pytest.mark.django_db

ONEPHA = "1pha__BayesianActiveLearning/converted/test_dataset.jsonl"
ROBUST = "1812.05013"  # "Thwarting Adversarial Examples: An $L_0$-RobustSparse Fourier Transform"


@pytest.fixture
def latex_papers(tmp_path) -> dict[str, Paper]:
    """The real papers of the 1pha file whose titles hold math, imported as they are,
    and a plain paper whose pages list them (a method, a board, related papers)."""
    lines = realdata(ONEPHA).read_text().splitlines()
    records = [json.loads(line) for line in lines if line]
    with_math = [r for r in records if "$" in r["title"]]
    assert len(with_math) >= 5 and any(r["arxiv_id"] == ROBUST for r in with_math)
    status, _, err = run_import(write(tmp_path / "papers.jsonl", with_math, "jsonl"))
    assert status == 0, err
    papers = {p.arxiv_id: p for p in Paper.objects.all()}
    host = Paper.objects.create(slug="host", title="A paper with related ones")
    method = Method.objects.create(
        slug="sparse-fft", name="Sparse FFT", introduced_by=papers[ROBUST]
    )
    task = Task.objects.create(slug="robustness", name="Robustness")
    board = Leaderboard.objects.create(
        task=task, dataset=Dataset.objects.create(slug="d", name="D")
    )
    LeaderboardMetric.objects.create(leaderboard=board, name="Accuracy")
    for rank, paper in enumerate(papers.values()):
        PaperMethod.objects.create(paper=paper, method=method)
        RelatedPaper.objects.create(paper=host, related=paper, score=0.5, rank=rank)
        best = 100 if paper.arxiv_id == ROBUST else rank  # the task page shows the best
        LeaderboardRow.objects.create(
            leaderboard=board, row_key=f"r{rank}", paper=paper, metrics={"Accuracy": best}
        )
    refresh_browse_counts()
    return papers


def _raw_formulas(body: str, papers) -> list[str]:
    """The formulas of these papers' titles that the page shows as their source (in its
    text, not in attributes, which are plain text)."""
    text = re.sub(r"<[^>]*>", "", body.split("</head>", 1)[-1])
    formulas = {m[0] for p in papers for m in titles.MATH.finditer(p.title)}
    return sorted(f for f in formulas if f in text)


def test_a_latex_title_renders_its_math_in_the_paper_heading(client, latex_papers):
    paper = latex_papers[ROBUST]
    body = client.get(paper.get_absolute_url()).content.decode()
    heading = re.search(r"<h1>(.*?)</h1>", body, re.DOTALL)[1]
    assert "<math" in heading and "<msub><mi>L</mi><mn>0</mn></msub>" in heading
    assert "$" not in heading and "-RobustSparse Fourier Transform" in heading
    # The page's title and meta tags keep the plain text.
    head = body.split("</head>", 1)[0]
    assert "<title>Thwarting Adversarial Examples: An $L_0$-RobustSparse" in head
    assert "<math" not in head


@pytest.mark.parametrize(
    "url",
    [
        "/method/sparse-fft",  # a list of papers, and "Introduced in"
        "/sota/robustness-on-d",  # leaderboard rows
        "/task/robustness",  # its benchmarks' best paper
        "/paper/host",  # related papers
        "/search?q=robustsparse",  # a result, highlighted
        "/search?q=fourier&sort=newest",
        "/search?q=tensor",  # the snippet of an abstract with math
    ],
)
def test_latex_titles_render_their_math_wherever_they_are_listed(client, latex_papers, url):
    body = client.get(url).content.decode()
    assert "<math" in body.split("</head>", 1)[-1], url
    assert not _raw_formulas(body, latex_papers.values()), url


def test_a_matched_formula_is_highlighted_whole(client, latex_papers):
    body = client.get("/search", {"q": "robustsparse"}).content.decode()
    result = body[body.index('class="result-title"') :]
    result = result[: result.index("</a>")]
    assert "<mark>RobustSparse</mark>" in result and "<math" in result


def test_cut_titles_and_snippets_never_split_a_formula():
    title = "Thwarting Adversarial Examples: An $L_0$-RobustSparse Fourier Transform"
    assert cut_title(title, 37) == "Thwarting Adversarial Examples: An…"
    assert cut_title(title, 50) == "Thwarting Adversarial Examples: An $L_0$-RobustSpa…"
    text = "word " * 46 + "a bound $O(n \\log n)$ on the rest " * 3
    assert snippet(text).count("$") % 2 == 0


def test_titles_without_math_are_not_rendered(client, latex_papers):
    """A page lists up to a hundred titles: plain ones are only escaped, and a title's
    formulas are rendered once per process, whatever the number of pages."""
    titles._formula.cache_clear()
    titles._rendered.cache_clear()
    with mock.patch("papers.titles.render_abstract", wraps=titles.render_abstract) as render:
        assert "<math" in titles.math_text("An $L_0$ bound & more")
        assert titles.math_text("Plain & <simple>") == "Plain &amp; &lt;simple&gt;"
        titles.math_text("An $L_0$ bound & more")
        titles.math_text("Another $L_0$ bound")
    assert render.call_count == 1  # one formula, rendered once
    for _ in range(2):
        client.get("/method/sparse-fft")
    assert titles._formula.cache_info().misses == len(
        {m[0] for p in latex_papers.values() for m in titles.MATH.finditer(p.title)} | {"$L_0$"}
    )


def test_escaped_dollars_in_a_title_are_dollars_not_math(client, latex_papers):
    paper = latex_papers["1703.07726"]  # "\\$1 Today or \\$2 Tomorrow? The Answer is in…"
    body = client.get(paper.get_absolute_url()).content.decode()
    assert "<h1>$1 Today or $2 Tomorrow? The Answer is in Your Facebook Likes</h1>" in body


def test_a_title_with_markup_in_its_math_stays_text(client, latex_papers):
    paper = latex_papers[ROBUST]
    Paper.objects.filter(pk=paper.pk).update(title="A $<script>x</script>$ <b>bold</b> claim")
    body = client.get(paper.get_absolute_url()).content.decode()
    assert "<script>x" not in body and "<b>bold" not in body
    assert "&lt;b&gt;bold&lt;/b&gt;" in body
