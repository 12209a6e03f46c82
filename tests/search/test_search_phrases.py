"""A quoted phrase finds exactly the papers that hold its words in order, however common
the words are (PostgreSQL takes a phrase of common words' candidates from an index of
word pairs, migration 0026: never a paper that holds the phrase is left out)."""

from __future__ import annotations

import pytest
from django.db import connection

from papers.models import Paper
from papers.search import ranked_page, search
from papers.search.backends import backend_for
from papers.search.query import parse

pytestmark = pytest.mark.django_db

DOCS = {
    "in-abstract": ("Molecules", "A neural network learns molecules."),
    "plural-title": ("Deep Neural Networks Explained", "We explain them."),
    "hyphenated": ("Neural-network pruning", "Pruning weights."),
    "reversed": ("Network of neural cells", "Biology."),
    "apart": ("Neural and network models", "Both, but not together."),
    "one-word": ("A network", "Only one of the words."),
    "twice": ("Neural network, neural network", "A deep learning method of neural networks."),
    "deep-learning": ("Deep learning", "Learning deep models of data."),
}


@pytest.fixture
def docs(db):
    for slug, (title, abstract) in DOCS.items():
        Paper.objects.create(slug=slug, title=title, abstract=abstract, author_names="A B")


def found(text: str) -> set[str]:
    page = search(text, Paper.objects.all(), limit=50)
    assert page.total == len(page.ids)
    return set(Paper.objects.filter(id__in=page.ids).values_list("slug", flat=True))


NEURAL_NETWORK = {"in-abstract", "plural-title", "hyphenated", "twice"}


@pytest.mark.parametrize(
    "text, expected",
    [
        ('"neural network"', NEURAL_NETWORK),
        ('"neural networks" ', NEURAL_NETWORK),
        ('"deep neural network"', {"plural-title"}),
        ('"deep learning"', {"deep-learning", "twice"}),
        ('"learning deep"', {"deep-learning"}),
        ('"network of neural"', {"reversed"}),
        ('pruning "neural network"', {"hyphenated"}),
        ('"neural network" "deep learning"', {"twice"}),
        ('"neural network" -molecules', NEURAL_NETWORK - {"in-abstract"}),
        ('"neural network" OR biology', NEURAL_NETWORK | {"reversed"}),
        ('"network neural"', {"twice"}),  # "network, neural network"
        ('"molecules neural"', set()),
    ],
)
def test_a_phrase_of_common_words_finds_exactly_the_papers_that_hold_it(docs, text, expected):
    assert found(text) == expected


def test_a_phrase_kept_to_a_field_finds_the_papers_that_hold_it_there(docs):
    """The API's title and abstract filters (query.parse's `field`)."""

    def kept_to(field: str) -> set[str]:
        parsed = parse('"neural network"', typing=False, field=field)
        ids, _ = ranked_page(parsed, Paper.objects.all(), offset=0, limit=50)
        return set(Paper.objects.filter(id__in=ids).values_list("slug", flat=True))

    assert kept_to("title") == {"plural-title", "hyphenated", "twice"}
    assert kept_to("abstract") == {"in-abstract", "twice"}


def test_postgres_takes_a_common_phrases_candidates_from_the_pair_index(docs):
    """Its candidates come from papers_paper_pairs_gin alone: joined to the GIN index's
    result, each candidate's pairs would be computed again. A phrase of words that are
    not common has no pairs, and the GIN index alone answers it."""
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL index")

    def plan(text: str) -> str:
        sql, params = backend_for(parse(text), Paper.objects.all())._window(10)
        with connection.cursor() as cursor:
            # A table this small is read whole, or in id order, unless told otherwise.
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_indexscan = off")
            cursor.execute(f"EXPLAIN {sql}", params)
            return "\n".join(row[0] for row in cursor.fetchall())

    common = plan('"neural network" ')
    assert "papers_paper_pairs_gin" in common and "papers_paper_search_gin" not in common, common
    rare = plan('"zebra crossing" ')
    assert "papers_paper_search_gin" in rare and "papers_word_pairs" not in rare, rare
