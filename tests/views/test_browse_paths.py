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
