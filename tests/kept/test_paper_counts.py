"""One definition per count of papers, labelled wherever two are shown: "papers here" (the
papers this site holds that use a method, a dataset or a task) and "papers in the
archive's dump" (the count the methods and datasets dumps give, `num_papers`)."""

from __future__ import annotations

import re

import pytest

from papers.kept import refresh_all as refresh_browse_counts
from papers.models import Method, Paper, PaperMethod, PaperTask, Task
from tests.archive_helpers import run_import, write
from tests.conftest import realdata

pytestmark = pytest.mark.django_db

METHODS_2025 = "kuefmz__pow_categories/data/pwc/methods.json"


@pytest.fixture
def methods_only():
    """The real 2025 methods dump imported alone: no paper of the archive is here."""
    status, _, err = run_import(realdata(METHODS_2025))
    assert status == 0, err
    softmax = Method.objects.get(slug="softmax")
    assert softmax.num_papers == 25634 and softmax.paper_count == 0
    return softmax


def _row(body: str, name: str) -> str:
    row = body[body.index(f">{name}</a>") :]
    return row[: row.index("</tr>")]


def test_the_methods_index_shows_the_dumps_count_beside_the_papers_here(client, methods_only):
    body = client.get("/methods", {"q": "softmax"}).content.decode()
    assert "Papers here</th>" in body and "Papers in the archive's dump</th>" in body
    cells = re.findall(r'<td class="num">([^<]*)</td>', _row(body, "Softmax"))
    assert cells == ["0", "25,634"]


def test_a_method_page_labels_its_two_paper_counts(client, methods_only, tmp_path):
    papers = [
        {
            "paper_url": f"https://paperswithcode.com/paper/attention-{i}",
            "title": f"Attention {i}",
            "abstract": "",
            "date": "2021-01-01",
            "methods": [{"name": "Softmax", "full_name": "Softmax"}],
        }
        for i in range(3)
    ]
    assert run_import(write(tmp_path / "papers.json", papers))[0] == 0
    body = client.get("/method/softmax").content.decode()
    counts = re.search(r'<p class="meta paper-counts">(.*?)</p>', body, re.DOTALL)[1]
    counts = re.sub(r"<[^>]+>", "", counts)
    assert "3 papers here" in counts
    assert "25,634 papers in the archive's dump" in counts
    # Every other count of papers on the page is the papers here.
    assert "1\u20133 of 3 papers" in body and "3 papers: none with code" in body
    assert "in the archive's count" not in body


def test_the_datasets_index_and_page_label_the_dumps_count(client, tmp_path):
    record = {
        "url": "https://paperswithcode.com/dataset/imagenet",
        "name": "ImageNet",
        "full_name": "ImageNet",
        "description": "Images.",
        "num_papers": 13321,
    }
    assert run_import(write(tmp_path / "datasets.json", [record]))[0] == 0
    index = client.get("/datasets").content.decode()
    cells = re.findall(r'<td class="num">([^<]*)</td>', _row(index, "ImageNet"))
    assert cells[:2] == ["0", "13,321"]
    page = client.get("/dataset/imagenet").content.decode()
    assert "13,321 papers in the archive's dump" in page
    assert "0 papers here" in page


def test_a_task_page_says_its_list_counts_papers_with_code(client, make_paper):
    with_code = make_paper()
    task = Task.objects.get(paper_links__paper=with_code)
    for i in range(2):  # two more papers on the task, without code
        paper = Paper.objects.create(slug=f"no-code-{i}", title=f"No code {i}")
        PaperTask.objects.create(paper=paper, task=task)
    refresh_browse_counts()
    body = client.get(task.get_absolute_url()).content.decode()
    assert "3 papers here" in body
    assert "1\u20131 of 1 paper with code" in body


def test_a_method_without_a_dump_count_shows_only_the_papers_here(client, make_paper):
    paper = make_paper()
    refresh_browse_counts()
    method = Method.objects.get(paper_links__paper=paper)
    assert method.num_papers is None
    body = client.get(method.get_absolute_url()).content.decode()
    assert "1 paper here" in body and "archive's dump" not in body
    assert PaperMethod.objects.filter(method=method).count() == 1
