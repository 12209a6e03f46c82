"""An import inserts papers new to the database without looking their slugs up first
(papers.archive.write.papers.KnownSlugs), and that changes nothing in what it writes."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from papers.archive.write import papers as papers_writer
from papers.archive.write.papers import KnownSlugs
from papers.models import Paper
from tests.archive_helpers import db_state, run_import, write

pytestmark = pytest.mark.django_db(transaction=True)


def _paper(i: int, **fields) -> dict:
    return {
        "paper_url": f"https://paperswithcode.com/paper/p{i}",
        "title": f"Paper {i}",
        "authors": [f"Author {i % 3}", f"Author {i % 5}"],
        **fields,
    }


# 30 papers in batches of 10; p5 comes again in the third batch with an abstract and an
# author list of its own, which must reach the first batch's row.
PAPERS = [_paper(i) for i in range(30)]
PAPERS[25] = _paper(5, abstract="Filled in later.", authors=["Late Author"])
LINKS = [
    {"paper_url": "https://paperswithcode.com/paper/p1", "repo_url": "https://github.com/a/x"},
    # a paper only the links file names: inserted as a stub, looked up by no one
    {"paper_url": "https://paperswithcode.com/paper/only-linked", "paper_title": "Stub",
     "repo_url": "https://github.com/a/y"},
]  # fmt: skip


@pytest.fixture
def looked_up(monkeypatch) -> list[str]:
    """The paper slugs the import looks up, in order."""
    slugs: list[str] = []
    real = papers_writer._in

    def spy(model, field, values, *only):
        values = list(values)
        if model is Paper and field == "slug":
            slugs.extend(values)
        return real(model, field, values, *only)

    monkeypatch.setattr(papers_writer, "_in", spy)
    return slugs


def test_papers_new_to_the_database_are_inserted_without_a_lookup(tmp_path, looked_up):
    papers, links = write(tmp_path / "p.json", PAPERS), write(tmp_path / "l.json", LINKS)
    status, _, err = run_import(papers, links, batch_size=10)
    assert status == 0, err
    # The papers file looks up only the slug it met before; the links file its paper
    # from that file, not its stub.
    assert looked_up == ["p5", "p1"]
    p5 = Paper.objects.get(slug="p5")
    assert p5.abstract == "Filled in later."
    assert list(p5.authors.values_list("name", flat=True)) == ["Late Author"]
    assert Paper.objects.count() == 30  # p0…p29 less p25, plus the stub


def test_skipping_the_lookups_writes_what_the_lookups_would(tmp_path, monkeypatch):
    papers, links = write(tmp_path / "p.json", PAPERS), write(tmp_path / "l.json", LINKS)
    monkeypatch.setattr(KnownSlugs, "for_import", classmethod(lambda cls, papers: None))
    assert run_import(papers, links, batch_size=10)[0] == 0
    looked_up_all = db_state()
    call_command("flush", interactive=False, verbosity=0)
    monkeypatch.undo()
    assert run_import(papers, links, batch_size=10)[0] == 0
    assert db_state() == looked_up_all


def test_a_slug_the_filter_wrongly_takes_for_known_is_looked_up_and_imports(
    tmp_path, monkeypatch, looked_up
):
    monkeypatch.setattr(KnownSlugs, "__contains__", lambda self, slug: True)
    papers = write(tmp_path / "p.json", PAPERS)
    status, _, err = run_import(papers, batch_size=10)
    assert status == 0, err
    assert sorted(set(looked_up)) == sorted({f"p{i}" for i in range(30) if i != 25})
    assert Paper.objects.count() == 29


def test_papers_already_there_are_looked_up_and_found_unchanged(tmp_path, looked_up):
    papers = write(tmp_path / "p.json", PAPERS[:20])
    assert run_import(papers, batch_size=10)[0] == 0
    looked_up.clear()
    more = write(tmp_path / "more.json", PAPERS[10:25])  # p10…p19 again, p20…p24 new
    status, out, _ = run_import(more, batch_size=10)
    assert status == 0
    assert looked_up == [f"p{i}" for i in range(10, 20)]
    paper_line = next(line for line in out.splitlines() if line.startswith("Paper "))
    assert paper_line.split()[1:4] == ["5", "0", "10"]  # created, updated, unchanged


def test_a_paper_added_by_someone_else_during_the_import_is_updated_not_a_crash(
    tmp_path, monkeypatch
):
    """The filter was seeded before p3 came in (from the admin, say): the batch that
    inserts p3 fails on its slug and is written again with every slug looked up."""
    Paper.objects.create(slug="p3", title="Added by staff")
    monkeypatch.setattr(KnownSlugs, "for_import", classmethod(lambda cls, papers: cls()))
    papers, links = write(tmp_path / "p.json", PAPERS), write(tmp_path / "l.json", LINKS)
    status, out, err = run_import(papers, links, batch_size=10)
    assert status == 0, err
    paper_line = next(line for line in out.splitlines() if line.startswith("Paper "))
    # created, updated (p3, and p5 filled in), unchanged (p1, from the links file): the
    # failed attempt's counts are not kept beside the second's
    assert paper_line.split()[1:4] == ["29", "2", "1"]
    assert Paper.objects.get(slug="p3").title == "Paper 3"
    assert list(Paper.objects.get(slug="p3").authors.values_list("name", flat=True)) == [
        "Author 0",
        "Author 3",
    ]
    monkeypatch.undo()
    looked_up_all = db_state()
    call_command("flush", interactive=False, verbosity=0)
    Paper.objects.create(slug="p3", title="Added by staff")
    assert run_import(papers, links, batch_size=10)[0] == 0
    assert db_state() == looked_up_all


def test_a_database_with_many_papers_has_every_slug_looked_up(tmp_path, monkeypatch, looked_up):
    assert run_import(write(tmp_path / "p.json", PAPERS[:3]))[0] == 0
    monkeypatch.setattr(KnownSlugs, "SEED_MAX", 2)
    assert KnownSlugs.for_import(Paper.objects.count()) is None
    looked_up.clear()
    assert run_import(write(tmp_path / "more.json", PAPERS[3:6]))[0] == 0
    assert looked_up == ["p3", "p4", "p5"]


def test_the_filter_knows_every_slug_added_and_few_others():
    known = KnownSlugs(f"paper-{i}" for i in range(200_000))
    assert all(f"paper-{i}" in known for i in range(200_000))
    wrong = sum(f"other-{i}" in known for i in range(100_000))
    assert wrong < 300  # two bits a slug in 16M: ~0.06% expected at 200,000 slugs
