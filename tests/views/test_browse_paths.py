"""The browsing paths a Papers with Code user knew, at their old addresses: methods by
area and category, dataset filters, a task's papers with and without code and newest,
/trends, area pages that show the top tasks, and the home page leading with discovery."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.models import Collection, Method
from tests.views.test_browse import World

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return World()


PAGES = [
    "/methods/area/computer-vision",
    "/methods/category/cnns",
    "/datasets?mod=images",
    "/task/image-classification/codeless",
    "/task/image-classification/latest",
]


@pytest.mark.parametrize("url", PAGES)
def test_new_browse_pages_answer_with_one_h1(client, world, url):
    response = client.get(url)
    assert response.status_code == 200, url
    assert len(re.findall(r"<h1[ >]", response.content.decode())) == 1


@pytest.mark.parametrize("url", PAGES)
def test_new_browse_pages_run_the_same_queries_however_much_data(client, world, url):
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    world.add_results(30)
    extra = Collection.objects.create(slug="gans", name="GANs", area="Computer Vision")
    for i in range(5):
        Method.objects.create(slug=f"gan-{i}", name=f"GAN {i}").collections.add(extra)
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).status_code == 200
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


@pytest.mark.parametrize(
    "url", ["/methods/area/nowhere", "/methods/category/nothing", "/methods/area/%00"]
)
def test_unknown_method_areas_and_categories_are_not_found(client, world, url):
    assert client.get(url).status_code in (400, 404)  # a NUL byte is refused before


# --- methods by area and category --------------------------------------------------------------


def test_the_methods_index_navigates_by_area_and_category(client, world):
    body = client.get("/methods").content.decode()
    assert 'href="/methods/area/computer-vision"' in body
    assert 'href="/methods/category/cnns"' in body


def test_a_method_area_lists_its_collections_and_every_method_in_them(client, world):
    other = Collection.objects.create(slug="rnns", name="RNNs", area="Sequential")
    Method.objects.create(slug="lstm", name="LSTM").collections.add(other)
    gans = Collection.objects.create(slug="gans", name="GANs", area="Computer Vision")
    Method.objects.create(slug="dcgan", name="DCGAN").collections.add(gans)
    world.method.collections.add(gans)  # in two collections of the area: listed once
    body = client.get("/methods/area/computer-vision").content.decode()
    assert "Methods: Computer Vision" in body
    assert 'href="/methods/category/cnns"' in body and 'href="/methods/category/gans"' in body
    assert 'href="/method/resnet"' in body and 'href="/method/dcgan"' in body
    assert body.count('href="/method/resnet"') == 1
    assert "LSTM" not in body
    assert "1\u20132 of 2" in body


def test_a_method_category_lists_its_methods_under_its_area(client, world):
    body = client.get("/methods/category/cnns").content.decode()
    assert "Methods: CNNs" in body and 'href="/method/resnet"' in body
    assert 'href="/methods/area/computer-vision"' in body  # the breadcrumb
    method = client.get("/method/resnet").content.decode()
    assert 'href="/methods/category/cnns"' in method


def test_collections_with_no_area_are_under_other(client, world):
    loose = Collection.objects.create(slug="misc", name="Misc", area="")
    Method.objects.create(slug="trick", name="Trick").collections.add(loose)
    body = client.get("/methods/area/other").content.decode()
    assert 'href="/method/trick"' in body and 'href="/method/resnet"' not in body


# --- datasets by modality, task and language ---------------------------------------------------


@pytest.fixture
def datasets(world):
    from papers.models import Dataset

    world.imagenet.modalities = ["Images"]
    world.imagenet.languages = ["English"]
    world.imagenet.save(update_fields=["modalities", "languages"])
    world.imagenet.tasks.add(world.task)
    cloud = Dataset.objects.create(
        slug="kitti", name="KITTI", modalities=["Point cloud", "Images"]
    )
    cloud.tasks.add(world.task)
    Dataset.objects.create(slug="wmt", name="WMT", modalities=["Texts"], languages=["German"])
    return world


def test_datasets_filter_by_papers_with_codes_parameters(client, datasets):
    body = client.get("/datasets", {"mod": "images"}).content.decode()
    assert "ImageNet" in body and "KITTI" in body and ">WMT<" not in body
    body = client.get("/datasets", {"mod": "point-cloud", "task": "image-classification"})
    body = body.content.decode()
    assert "KITTI" in body and ">ImageNet<" not in body
    body = client.get("/datasets", {"lang": "English"}).content.decode()
    assert "ImageNet" in body and "KITTI" not in body


def test_dataset_filters_count_what_each_value_keeps(client, datasets):
    body = client.get("/datasets").content.decode()
    assert re.search(r'href="\?mod=images">Images <span class="n">2</span>', body)
    assert re.search(r'href="\?mod=texts">Texts <span class="n">1</span>', body)
    assert re.search(
        r'href="\?task=image-classification">Image Classification <span class="n">2<', body
    )
    # with a modality chosen, the languages count within it
    body = client.get("/datasets", {"mod": "images"}).content.decode()
    assert re.search(
        r'href="\?mod=images&amp;lang=english">English <span class="n">1</span>', body
    )
    assert "German" not in body
    assert 'aria-current="true" title="Remove this filter"' in body


def test_an_unknown_dataset_filter_value_says_so_and_keeps_nothing(client, datasets):
    response = client.get("/datasets", {"mod": "smells"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "No dataset has the modality “smells”" in body and "Nothing matches." in body


def test_dataset_filters_run_the_same_queries_however_many_values(client, datasets):
    from papers.models import Dataset

    with CaptureQueriesContext(connection) as few:
        assert client.get("/datasets", {"mod": "images"}).status_code == 200
    for i in range(40):
        Dataset.objects.create(slug=f"d{i}", name=f"D {i}", modalities=[f"M{i}", "Images"],
                               languages=[f"L{i}"])  # fmt: skip
    with CaptureQueriesContext(connection) as many:
        assert client.get("/datasets", {"mod": "images"}).status_code == 200
    assert len(many) == len(few)


def test_dataset_filters_read_the_kept_index_and_see_every_change_at_once(client, datasets):
    """The index is kept (one read, no pass over the catalogue), and a dataset saved,
    hidden or deleted, a task renamed or a dataset's tasks changed show on the next page."""
    from papers.models import Dataset

    client.get("/datasets")  # works the index out and keeps it
    with CaptureQueriesContext(connection) as captured:
        client.get("/datasets", {"mod": "images"})
    assert not any("modalities" in q["sql"] and "LIMIT" not in q["sql"] for q in captured)

    Dataset.objects.create(slug="coco", name="COCO", modalities=["Images"])
    body = client.get("/datasets").content.decode()
    assert re.search(r'href="\?mod=images">Images <span class="n">3</span>', body)
    kitti = Dataset.objects.get(slug="kitti")
    kitti.hidden = True
    kitti.save()
    body = client.get("/datasets", {"mod": "images"}).content.decode()
    assert ">KITTI<" not in body and "COCO" in body
    datasets.task.name = "Picture Classification"
    datasets.task.save()
    body = client.get("/datasets").content.decode()
    assert "Picture Classification" in body
    Dataset.objects.get(slug="coco").tasks.add(datasets.task)
    body = client.get("/datasets").content.decode()
    assert re.search(r'Picture Classification <span class="n">2<', body)
    datasets.imagenet.tasks.clear()
    Dataset.objects.get(slug="wmt").delete()
    body = client.get("/datasets").content.decode()
    assert re.search(r'Picture Classification <span class="n">1<', body)
    assert "Texts" not in body and "German" not in body


def test_a_dataset_page_lists_benchmarks_papers_loaders_and_variants(client, world):
    world.imagenet.variants = ["ImageNet-1k", "ImageNet (val)"]
    world.imagenet.extra = {
        "data_loaders": [
            {"url": "https://huggingface.co/datasets/imagenet-1k",
             "repo": "https://github.com/huggingface/datasets", "frameworks": ["pytorch", "jax"]},
            {"url": "https://huggingface.co/datasets/imagenet-1k", "repo": "", "frameworks": []},
            {"url": "javascript:alert(1)", "frameworks": "tf"},
            "junk",
        ]
    }  # fmt: skip
    world.imagenet.save(update_fields=["variants", "extra"])
    body = client.get("/dataset/imagenet").content.decode()
    assert "<h2>Benchmarks</h2>" in body and "image-classification-on-imagenet" in body
    assert 'id="papers">Papers using it' in body and 'href="/paper/paper-0"' in body
    assert body.count('href="https://huggingface.co/datasets/imagenet-1k"') == 1
    assert '<span class="badge">pytorch</span>' in body
    assert 'href="javascript:' not in body
    assert "Variants: ImageNet-1k, ImageNet (val)" in body


@pytest.mark.parametrize("url", ["/task/lonely", "/method/lonely", "/dataset/lonely"])
def test_a_record_with_no_papers_says_so_once(client, world, url):
    from papers.models import Dataset, Method, Task

    model = {"task": Task, "method": Method, "dataset": Dataset}[url.split("/")[1]]
    model.objects.create(slug="lonely", name="Lonely")
    body = client.get(url).content.decode()
    assert body.count("No papers") == 1


# --- a task's lists of papers ------------------------------------------------------------------


@pytest.fixture
def mixed(world):
    """The task's three papers with code, and two without (one the newest)."""
    from papers.kept import refresh_all
    from papers.kept.papers import refresh_counts
    from papers.models import Paper, PaperTask

    for slug, published in (("bare-old", "2012-01-01"), ("bare-new", "2024-06-01")):
        paper = Paper.objects.create(slug=slug, title=slug.title(), published=published)
        PaperTask.objects.create(paper=paper, task=world.task)
    refresh_counts(Paper.objects.values_list("id", flat=True))
    refresh_all()
    return world


def test_a_task_lists_its_papers_with_code_without_code_and_newest(client, mixed):
    code = client.get("/task/image-classification").content.decode()
    assert "Papers with code" in code and "bare-new" not in code and "/paper/paper-0" in code
    assert "3 papers with code" in code
    codeless = client.get("/task/image-classification/codeless").content.decode()
    assert "Papers without code" in codeless and "2 papers without code" in codeless
    assert "/paper/bare-new" in codeless and "/paper/paper-0" not in codeless
    latest = client.get("/task/image-classification/latest").content.decode()
    assert "5 papers in all, newest first" in latest
    latest = latest[latest.index('id="papers"') :]  # the list, not the benchmarks above
    assert latest.index("/paper/bare-new") < latest.index("/paper/paper-2")
    assert latest.index("/paper/paper-2") < latest.index("/paper/bare-old")
    for body in (code, codeless, latest):  # each view links the others, the current marked
        assert 'href="/task/image-classification/codeless#papers"' in body
        assert body.count('aria-current="page"') == 1
    assert client.get("/task/nothing/latest").status_code == 404


# --- /trends -----------------------------------------------------------------------------------


def _links(quarter_dates: dict[str, dict[str, int]]) -> None:
    """Papers dated on each date with that many code links per framework."""
    from papers.models import CodeLink, Paper, Repository

    n = Paper.objects.count()
    for date, frameworks in quarter_dates.items():
        for framework, count in frameworks.items():
            for _ in range(count):
                n += 1
                paper = Paper.objects.create(slug=f"t-{n}", title=f"T {n}", published=date)
                repo = Repository.objects.create(url=f"https://github.com/t/r{n}")
                CodeLink.objects.create(paper=paper, repository=repo, framework=framework)


def test_trends_give_each_frameworks_share_of_new_code_links_a_quarter(client, db):
    from papers.kept import trends

    _links({
        "2019-02-01": {"tf": 15, "pytorch": 5},
        "2021-08-01": {"tf": 5, "pytorch": 14, "none": 1, "": 0},
        "2021-09-01": {"jax": 2},
        "2022-01-01": {"pytorch": 3},  # too few links: left out
    })  # fmt: skip
    trends.refresh_trends()
    data = trends.kept()
    assert data["quarters"] == ["2019 Q1", "2021 Q3"]
    assert data["frameworks"] == ["pytorch", "tf", "jax", "unspecified"]
    assert data["links"]["pytorch"] == [5, 14] and data["links"]["unspecified"] == [0, 1]
    body = client.get("/trends").content.decode()
    assert 'role="img"' in body and "<desc" in body and "<table" in body
    row = '<th scope="row" class="key">2021 Q3</th><td class="num">22</td>'
    assert row + '<td class="num">63.6%</td><td class="num">22.7%</td>' in body
    assert "pytorch 64%" in body


def test_trends_say_when_they_have_not_been_worked_out(client, db):
    body = client.get("/trends").content.decode()
    assert "refresh_browse_counts" in body


def test_trends_page_runs_one_query_however_many_quarters(client, db):
    from papers.kept import trends

    _links({"2019-02-01": {"tf": 20}})
    trends.refresh_trends()
    with CaptureQueriesContext(connection) as few:
        client.get("/trends")
    _links({f"{y}-0{q}-01": {"tf": 10, "jax": 10} for y in range(2010, 2015) for q in (1, 4, 7)})
    trends.refresh_trends()
    with CaptureQueriesContext(connection) as many:
        client.get("/trends")
    assert len(many) == len(few)


# --- area pages --------------------------------------------------------------------------------


def test_an_area_with_many_tasks_pages_its_cards(client, world):
    from papers.models import Task

    Task.objects.bulk_create(
        Task(slug=f"vision-{i:03d}", name=f"Vision {i:03d}", categories=["Computer Vision"])
        for i in range(130)
    )
    first = client.get("/area/computer-vision").content.decode()
    assert first.count('<li><a href="/task/') == 60
    assert "1\u201360 of 132" in first and 'rel="next"' in first
    last = client.get("/area/computer-vision", {"page": 3}).content.decode()
    assert last.count('<li><a href="/task/') == 12 and "121\u2013132 of 132" in last
    assert client.get("/area/computer-vision", {"page": 99}).status_code == 200
    assert client.get("/area/computer-vision", {"page": "x"}).status_code == 400
    with CaptureQueriesContext(connection) as one:
        client.get("/area/computer-vision")
    with CaptureQueriesContext(connection) as three:
        client.get("/area/computer-vision", {"page": 3})
    assert len(one) == len(three)


# --- the home page and the report's words ------------------------------------------------------


def test_the_home_page_leads_with_discovery_then_the_execution_summary(client, world):
    from papers.models import Paper

    Paper.objects.create(slug="no-code-newest", title="No Code Newest", published="2024-01-01")
    body = client.get("/").content.decode()
    order = ["home-q", "New papers with code", "Most implemented papers of",
             "State of the art", "Does the code run?"]  # fmt: skip
    positions = [body.index(text) for text in order]
    assert positions == sorted(positions)
    newest = body[body.index("New papers with code") : body.index("Most implemented")]
    assert "/paper/paper-2" in newest and "no-code-newest" not in newest
    assert 'href="/area/computer-vision"' in body


def test_statuses_show_labels_with_their_code_in_an_abbr_and_terms_link_the_glossary(
    client, world
):
    from tests.kept.test_execution_facts import give_report

    give_report(world.papers[0], ["ran_draft_wrong", "ran"])
    samples = client.get("/samples").content.decode()
    assert 'Ran, drafted contract wrong <abbr class="code"' in samples
    assert 'href="/about#status-ran_draft_wrong"' in samples
    assert 'href="/about#term-contract-check"' in samples
    paper = client.get("/paper/paper-0/samples").content.decode()
    assert 'href="/about#term-tier">Metamorphic tier</a>' in paper
    assert 'href="/about#term-level">Verification level</a>' in paper
    about = client.get("/about").content.decode()
    for anchor in ("term-status", "term-tier", "term-level", "term-contract-check",
                   "status-ran_draft_wrong"):  # fmt: skip
        assert f'id="{anchor}"' in about
