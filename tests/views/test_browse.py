"""The browse pages: /sota and areas, the task, dataset and method indexes and pages, and
leaderboards at /sota/<task>-on-<dataset>, as a reader sees them."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.kept import refresh_all as refresh_browse_counts
from papers.kept.papers import refresh_counts
from papers.models import (
    Author,
    CodeLink,
    Collection,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    PaperAuthor,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Repository,
    Task,
    TaskEdge,
)

pytestmark = pytest.mark.django_db


def _paper(slug: str, published: str | None = "2020-01-01", **fields) -> Paper:
    return Paper.objects.create(
        slug=slug, title=fields.pop("title", slug.title()), published=published, **fields
    )


class World:
    """A small state of the art: an area with a task (which has a subtask), two datasets
    (one a board whose task and dataset slugs both hold "-on-"), metrics in both
    directions, dated and undated rows, a method in a collection."""

    def __init__(self):
        self.task = Task.objects.create(
            slug="image-classification",
            name="Image Classification",
            categories=["Computer Vision"],
            description="**Image classification** assigns a label; see "
            "[ResNet](https://paperswithcode.com/method/resnet) and "
            "[Gone](https://paperswithcode.com/method/gone). Loss $\\mathcal{L}\\_{ce}$.",
        )
        self.subtask = Task.objects.create(
            slug="fine-grained", name="Fine-Grained Classification", categories=["Computer Vision"]
        )
        TaskEdge.objects.create(parent=self.task, child=self.subtask)
        self.other = Task.objects.create(
            slug="speech-on-device", name="Speech on Device", categories=["Speech"]
        )
        self.imagenet = Dataset.objects.create(
            slug="imagenet", name="ImageNet", description="1.2M images, 10<sup>3</sup> classes."
        )
        self.libri = Dataset.objects.create(slug="libri-on-air", name="Libri on Air")
        self.method = Method.objects.create(slug="resnet", name="ResNet", description="Residual.")
        collection = Collection.objects.create(slug="cnns", name="CNNs", area="Computer Vision")
        self.method.collections.add(collection)
        self.board = Leaderboard.objects.create(task=self.task, dataset=self.imagenet)
        LeaderboardMetric.objects.create(leaderboard=self.board, name="Top-1 Accuracy", position=0)
        LeaderboardMetric.objects.create(leaderboard=self.board, name="Params", position=1)
        self.speech = Leaderboard.objects.create(task=self.other, dataset=self.libri)
        LeaderboardMetric.objects.create(leaderboard=self.speech, name="WER", position=0)
        self.papers = []
        self.repository = Repository.objects.create(url="https://github.com/lab/resnet")
        self.author = Author.objects.create(slug="kaiming-he", name="Kaiming He")
        self.rows = 0
        self.add_results(3)

    def add_results(self, n: int) -> None:
        """n more papers, each with a row on both boards, links to the task, dataset and
        method, the author and the repository."""
        for _ in range(n):
            i = self.rows
            self.rows += 1
            paper = _paper(f"paper-{i}", published=f"{2015 + i % 8}-03-01", abstract="Short.")
            self.papers.append(paper)
            PaperTask.objects.create(paper=paper, task=self.task)
            PaperDataset.objects.create(paper=paper, dataset=self.imagenet)
            PaperMethod.objects.create(paper=paper, method=self.method)
            PaperAuthor.objects.create(paper=paper, author=self.author, position=0)
            CodeLink.objects.create(paper=paper, repository=self.repository)
            LeaderboardRow.objects.create(
                leaderboard=self.board,
                row_key=f"r{i}",
                position=i,
                model_name=f"Net-{i}",
                paper=paper,
                paper_date=f"{2015 + i % 8}-03-01",
                metrics={"Top-1 Accuracy": 70.0 + i, "Params": f"{100 - i}M"},
                code_links=[{"title": "code", "url": f"https://github.com/lab/net{i}"}],
            )
            LeaderboardRow.objects.create(
                leaderboard=self.speech,
                row_key=f"s{i}",
                position=i,
                model_name=f"Speech-{i}",
                paper=paper,
                paper_date="",
                metrics={"WER": 10.0 - i * 0.1},
            )
        refresh_counts(Paper.objects.values_list("id", flat=True))
        refresh_browse_counts()


@pytest.fixture
def world():
    return World()


NEW_PAGES = [
    "/sota",
    "/sota?q=image",
    "/area/computer-vision",
    "/tasks",
    "/tasks?sort=benchmarks",
    "/datasets?sort=papers",
    "/methods",
    "/methods?collection=cnns",
    "/task/image-classification",
    "/dataset/imagenet",
    "/method/resnet",
    "/sota/image-classification-on-imagenet",
    "/sota/image-classification-on-imagenet?metric=params",
    "/sota/speech-on-device-on-libri-on-air",
    "/author/kaiming-he",
    "/repo/github.com/lab/resnet",
    "/paper/paper-0",
]


@pytest.mark.parametrize("url", NEW_PAGES)
def test_browse_pages_answer_with_one_h1_and_the_licence(client, world, url):
    response = client.get(url)
    assert response.status_code == 200, url
    body = response.content.decode()
    assert len(re.findall(r"<h1[ >]", body)) == 1
    assert "CC BY-SA 4.0" in body and "not affiliated with" in body


@pytest.mark.parametrize("url", NEW_PAGES)
def test_browse_pages_run_the_same_queries_however_much_data(client, world, url):
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    world.add_results(30)  # past a page of papers, and more rows on every board
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).status_code == 200
    assert len(few) > 0
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


@pytest.mark.parametrize(
    "url",
    [
        "/sota?page=x",
        "/tasks?sort=stars",
        "/tasks?per_page=7",
        "/methods?q=" + "x" * 300,
        "/task/image-classification?page=0",
        "/sota/image-classification-on-imagenet?metric=nope",
    ],
)
def test_bad_parameters_are_a_400_page(client, world, url):
    assert client.get(url).status_code == 400


def test_unknown_boards_areas_and_collections_are_404(client, world):
    for url in [
        "/sota/image-classification-on-mnist",
        "/sota/no-separator",
        "/area/astrology",
        "/methods?collection=nope",
    ]:
        assert client.get(url).status_code == 404, url


# --- /sota -------------------------------------------------------------------------------------


def test_sota_lists_areas_with_their_tasks_benchmarks_and_papers(client, world):
    body = client.get("/sota").content.decode()
    vision = body.index('id="area-computer-vision"')
    speech = body.index('id="area-speech"')
    assert vision < speech  # areas by name
    assert '<a href="/task/image-classification">Image Classification</a>' in body
    assert "1 benchmark · 3 papers" in body


def test_sota_filter_narrows_tasks_as_page_and_as_htmx_fragment(client, world):
    page = client.get("/sota", {"q": "speech"}).content.decode()
    assert "Speech on Device" in page and "Image Classification" not in page
    assert 'value="speech"' in page  # the box keeps what was typed
    fragment = client.get("/sota", {"q": "FINE"}, headers={"HX-Request": "true"})
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="areas"') and "<html" not in body
    assert "Fine-Grained Classification" in body and "Speech on Device" not in body
    assert "No task matches" in client.get("/sota", {"q": "zzz"}).content.decode()


def test_a_task_filed_twice_under_one_area_is_listed_once(client, world):
    Task.objects.filter(slug="speech-on-device").update(categories=["Speech", "speech"])
    body = client.get("/area/speech").content.decode()
    assert body.count(">Speech on Device</a>") == 1


def test_areas_whose_names_make_no_slug_fall_under_other(client, world):
    Task.objects.filter(slug="fine-grained").update(categories=["日本語", 3])
    assert client.get("/task/fine-grained").status_code == 200
    body = client.get("/sota").content.decode()
    other = body[body.index('id="area-other"') :]
    assert "Fine-Grained Classification" in other


def test_area_page_lists_every_task_of_the_area(client, world):
    body = client.get("/area/computer-vision").content.decode()
    assert "Image Classification" in body and "Fine-Grained Classification" in body
    assert "Speech on Device" not in body


def test_sota_counts_every_task_of_an_area_and_previews_a_dozen(client, world):
    for i in range(14):
        Task.objects.create(
            slug=f"grasp-{i:02}",
            name=f"Grasp {i:02}",
            categories=["Robotics", "robotics"],  # one area, however its names are spelt
            benchmark_count=2,
            paper_count=14 - i,
            # Only the last one, past the preview, counts papers with a report.
            code_paper_count=1 if i == 13 else 0,
            report_paper_count=1 if i == 13 else 0,
        )
    body = client.get("/sota").content.decode()
    robotics = body[body.index('id="area-robotics"') :]
    robotics = robotics[: robotics.index("</section>")]
    assert "14 tasks · 28 benchmarks" in robotics
    assert re.findall(r"Grasp \d\d", robotics) == [f"Grasp {i:02}" for i in range(12)]
    assert "All 14 tasks in Robotics" in robotics
    assert '<p class="claim">' in body  # the reported task is counted, though not shown
    area = client.get("/area/robotics").content.decode()
    assert "14 tasks · 28 benchmarks" in area
    assert re.findall(r"Grasp \d\d", area) == [f"Grasp {i:02}" for i in range(14)]


# --- index pages -------------------------------------------------------------------------------


def test_task_index_sorts_by_name_papers_and_benchmarks_and_searches(client, world):
    by_name = client.get("/tasks").content.decode()
    assert by_name.index("Fine-Grained") < by_name.index("Image Classification")
    by_benchmarks = client.get("/tasks", {"sort": "benchmarks"}).content.decode()
    assert by_benchmarks.index("Image Classification") < by_benchmarks.index("Fine-Grained")
    by_papers = client.get("/tasks", {"sort": "papers"}).content.decode()
    assert by_papers.index("Image Classification") < by_papers.index("Speech on Device")
    found = client.get("/tasks", {"q": "speech"}).content.decode()
    assert "1\u20131 of 1" in found and "Image Classification" not in found


def test_index_pages_are_paged_with_counts(client, world):
    for i in range(60):
        Dataset.objects.create(slug=f"set-{i:02d}", name=f"Set {i:02d}")
    first = client.get("/datasets").content.decode()
    assert "1\u201350 of 62" in first and 'rel="next"' in first
    second = client.get("/datasets", {"page": 2}).content.decode()
    assert "51\u201362 of 62" in second and "Set 59" in second and "Set 00" not in second


def test_methods_index_groups_methods_by_collection(client, world):
    Method.objects.create(slug="adam", name="Adam")
    body = client.get("/methods").content.decode()
    assert 'href="/methods/category/cnns">CNNs</a>' in body
    chosen = client.get("/methods", {"collection": "cnns"}).content.decode()
    assert "ResNet" in chosen and ">Adam<" not in chosen


# --- the task page -----------------------------------------------------------------------------


def test_task_page_shows_benchmarks_not_whole_boards(client, world):
    body = client.get("/task/image-classification").content.decode()
    table = body[body.index('class="benchmarks"') :]
    assert '<a href="/sota/image-classification-on-imagenet">ImageNet</a>' in table
    assert "Net-2" in table and "Net-0" not in table  # only the best row
    assert "72</span>" in table and "higher is better" in table
    assert 'href="https://github.com/lab/net2"' in table
    assert "Fine-Grained Classification" in body  # the subtask tree


def test_task_page_lists_its_papers_with_code_paged_with_a_search_link(client, world):
    world.add_results(22)
    body = client.get("/task/image-classification").content.decode()
    assert "1\u201320 of 25 papers" in body
    assert 'href="/search?task=image-classification&amp;has_code=1"' in body
    assert body.count('class="meta"') > 0 and 'href="?page=2"' in body
    fifty = client.get("/task/image-classification", {"per_page": 50}).content.decode()
    assert "1\u201325 of 25 papers" in fifty
    second = client.get("/task/image-classification", {"page": 2}).content.decode()
    assert "21\u201325 of 25 papers" in second


def test_descriptions_render_markdown_math_and_link_our_pages(client, world):
    body = client.get("/task/image-classification").content.decode()
    assert "<strong>Image classification</strong>" in body and "**" not in body
    assert '<a href="/method/resnet">ResNet</a>' in body  # we have it
    # We do not have it, and paperswithcode.com is gone: the title, and its archived copy.
    assert "Gone <span" in body and 'href="https://paperswithcode.com/' not in body
    archived = "https://web.archive.org/web/20250728/https://paperswithcode.com/method/gone"
    assert f'href="{archived}"' in body
    assert "<math" in body and "\\mathcal" not in body
    dataset = client.get("/dataset/imagenet").content.decode()
    assert "10<sup>3</sup>" in dataset


# --- the leaderboard page ----------------------------------------------------------------------


def _ranked_models(body: str) -> list[str]:
    table = body[body.index('class="leaderboard-table"') :]
    return re.findall(r"<td[^>]*>((?:Net|Speech)-\d+)</td>", table)


def test_leaderboard_ranks_every_row_by_the_chosen_metric(client, world):
    body = client.get("/sota/image-classification-on-imagenet").content.decode()
    assert _ranked_models(body) == ["Net-2", "Net-1", "Net-0"]  # accuracy: higher first
    assert 'href="/paper/paper-2"' in body and "2017-03-01" in body
    by_params = client.get("/sota/image-classification-on-imagenet", {"metric": "params"})
    assert _ranked_models(by_params.content.decode()) == ["Net-2", "Net-1", "Net-0"]
    fragment = client.get(
        "/sota/image-classification-on-imagenet",
        {"metric": "params"},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert fragment.lstrip().startswith('<div id="board">') and "<html" not in fragment
    assert "lower is better" in fragment


def test_metric_names_with_json_path_characters_rank_too(client, world):
    metric = LeaderboardMetric.objects.get(leaderboard=world.speech, name="WER")
    odd = 'WER "dev" \\ __[0]'  # lower is better, as WER
    metric.name = odd
    metric.save()
    for row in LeaderboardRow.objects.filter(leaderboard=world.speech):
        row.metrics = {odd: row.metrics["WER"]}
        row.save()
    body = client.get("/sota/speech-on-device-on-libri-on-air").content.decode()
    assert _ranked_models(body)[0] == "Speech-2"
    task = client.get("/task/speech-on-device").content.decode()
    assert "Speech-2" in task


def test_leaderboard_shows_rows_from_papers_not_in_the_archive(client, world):
    LeaderboardRow.objects.create(
        leaderboard=world.board,
        row_key="x",
        position=9,
        model_name="Workshop-Net",
        paper_title="A workshop paper",
        paper_url="https://example.org/w.pdf",
        metrics={"Top-1 Accuracy": "99.5%"},
        uses_additional_data=True,
    )
    body = client.get("/sota/image-classification-on-imagenet").content.decode()
    assert "Workshop-Net" in body and 'href="https://example.org/w.pdf"' in body
    assert "(not in the archive)" in body and "extra data" in body
    assert "99.5%" in body


def test_leaderboard_slug_splits_where_a_board_exists(client, world):
    # Both the task's and the dataset's slugs hold "-on-".
    body = client.get("/sota/speech-on-device-on-libri-on-air").content.decode()
    assert "<h1>Speech on Device on Libri on Air</h1>" in body
    assert _ranked_models(body)[0] == "Speech-2"  # WER: lower first


def test_leaderboard_aliases_redirect_to_the_canonical_url(client, world):
    response = client.get("/sota/Image-Classification-on-ImageNet", {"metric": "params"})
    assert response.status_code == 301
    assert response["Location"] == "/sota/image-classification-on-imagenet?metric=params"
    api_id = client.get("/sota/image-classification--imagenet")  # the API's evaluation id
    assert api_id["Location"] == "/sota/image-classification-on-imagenet"


def test_leaderboard_chart_links_points_to_papers_and_counts_undated(client, world):
    LeaderboardRow.objects.create(
        leaderboard=world.board,
        row_key="undated",
        position=10,
        model_name="NoDate",
        metrics={"Top-1 Accuracy": 50},
    )
    for key, date in (("ancient", "1790-05-01"), ("future", "2099-01-01")):
        LeaderboardRow.objects.create(
            leaderboard=world.board,
            row_key=key,
            position=11,
            model_name=key.title(),
            paper_date=date,  # kept, but no date to draw: never a record from 1790
            metrics={"Top-1 Accuracy": 10},
        )
    body = client.get("/sota/image-classification-on-imagenet").content.decode()
    chart = body[body.index('<figure class="chart-figure" id="progress">') :]
    chart = chart[: chart.index("</figure>")]
    assert '<a href="/paper/paper-2" class="record-link">' in chart
    assert "3 results without a date, or dated before 1900 or after the archive, are" in chart
    assert ">Net-2</text>" in chart  # the record holder labelled
    assert ">1790<" not in chart and "Ancient" not in chart and "Future" not in chart


def test_leaderboard_speech_board_without_dates_says_so(client, world):
    body = client.get("/sota/speech-on-device-on-libri-on-air").content.decode()
    # The rows' papers are dated: the chart falls back to the papers' dates.
    assert "<svg" in body


# --- the paper page ----------------------------------------------------------------------------


def test_paper_page_gives_each_result_its_rank_linked_to_the_board(client, world):
    body = client.get("/paper/paper-1").content.decode()
    assert '<a href="/sota/image-classification-on-imagenet">2nd of 3</a>' in body
    assert '<a href="/sota/speech-on-device-on-libri-on-air">2nd of 3</a>' in body


def test_metric_values_are_shown_as_the_source_gives_them(client, world):
    row = LeaderboardRow.objects.get(row_key="r0")
    row.metrics = {"Top-1 Accuracy": 62687.0, "Params": "25.6M"}
    row.save()
    paper = client.get("/paper/paper-0").content.decode()
    assert "Top-1 Accuracy: 62687;" in paper and "62687.0" not in paper
    board = client.get("/sota/image-classification-on-imagenet").content.decode()
    assert ">62687<" in board and "62687.0" not in board


def test_paper_abstract_lines_join_into_paragraphs_with_math(client, world):
    Paper.objects.filter(slug="paper-0").update(
        abstract="We order the\nvertices of a graph into $K$ bands.\n  A second paragraph."
    )
    body = client.get("/paper/paper-0").content.decode()
    assert "<p>We order the vertices of a graph into <math" in body
    assert "</math> bands.</p><p>A second paragraph.</p>" in body


# --- method, dataset, author and repository pages ------------------------------------------


def test_method_page_charts_its_use_over_time(client, world):
    body = client.get("/method/resnet").content.decode()
    chart = body[body.index('id="usage"') :]
    assert 'href="/search?method=resnet&amp;year_from=2016&amp;year_to=2016"' in chart
    assert "<title>2016: 1 paper</title>" in chart
    assert 'href="/methods/category/cnns">CNNs</a>' in body


def test_dataset_page_has_its_benchmarks_and_papers(client, world):
    body = client.get("/dataset/imagenet").content.decode()
    assert '<a href="/sota/image-classification-on-imagenet">Image Classification</a>' in body
    assert "1\u20133 of 3 papers" in body and 'href="/search?dataset=imagenet"' in body


def test_author_and_repository_lists_search_within_their_papers(client, world):
    world.add_results(25)
    _paper("someone-else", title="Paper by someone else")
    author = client.get("/author/kaiming-he").content.decode()
    assert "1\u201320 of 28 papers" in author and 'href="?page=2"' in author
    assert 'href="/search?author=kaiming-he"' in author
    found = client.get("/search", {"author": "kaiming-he"}).content.decode()
    assert "28 papers" in found and "Paper by someone else" not in found
    repo = client.get("/repo/github.com/lab/resnet", {"per_page": 50}).content.decode()
    assert "1\u201328 of 28 papers" in repo
    within = client.get("/search", {"repository": "https://github.com/lab/resnet"})
    assert "28 papers" in within.content.decode()


# --- the counts ---------------------------------------------------------------------------------


def test_refresh_counts_counts_visible_papers_boards_and_years(world):
    Paper.objects.filter(slug="paper-0").update(hidden=True)
    assert refresh_browse_counts() > 0
    world.task.refresh_from_db()
    world.method.refresh_from_db()
    world.imagenet.refresh_from_db()
    assert (world.task.paper_count, world.task.benchmark_count) == (2, 1)
    assert (world.imagenet.paper_count, world.imagenet.benchmark_count) == (2, 1)
    assert world.method.papers_by_year == {"2016": 1, "2017": 1}
    assert refresh_browse_counts() == 0  # nothing changed: nothing written


def test_home_and_samples_show_statuses_as_a_bar(client, make_paper):
    make_paper()
    for url in ["/", "/samples"]:
        body = client.get(url).content.decode()
        bar = body[body.index('<figure class="share-bar">') :]
        assert 'class="segment status-ran_honours"' in bar and "(50%)" in bar, url


def test_a_big_leaderboard_pages_its_table_and_shades_its_other_results_by_density(client, world):
    LeaderboardRow.objects.bulk_create(
        LeaderboardRow(
            leaderboard=world.board,
            row_key=f"big{i}",
            position=100 + i,
            model_name=f"Big-{i}",
            paper_date=f"{2000 + i % 20}-01-01",
            metrics={"Top-1 Accuracy": i / 10},
            metric_values={"Top-1 Accuracy": i / 10},
        )
        for i in range(250)
    )
    refresh_browse_counts()  # a bulk write refreshes the rankings, as an import does
    board = "/sota/image-classification-on-imagenet"
    first = client.get(board).content.decode()
    assert "Rows 1\u2013100 of 253." in first and 'rel="next"' in first
    assert '<g class="density"' in first and "shade-1" in first and "record-link" in first
    last = client.get(board, {"page": 3}).content.decode()
    assert "Rows 201\u2013253 of 253." in last and re.search(r"<td[^>]*>Big-0</td>", last)
    assert client.get(board, {"page": 9}).status_code == 200  # past the end: the last page


def test_fast_ranking_agrees_with_ranked_rows():
    """The leaderboard page ranks thousands of rows on plain tuples; it must give the
    order and ranks `ranked_rows` gives (ties, missing values, archive order)."""
    import random
    from types import SimpleNamespace

    from papers.kept.rankings import rank_entries
    from papers.models import ranked_rows

    rng = random.Random(5)
    for lower in (True, False):
        entries = [
            (pk, rng.randrange(50), rng.choice([None, 1.0, 2.5, 2.5, 3.0, rng.random()]))
            for pk in range(1, 400)
        ]
        metric = LeaderboardMetric(name="m", lower_is_better=lower)
        rows = [SimpleNamespace(id=pk, position=p, metric_values={"m": v}) for pk, p, v in entries]
        expected = [(r.id, r.rank) for r in ranked_rows([metric], rows)]
        assert rank_entries(entries, lower) == expected
