"""The synthetic archive generator (synthetic/) and bench/make_archive.py.

Plain unit tests: no database. A 2,000-paper archive is generated once per module.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import synthetic

ROOT = Path(__file__).resolve().parents[2]
SEED, PAPERS = 1, 2_000


@pytest.fixture(scope="module")
def archive() -> dict[str, list[dict]]:
    sizes = synthetic.archive_sizes(PAPERS)
    return {
        "papers": list(synthetic.paper_rows(SEED, PAPERS)),
        "links": list(synthetic.link_rows(SEED, PAPERS)),
        "records": list(synthetic.record_rows(SEED, PAPERS)),
        "methods": list(synthetic.method_rows(SEED, sizes.methods, papers=PAPERS)),
        "datasets": list(synthetic.dataset_rows(SEED, sizes.datasets, papers=PAPERS)),
        "evaluation-tables": list(synthetic.evaluation_rows(SEED, PAPERS, sizes.rows)),
    }


_DIGEST = """
import hashlib, json, sys
sys.path.insert(0, {root!r})
import synthetic as s
seed, papers = {seed}, {papers}
n = s.archive_sizes(papers)
digest = hashlib.sha256()
for rows in (s.paper_rows(seed, papers), s.link_rows(seed, papers), s.record_rows(seed, papers),
             s.method_rows(seed, n.methods, papers=papers),
             s.dataset_rows(seed, n.datasets, papers=papers),
             s.evaluation_rows(seed, papers, n.rows)):
    for row in rows:
        digest.update(json.dumps(row, sort_keys=True).encode())
print(digest.hexdigest())
"""


def _digest_in_subprocess(seed: int, papers: int, hash_seed: str) -> str:
    code = _DIGEST.format(root=str(ROOT), seed=seed, papers=papers)
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.strip()


def _digest(archive: dict[str, list[dict]]) -> str:
    digest = hashlib.sha256()
    for kind in ("papers", "links", "records", "methods", "datasets", "evaluation-tables"):
        for row in archive[kind]:
            digest.update(json.dumps(row, sort_keys=True).encode())
    return digest.hexdigest()


def test_same_seed_gives_the_same_archive_in_any_process(archive):
    # Another process with another str-hash seed: nothing may depend on set order or hash().
    assert _digest_in_subprocess(SEED, PAPERS, "12345") == _digest(archive)


def test_another_seed_gives_another_archive(archive):
    other = list(synthetic.paper_rows(SEED + 1, 200))
    assert [r["title"] for r in other] != [r["title"] for r in archive["papers"][:200]]
    assert _digest_in_subprocess(SEED + 1, 300, "1") != _digest_in_subprocess(SEED, 300, "1")


def test_rows_of_a_range_are_the_rows_of_the_whole(archive):
    part = list(synthetic.paper_rows(SEED, PAPERS, start=700, stop=760))
    assert part == archive["papers"][700:760]
    links = list(synthetic.link_rows(SEED, PAPERS, start=1_000))
    assert links == [
        link for link in archive["links"] if link["paper_url"] in {
            row["paper_url"] for row in archive["papers"][1_000:]
        }
    ]  # fmt: skip


def test_paper_rows_have_the_dump_shape(archive):
    keys = ["paper_url", "arxiv_id", "nips_id", "openreview_id", "title", "abstract",
            "short_abstract", "url_abs", "url_pdf", "proceeding", "conference", "authors",
            "tasks", "date", "methods"]  # fmt: skip
    papers = archive["papers"]
    assert all(list(row) == keys for row in papers)
    method = next(m for row in papers for m in row["methods"])
    assert list(method) == ["name", "full_name", "description", "introduced_year",
                            "source_url", "source_title", "code_snippet_url",
                            "main_collection"]  # fmt: skip
    no_arxiv = sum(row["arxiv_id"] is None for row in papers) / len(papers)
    assert 0.08 < no_arxiv < 0.25
    with_proceeding = sum(bool(row["proceeding"]) for row in papers) / len(papers)
    assert 0.18 < with_proceeding < 0.32
    assert all(re.fullmatch(r"\d{4}\.\d{4,5}", r["arxiv_id"]) for r in papers if r["arxiv_id"])
    assert all(1 <= len(row["authors"]) <= 10 for row in papers)
    words = [len(row["abstract"].split()) for row in papers]
    assert 140 < sum(words) / len(words) < 200
    assert min(words) >= 55 and max(words) <= 330
    assert any(not (row["title"] + row["abstract"]).isascii() for row in papers)


def test_slugs_and_arxiv_ids_are_unique(archive):
    slugs = [row["paper_url"].rsplit("/", 1)[1] for row in archive["papers"]]
    assert len(set(slugs)) == len(slugs)
    assert any(re.search(r"-\d+$", slug) for slug in slugs)  # repeated titles get "-N"
    ids = [row["arxiv_id"] for row in archive["papers"] if row["arxiv_id"]]
    assert len(set(ids)) == len(ids)


def test_link_rows_agree_with_paper_rows(archive):
    papers = {row["paper_url"]: row for row in archive["papers"]}
    links = archive["links"]
    assert 0.4 * PAPERS < len(links) < 0.7 * PAPERS
    for link in links:
        paper = papers[link["paper_url"]]
        assert link["paper_title"] == paper["title"]
        assert link["paper_arxiv_id"] == paper["arxiv_id"]
        assert link["paper_url_abs"] == paper["url_abs"]
        assert link["paper_url_pdf"] == paper["url_pdf"]
        assert link["repo_url"].startswith("https://github.com/")
    per_paper = Counter(link["paper_url"] for link in links)
    assert 0.35 < len(per_paper) / PAPERS < 0.55
    assert max(per_paper.values()) > 3
    repos = Counter(link["repo_url"] for link in links)
    assert max(repos.values()) > 1  # some repositories serve several papers


def test_records_agree_with_paper_and_link_rows(archive):
    papers = {row["paper_url"].rsplit("/", 1)[1]: row for row in archive["papers"]}
    links: dict[str, list[dict]] = {}
    for link in archive["links"]:
        links.setdefault(link["paper_url"].rsplit("/", 1)[1], []).append(link)
    records = archive["records"]
    assert 0.03 * PAPERS < len(records) < 0.07 * PAPERS
    for record in records:
        slug = record["url"].removeprefix("/paper/")
        paper = papers[slug]
        for key in ("title", "arxiv_id", "date", "authors", "abstract", "tasks"):
            assert record[key] == paper[key], key
        for key in ("proceeding", "url_abs", "url_pdf"):  # records say "nothing" as null
            assert record[key] == (paper[key] or None), key
        assert record["methods"] == [m["name"] for m in paper["methods"]]
        assert [c["repo_url"] for c in record["code_links"]] == [
            link["repo_url"] for link in links.get(slug, [])
        ]
        assert all(c["paper_slug"] == slug and "reach" in c for c in record["code_links"])


def test_record_summary_and_by_repo_kind_agree_with_samples(archive):
    for record in archive["records"]:
        report = record["syntology"]
        samples = report["samples"]
        assert 1 <= len(samples) <= 30
        summary: dict[str, int] = {}
        kinds: dict[str, dict] = {}
        for sample in samples:
            summary[sample["status"]] = summary.get(sample["status"], 0) + 1
            kind = kinds.setdefault(sample["repo_kind"], {"samples": 0, "ran": 0, "repos": set()})
            kind["samples"] += 1
            kind["ran"] += sample["status"].startswith("ran")
            kind["repos"].add(sample["repo"])
            expected = synthetic.CONTRACT_CHECK.get(sample["status"])
            assert sample["contract_check"] == expected
            assert sample["mcp_get_code"] == {"code_sha256": sample["code_sha256_prefix"]}
        # Same numbers and the same (first-appearance) order.
        assert list(report["summary"].items()) == list(summary.items())
        assert list(report["by_repo_kind"].items()) == [
            (k, {"samples": v["samples"], "ran": v["ran"], "repositories": len(v["repos"])})
            for k, v in kinds.items()
        ]


def test_every_status_repo_kind_and_several_languages_appear(archive):
    samples = [s for record in archive["records"] for s in record["syntology"]["samples"]]
    statuses = {s["status"] for s in samples}
    assert set(synthetic.KNOWN_STATUSES) <= statuses
    assert statuses - set(synthetic.KNOWN_STATUSES)  # a rare status the site must keep
    assert {s["repo_kind"] for s in samples} == set(synthetic.REPO_KINDS)
    assert len({s["language"] for s in samples}) >= 4


def test_record_has_the_seed_key_order(archive, seed_record_path):
    seed = json.loads(seed_record_path.read_text())
    record = archive["records"][0]
    assert list(record) == list(seed)
    assert list(record["syntology"]) == list(seed["syntology"])
    assert list(record["syntology"]["samples"][0]) == list(seed["syntology"]["samples"][0])
    with_links = next(r for r in archive["records"] if r["code_links"])
    assert list(with_links["code_links"][0]) == list(seed["code_links"][0])
    assert record["about"] == seed["about"]
    assert record["syntology"]["repo_kind_vocabulary"] == seed["syntology"]["repo_kind_vocabulary"]
    assert record["syntology"]["claim"] == seed["syntology"]["claim"]


def test_task_names_are_shared_by_papers_datasets_and_evaluation_tables(archive):
    catalogue = set(synthetic.task_names(SEED, PAPERS))
    assert {t for row in archive["papers"] for t in row["tasks"]} <= catalogue
    assert {t["task"] for row in archive["datasets"] for t in row["tasks"]} <= catalogue

    names: list[str] = []

    def walk(task: dict, depth: int) -> None:
        assert depth <= 3
        names.append(task["task"])
        for sub in task["subtasks"]:
            walk(sub, depth + 1)

    for task in archive["evaluation-tables"]:
        walk(task, 0)
    assert set(names) <= catalogue


def test_evaluation_tables_have_the_rows_asked_for_and_shared_subtasks(archive):
    tables = archive["evaluation-tables"]
    parents: dict[str, set[str]] = {}
    rows: list[dict] = []

    def walk(task: dict) -> None:
        assert list(task) == ["task", "categories", "description", "source_link", "datasets",
                              "subtasks", "synonyms"]  # fmt: skip
        for dataset in task["datasets"]:
            rows.extend(dataset["sota"]["rows"])
        for sub in task["subtasks"]:
            parents.setdefault(sub["task"], set()).add(task["task"])
            walk(sub)

    for task in tables:
        walk(task)
    assert len(rows) == synthetic.archive_sizes(PAPERS).rows
    assert any(len(p) > 1 for p in parents.values())
    values = [v for row in rows for v in row["metrics"].values()]
    assert any(isinstance(v, float | int) for v in values)
    assert any(isinstance(v, str) and v.endswith("%") for v in values)
    assert any(isinstance(v, str) and "±" in v for v in values)
    assert "" in values
    urls = [row["paper_url"] for row in rows]
    assert any(re.fullmatch(r"https?://arxiv\.org/abs/\d{4}\.\d{4,5}v\d", u) for u in urls)
    assert "" in urls
    slugs = {row["paper_url"] for row in archive["papers"]}
    pwc = [u for u in urls if "paperswithcode.com/paper/" in u]
    assert any(u in slugs for u in pwc) and any(u not in slugs for u in pwc)


def test_methods_dump_keeps_junk_and_case_only_duplicates(archive):
    methods = archive["methods"]
    assert all(m["url"].startswith("https://paperswithcode.com/method/") for m in methods)
    lowered = Counter(m["name"].lower() for m in methods)
    assert any(n > 1 for n in lowered.values())
    assert any(not set(m["description"]) & set("aeiouAEIOU") for m in methods)
    assert sum(m["introduced_year"] == 2000 for m in methods) > 0.7 * len(methods)
    assert any("\r\n" in m["description"] for m in methods)


def test_make_archive_writes_files_that_read_back(archive, tmp_path):
    import pyarrow.parquet as pq

    subprocess.run(
        [sys.executable, "bench/make_archive.py", "--papers", str(PAPERS), "--seed", str(SEED),
         "--out", str(tmp_path), "--format", "json.gz,parquet", "--jobs", "2"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )  # fmt: skip
    for kind, name in synthetic.FILE_NAMES.items():
        with gzip.open(tmp_path / f"{name}.json.gz", "rt", encoding="utf-8") as fh:
            rows = json.load(fh)
        # Written in parts by two processes, the file holds exactly the generator's rows.
        assert rows == archive[kind], kind
        table = pq.read_table(tmp_path / f"{name}.parquet")
        assert table.num_rows == len(rows), kind
        assert table.column_names == list(rows[0]), kind
    papers = pq.read_table(tmp_path / "papers-with-abstracts.parquet").slice(0, 50).to_pylist()
    assert papers == archive["papers"][:50]
    records = pq.read_table(tmp_path / "records.parquet").slice(0, 5).to_pylist()
    for got, want in zip(records, archive["records"], strict=False):
        assert json.loads(got["syntology"]) == want["syntology"]
        assert got["code_links"] == want["code_links"]
