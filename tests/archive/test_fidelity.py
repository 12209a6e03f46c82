"""Data fidelity on the real dumps (../shared/realdata): nothing merged, lost or shown
wrongly. Each test imports the real file that shows the defect it guards against."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.text import slugify

from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    Task,
    ranked_rows,
)
from tests.archive_helpers import run_import, write
from tests.conftest import realdata

pytestmark = [pytest.mark.realdata, pytest.mark.django_db]

DATAFINDER = "viswavi__datafinder/data/dataset_search_collection.jsonl"
TASKS = "paperswithcode__sota-extractor/data/tasks"
ONEPHA = "1pha__BayesianActiveLearning/converted/test_dataset.jsonl"
METHODS_2022 = "mariaayuso__topic-modeling-on-software/methods.json.gz"
METHODS_2023 = "kuefmz__define_taxonomy/data/legacy/papers_with_code_taxonomy.json"
METHODS_2025 = "kuefmz__pow_categories/data/pwc/methods.json"
API = "codingpot__paperswithcode-go/dummy"


def imported(*paths, **options) -> str:
    status, out, err = run_import(*paths, **options)
    assert status == 0, err
    return out


def board(task_slug: str, dataset_name: str) -> Leaderboard:
    return Leaderboard.objects.get(task__slug=task_slug, dataset__name=dataset_name)


def ranked(lb: Leaderboard) -> list:
    return ranked_rows(list(lb.metrics.all()), list(lb.rows.all()))


# --- identity: nothing merged, nothing lost ----------------------------------------------


def test_datasets_known_only_by_name_are_never_merged(client):
    path = realdata(DATAFINDER)
    records = [json.loads(line) for line in path.read_text().split("\n") if line]
    imported(path)
    names = {" ".join(r["id"].split()) for r in records}  # runs of spaces read as one
    stored = set(Dataset.objects.values_list("name", flat=True))
    assert names - stored == set()  # every distinct name has its own dataset
    assert Dataset.objects.count() == len(names)
    for name in ("FaceForensics++", "TVQA+", "A*3D", "DailyDialog++", "JHU-CROWD++", "BiRD"):
        assert Dataset.objects.filter(name=name).exists(), name
    assert {"TWEETQA", "TweetQA"} <= stored
    tvqa, tvqa_plus = Dataset.objects.get(name="TVQA"), Dataset.objects.get(name="TVQA+")
    assert (tvqa.slug, tvqa_plus.slug) == ("tvqa", "tvqa-plus")
    assert Dataset.objects.get(name="A*3D").slug == "a-star-3d"
    # A clash of names that slug alike takes a numbered slug.
    assert {Dataset.objects.get(name=n).slug for n in ("BIRD", "BiRD")} == {"bird", "bird-2"}
    page = client.get("/dataset/tvqa").content.decode()
    assert "<h1>TVQA</h1>" in page.replace(" <span", "<span") or ">TVQA<" in page
    assert "TVQA+" not in page.split("<h1")[1].split("</h1>")[0]
    assert "January 2018" in page  # TVQA's own date, not TVQA+'s (none)


def test_a_dataset_record_given_again_by_name_updates_it_and_slugs_are_stable(tmp_path):
    path = realdata(DATAFINDER)
    imported(path)
    slugs = dict(Dataset.objects.values_list("name", "slug"))
    # Same name again: the same dataset, updated.
    again = write(
        tmp_path / "again.jsonl",
        [{"id": "TVQA+", "contents": "TVQA+ adds spatial grounding.", "variants": ["TVQA+"]}],
        "jsonl",
    )
    out = imported(again)
    assert "Dataset" in out
    assert Dataset.objects.get(name="TVQA+").description == "TVQA+ adds spatial grounding."
    assert Dataset.objects.filter(name="TVQA+").count() == 1
    # The whole file again, after: every name keeps its slug, nothing changes.
    out = imported(path)
    assert dict(Dataset.objects.values_list("name", "slug")) == slugs


def test_sibling_subdatasets_with_one_name_are_separate_boards():
    imported(realdata(f"{TASKS}/nlpprogress.json"))
    parent = board("sql-parsing", "Smaller Datasets")
    subs = list(parent.subleaderboards.order_by("position"))
    assert len(subs) == 4
    assert sum(lb.rows.count() for lb in subs) == 12
    # Each keeps its own values (Restaurants, Academic, Yelp, IMDB in the source).
    seq2seq = [
        lb.rows.get(model_name="Seq2Seq with copying").metrics["Question Split"] for lb in subs
    ]
    assert seq2seq == ["100", "81", "12", "26"]
    assert [lb.dataset.name for lb in subs] == [
        "Smaller Datasets (Example)",
        "Smaller Datasets (Example) #2",
        "Smaller Datasets (Example) #3",
        "Smaller Datasets (Example) #4",
    ]


def test_subtasks_named_alike_under_different_parents_are_different_tasks():
    imported(realdata(f"{TASKS}/nlpprogress.json"))
    linking = Task.objects.get(slug="entity-linking").subtasks.get(name="Task")
    relation = Task.objects.get(slug="relation-prediction").subtasks.get(name="Task")
    assert linking != relation
    assert linking.description.startswith("Entity Linking (EL) is the task")
    assert relation.description.startswith("Relation Prediction is the task")
    assert relation.slug == "relation-prediction-task"
    # "Sentiment analysis" under "Domain adaptation" holds other boards than the top-level
    # task of that name: two tasks.
    top = Task.objects.get(slug="sentiment-analysis")
    nested = Task.objects.get(slug="domain-adaptation").subtasks.get(name="Sentiment analysis")
    assert nested != top
    assert list(nested.leaderboards.values_list("dataset__name", flat=True)) == [
        "Multi-Domain Sentiment Dataset"
    ]
    # Importing the same file again finds every node where it was.
    tasks = dict(Task.objects.values_list("slug", "name"))
    out = imported(realdata(f"{TASKS}/nlpprogress.json"))
    assert dict(Task.objects.values_list("slug", "name")) == tasks
    assert "Nothing changed" in out


def test_papers_without_a_paper_url_are_keyed_by_their_arxiv_id(tmp_path, client):
    path = realdata(ONEPHA)
    records = [json.loads(line) for line in path.read_text().split("\n") if line]
    out = imported(path)
    assert "rejected" in out and Paper.objects.count() == len(records) == 2625
    first = records[0]
    paper = Paper.objects.get(arxiv_id=first["arxiv_id"])
    assert paper.title == first["title"] and paper.slug == f"arxiv-{first['arxiv_id']}"
    assert client.get(paper.get_absolute_url()).status_code == 200
    # A later record with a paper URL and the same arXiv id is the same paper: it takes
    # the slug, and the old address leads to it.
    later = write(
        tmp_path / "papers.json",
        [{"paper_url": "https://paperswithcode.com/paper/a-quantile-based-approach-for",
          "arxiv_id": first["arxiv_id"], "title": first["title"], "abstract": "",
          "authors": ["David Salinas"], "date": "2019-09-30"}],
    )  # fmt: skip
    imported(later)
    assert Paper.objects.count() == 2625
    paper.refresh_from_db()
    assert paper.slug == "a-quantile-based-approach-for"
    assert paper.abstract == first["abstract"]  # kept from the first record
    response = client.get(f"/paper/arxiv-{first['arxiv_id']}")
    assert response.status_code == 301 and response["Location"] == paper.get_absolute_url()
    # And the crawled record again updates that paper, not a new one.
    imported(path)
    assert Paper.objects.count() == 2625


def test_a_paper_with_neither_url_nor_arxiv_id_is_the_only_reject(tmp_path):
    path = write(
        tmp_path / "papers.jsonl",
        [
            {"title": "From url_abs", "url_abs": "https://arxiv.org/abs/2101.00001v2"},
            {"title": "Nothing to key it by", "abstract": "x"},
        ],
        "jsonl",
    )
    status, _, err = run_import(path)
    assert status == 1
    assert "record 2 (line 2): field paper_url: missing, and no arxiv_id" in err
    assert Paper.objects.get().arxiv_id == "2101.00001"


# --- values shown right ------------------------------------------------------------------


def test_placeholder_years_stay_unknown_however_records_arrive(client):
    imported(realdata(METHODS_2022), realdata(f"{API}/paper_method_list_response.json"))
    gan = Method.objects.get(slug="gan")
    assert gan.introduced_year == 2000 and gan.year_uncertain  # the API record said nothing
    page = client.get("/method/gan").content.decode()
    assert "(2000)" not in page and "2000" not in page.split("<h2")[0]
    # Real early years are real.
    for slug, year in (("sgd", 1951), ("lstm", 1997), ("convolution", 1980)):
        method = Method.objects.get(slug=slug)
        assert not method.year_uncertain and method.shown_year == year
        assert str(year) in client.get(f"/method/{slug}").content.decode()


def test_a_dataset_date_stays_flagged_when_a_later_record_gives_none(tmp_path):
    first = write(tmp_path / "a.json", [{"url": "/dataset/old", "name": "Old",
                                          "introduced_date": "1850-01-01"}])  # fmt: skip
    later = write(tmp_path / "b.json", [{"url": "/dataset/old", "name": "Old",
                                          "description": "An old dataset."}])  # fmt: skip
    imported(first, kind="datasets")
    imported(later, kind="datasets")
    dataset = Dataset.objects.get(slug="old")
    assert dataset.date_uncertain and str(dataset.introduced_date) == "1850-01-01"


def test_only_plain_junk_is_hidden_and_the_summary_counts_it(tmp_path, client):
    out = imported(realdata(METHODS_2025))
    hidden = set(Method.objects.filter(hidden=True).values_list("name", flat=True))
    assert hidden == {"dhf"}
    for name in ("NTK", "3D CNN", "XLM-R", "VGG-16", "VGG-19"):
        assert not Method.objects.get(name=name).hidden, name
    method_line = next(line for line in out.splitlines() if line.startswith("Method "))
    header = next(line for line in out.splitlines() if line.startswith("model "))
    column = header.split().index("hidden") - 1  # "left alone" is two words
    assert method_line.split()[column] == "1"
    assert client.get("/method/ntk").status_code == 200
    amr = write(tmp_path / "d.json", [{"url": "/dataset/amr-3-0", "name": "AMR 3.0",
                                        "description": "AMR"}])  # fmt: skip
    imported(amr, kind="datasets")
    assert not Dataset.objects.get(name="AMR 3.0").hidden


def test_lower_is_better_boards_rank_the_best_first(client):
    imported(realdata(f"{TASKS}/eff.json"), realdata(f"{TASKS}/nlpprogress.json"))
    hutter = board(
        "language-modelling", "Hutter Prize (bits per character to encode English text)"
    )
    assert hutter.metrics.get().is_lower_better  # "Model Entropy"
    rows = ranked(hutter)
    values = [r.metric_values["Model Entropy"] for r in rows]
    assert values == sorted(values) and rows[0].rank == 1
    # Event2Mind's "Dev"/"Test" say nothing; its description says lower is better.
    event2mind = board("common-sense", "Event2Mind")
    assert [m.is_lower_better for m in event2mind.metrics.all()] == [True, True]
    assert ranked(event2mind)[0].model_name == "BiRNN 100d"
    page = client.get("/task/language-modelling").content.decode()
    assert "lower is better" in page


@pytest.mark.parametrize(
    ("name", "lower"),
    [
        ("Model Entropy", True),
        ("Bit per Character (BPC)", True),
        ("bits/dim", True),
        ("Test perplexity", True),
        ("cross-entropy", True),
        ("Percentage error", True),
        ("Top-1 Error Rate", True),
        ("WER", True),
        ("FID", True),
        ("Number of params", True),
        ("GFLOPs", True),
        ("Inference latency (ms)", True),
        ("MAE", True),
        ("RMSE", True),
        ("Rank-1", False),  # re-identification accuracy
        ("Accuracy per class", False),
        ("F1", False),
        ("BLEU", False),
    ],
)
def test_metric_direction_is_inferred_from_whole_words(name, lower):
    assert LeaderboardMetric(name=name).is_lower_better is lower


def test_staff_direction_beats_the_description_which_beats_the_name():
    metric = LeaderboardMetric(name="Dev", stated_lower_is_better=True, lower_is_better=False)
    assert (metric.is_lower_better, metric.direction_source) == (False, "staff")
    metric = LeaderboardMetric(name="Accuracy", stated_lower_is_better=True)
    assert (metric.is_lower_better, metric.direction_source) == (True, "description")
    metric = LeaderboardMetric(name="Error")
    assert (metric.is_lower_better, metric.direction_source) == (True, "name")
    metric = LeaderboardMetric(name="Dev")
    assert (metric.is_lower_better, metric.direction_source) == (False, "default")


def test_values_wrapped_in_a_bom_or_emphasis_are_ranked_and_shown_as_given(client):
    imported(realdata(f"{TASKS}/nlpprogress.json"))
    penn = board("constituency-parsing", "Penn Treebank")
    row = penn.rows.get(model_name="RNN Grammar")
    assert row.metrics["F1 score"] == "\ufeff93.3"
    assert row.metric_values["F1 score"] == 93.3
    assert next(r for r in ranked(penn) if r.pk == row.pk).rank is not None
    wsd = Leaderboard.objects.get(
        task__slug="word-sense-disambiguation", dataset__name="Knowledge-based:"
    )
    babelfy = wsd.rows.get(model_name="Babelfy")
    assert babelfy.metrics["SemEval 2015"] == "**70.3**"
    assert babelfy.metric_values["SemEval 2015"] == 70.3


def test_reimporting_a_board_replaces_its_rows():
    imported(realdata(f"{TASKS}/nlp-progress.json"))
    edited = board("common-sense", "Event2Mind").rows.first()
    edited.model_name = "Corrected by staff"
    edited.edited_in_admin = True
    edited.save()
    out = imported(realdata(f"{TASKS}/nlpprogress.json"))
    assert "deleted" in out
    event2mind = board("common-sense", "Event2Mind")
    names = set(event2mind.rows.values_list("model_name", flat=True))
    assert names == {"BiRNN 100d", "ConvNet", "Corrected by staff"}  # staff's row stays
    general = Leaderboard.objects.get(
        task__slug="hypernym-discovery", dataset__name="SemEval 2018 (General)"
    )
    assert general.rows.count() == 8


def test_a_board_missing_from_a_later_file_is_left_alone(tmp_path):
    imported(realdata(f"{TASKS}/nlpprogress.json"))
    before = LeaderboardRow.objects.count()
    sentiment = Leaderboard.objects.filter(task__slug="sentiment-analysis").count()
    only = write(
        tmp_path / "one.json",
        [{"task": "Common sense", "datasets": [{"dataset": "Event2Mind", "sota": {
            "metrics": ["Dev"], "rows": [{"model_name": "New", "metrics": {"Dev": "1.0"}}]}}]}],
    )  # fmt: skip
    imported(only, kind="evaluation-tables")
    assert board("common-sense", "Event2Mind").rows.count() == 1
    assert LeaderboardRow.objects.count() == before - 1
    assert Leaderboard.objects.filter(task__slug="sentiment-analysis").count() == sentiment


def test_a_task_lists_its_boards_in_source_order_with_subdatasets_after_their_parent(
    tmp_path, client
):
    path = realdata(f"{TASKS}/nlpprogress.json")
    source = json.loads(path.read_text())
    imported(path)
    sentiment = next(t for t in source if t["task"] == "Sentiment analysis")
    expected = []
    for ds in sentiment["datasets"]:
        expected.append(ds["dataset"])
        expected += [f"{ds['dataset']} ({s['subdataset']})" for s in ds.get("subdatasets") or []]
    assert expected[:2] == ["IMDb", "SST"] and expected[2].startswith("SST (Fine-grained")
    task = Task.objects.get(slug="sentiment-analysis")
    order = list(task.leaderboards.order_by("position").values_list("dataset__name", flat=True))
    assert order == expected
    page = client.get("/task/sentiment-analysis").content.decode()
    positions = [page.index(f">{name}</a></th>") for name in expected]
    assert positions == sorted(positions)
    # The order survives an export and a re-import.
    out = tmp_path / "tables.json"
    call_command("export_archive", kind="evaluation-tables", output=str(out), verbosity=0)
    Task.objects.all().delete()
    Dataset.objects.all().delete()
    imported(out)
    task = Task.objects.get(slug="sentiment-analysis")
    order = list(task.leaderboards.order_by("position").values_list("dataset__name", flat=True))
    assert order == expected


def test_a_methods_collections_keep_their_order(tmp_path):
    record = {"url": "https://paperswithcode.com/method/x", "name": "X", "collections": [
        {"collection": "Zeta Modules", "area": "General"},
        {"collection": "Alpha Modules", "area": "General"},
    ]}  # fmt: skip
    imported(write(tmp_path / "m.json", [record]), kind="methods")
    method = Method.objects.get(slug="x")
    assert [c.name for c in method.collections.order_by("methodcollection__position")] == [
        "Zeta Modules",
        "Alpha Modules",
    ]
    out = tmp_path / "methods.json"
    call_command("export_archive", kind="methods", output=str(out), verbosity=0)
    exported = json.loads(out.read_text())
    assert [c["collection"] for c in exported[0]["collections"]] == [
        "Zeta Modules",
        "Alpha Modules",
    ]


# --- nothing dropped that the dumps carry ------------------------------------------------


def test_method_source_snippet_and_paper_counts_are_shown(client):
    imported(realdata(METHODS_2025))
    page = client.get("/method/gan").content.decode()
    assert 'href="https://arxiv.org/abs/1406.2661v1"' in page  # source_url
    assert "github.com/eriklindernoren/PyTorch-GAN" in page  # code_snippet_url
    gan = Method.objects.get(slug="gan")
    assert f"{gan.num_papers:,} papers" in page


def test_a_datasets_variants_introducing_paper_and_year_are_shown(client):
    imported(realdata(DATAFINDER))
    aishell = Dataset.objects.get(name="AISHELL-2")
    assert aishell.paper_year == 2018
    page = client.get(aishell.get_absolute_url()).content.decode()
    assert "AISHELL-2: Transforming Mandarin ASR Research Into Industrial Scale" in page
    assert "(2018)" in page
    mumu = Dataset.objects.get(name="MuMu")
    assert mumu.variants == ["MuMu"]
    assert "Variants: MuMu" in client.get(mumu.get_absolute_url()).content.decode()


def test_task_source_links_keep_their_titles(client):
    imported(realdata(f"{TASKS}/chexpert.json"))
    task = Task.objects.get(name="Multi-Label Classification")
    assert task.source_link_title == "CheXpert Leaderboard"
    assert task.source_link == "https://stanfordmlgroup.github.io/competitions/chexpert/"
    page = client.get(task.get_absolute_url()).content.decode()
    assert ">CheXpert Leaderboard</a>" in page


def test_categories_row_dates_code_links_and_board_links_are_shown(tmp_path, client):
    """The real dump's excerpt: a task with its categories and a board whose rows carry
    dates and code links."""
    excerpt = json.loads(
        realdata(
            "IllDepence__contextgraph/evaluation-tables_excerpt_from_notebook_output.json"
        ).read_text()
    )
    task = excerpt["task_0"] | {
        "datasets": [excerpt["task_0.datasets[0]"]],
        "subtasks": excerpt["task_0.subtasks[0].subtasks"],
    }
    imported(write(tmp_path / "tables.json", [task]), kind="evaluation-tables")
    ocr = Task.objects.get(name="Optical Character Recognition")
    assert ocr.categories == ["Methodology", "Natural Language Processing", "Computer Vision"]
    page = client.get(ocr.get_absolute_url()).content.decode()
    for area in ocr.categories:  # each category leads to its area
        assert f'href="/area/{slugify(area)}">{area}</a>' in page
    board = client.get(ocr.leaderboards.get().get_absolute_url()).content.decode()
    assert "2018-02-15" in board  # the row's paper_date
    assert 'href="https://github.com/untrix/im2latex"' in board  # its code link
    assert "optical-character-recognition-on-i2l-140k" in board  # the board's own link
    row = LeaderboardRow.objects.get(model_name="I2L-NOPOOL")
    assert row.code_links == [
        {"url": "https://github.com/untrix/im2latex", "title": "untrix/im2latex"}
    ]


def test_a_methods_introducing_paper_is_named_in_the_api_even_when_not_imported(tmp_path, client):
    imported(realdata(METHODS_2025))
    data = client.get(reverse("api:method", args=["nystromformer"])).json()
    assert data["paper"] == "nystromformer-a-nystrom-based-algorithm-for"
    # An API-shaped method record keeps the dump's full paper URL.
    imported(realdata(f"{API}/paper_method_list_response.json"), kind="methods")
    assert Method.objects.get(slug="gan").paper_url == (
        "https://paperswithcode.com/paper/generative-adversarial-networks"
    )


def test_conference_links_are_kept_exported_and_shown(tmp_path, client):
    page = json.loads(realdata(f"{API}/paper_get_response.json").read_text())
    page = copy.deepcopy(page) | {
        "conference_url_abs": "https://proceedings.example.org/gan.html",
        "conference_url_pdf": "https://proceedings.example.org/gan.pdf",
    }
    imported(write(tmp_path / "p.json", [page]), kind="papers")
    paper = Paper.objects.get(slug="generative-adversarial-networks")
    assert paper.conference_url_pdf == "https://proceedings.example.org/gan.pdf"
    html = client.get(paper.get_absolute_url()).content.decode()
    assert 'href="https://proceedings.example.org/gan.html"' in html
    data = client.get(reverse("api:paper", args=[paper.slug])).json()
    assert data["conference_url_abs"] == "https://proceedings.example.org/gan.html"
