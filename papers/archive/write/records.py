"""Write seed-shaped paper records: the paper, its code links, and its execution report
(the report's repositories and samples, replaced whole where they differ), and point the
datasets and methods it introduces at it. A record of a paper staff edited is left
alone, report and all, unless `overwrite_edits`."""

from __future__ import annotations

from collections import defaultdict

from papers.archive.read import normalise as n
from papers.archive.read.parsers import RecordIn, RepoIn
from papers.archive.write.core import Core, touch
from papers.archive.write.identity import DatasetNames
from papers.archive.write.links import LinkWriter
from papers.archive.write.papers import PaperWriter
from papers.db import chunks, delete_where_in, insert_rows, select_rows
from papers.models import Dataset, Method, Paper, ReportRepository, Sample

SAMPLE_FIELDS = (
    "position", "repo", "repo_kind", "path", "entry", "file_url", "link_basis", "language",
    "status", "verification_level", "contract_check", "metamorphic_tier",
    "behaviour_fingerprint", "licence", "inline_ok", "code_sha256_prefix", "mcp_code_sha256",
    "extra",
)  # fmt: skip


class RecordWriter:
    def __init__(self, core: Core, papers: PaperWriter, links: LinkWriter, datasets: DatasetNames):
        self.core = core
        self.papers = papers
        self.links = links
        self.datasets = datasets

    def write(self, incoming: list[RecordIn]) -> None:
        latest: dict[str, RecordIn] = {}
        for record in incoming:
            if record.report:
                record.paper.fields.update(record.report)
            latest[record.paper.slug] = record
        records = list(latest.values())
        paper_ids = self.papers.write([r.paper for r in records])
        edited = set(
            Paper.objects.filter(
                id__in=list(paper_ids.values()), edited_in_admin=True
            ).values_list("id", flat=True)
            if not self.core.overwrite_edits
            else []
        )
        records = [r for r in records if paper_ids[r.paper.slug] not in edited]
        repos = [link.repo for r in records for link in r.links]
        repos += [repo for r in records for repo, _ in r.report_repos]
        sample_repos = {}
        for r in records:
            for sample in r.samples:
                url = _sample_repo_url(sample, r)
                sample["_repo_url"] = url
                sample_repos.setdefault(url, RepoIn(url))
        repo_ids = self.links.repositories(repos + list(sample_repos.values()))
        self.links.code_links([link for r in records for link in r.links], paper_ids, repo_ids)
        self._report_repositories(records, paper_ids, repo_ids)
        self._samples(records, paper_ids, repo_ids)
        self._introduced(records, paper_ids)

    def _report_repositories(self, records, paper_ids, repo_ids) -> None:
        wanted = {
            paper_ids[r.paper.slug]: [
                (repo_ids[repo.url], provenance, position)
                for position, (repo, provenance) in enumerate(r.report_repos)
            ]
            for r in records
            if r.report is not None
        }
        current: dict[int, list] = defaultdict(list)
        for part in chunks(list(wanted)):
            rows = ReportRepository.objects.filter(paper_id__in=part).order_by(
                "paper_id", "position"
            )
            for paper_id, repo_id, provenance, position in rows.values_list(
                "paper_id", "repository_id", "provenance", "position"
            ):
                current[paper_id].append((repo_id, provenance, position))
        stale = [pid for pid, rows in wanted.items() if current.get(pid, []) != rows]
        self._touch(stale)
        delete_where_in(ReportRepository, "paper_id", stale)
        insert_rows(
            ReportRepository,
            ["paper_id", "repository_id", "provenance", "position"],
            [(pid, rid, prov, pos) for pid in stale for rid, prov, pos in wanted[pid]],
        )

    def _samples(self, records, paper_ids, repo_ids) -> None:
        stats = self.core.stats
        wanted = {}
        for r in records:
            if r.report is None:
                continue
            rows = []
            for sample in r.samples:
                values = {k: sample[k] for k in SAMPLE_FIELDS}
                values["repository_id"] = repo_ids.get(sample["_repo_url"])
                rows.append(values)
            wanted[paper_ids[r.paper.slug]] = rows
        current: dict[int, list] = defaultdict(list)
        for part in chunks(list(wanted)):
            rows = Sample.objects.filter(paper_id__in=part).order_by("paper_id", "position")
            for row in rows.values("paper_id", "repository_id", *SAMPLE_FIELDS):
                current[row.pop("paper_id")].append(row)
        stale = [pid for pid, rows in wanted.items() if current.get(pid, []) != rows]
        unchanged = sum(len(wanted[pid]) for pid in wanted if pid not in set(stale))
        stats.add("Sample", "unchanged", unchanged)
        replaced = sum(len(current.get(pid, [])) for pid in stale)
        self._touch(stale)
        delete_where_in(Sample, "paper_id", stale)
        columns = ["paper_id", "repository_id", *SAMPLE_FIELDS]
        new = [
            (pid, values["repository_id"], *(values[f] for f in SAMPLE_FIELDS))
            for pid in stale
            for values in wanted[pid]
        ]
        insert_rows(Sample, columns, new)
        # A changed report replaces the paper's samples: count rows kept as updated.
        updated = min(replaced, len(new))
        stats.add("Sample", "updated", updated)
        stats.add("Sample", "created", len(new) - updated)

    def _introduced(self, records, paper_ids) -> None:
        """Point the datasets and methods a record says it introduces at its paper: by
        exact name first (so "PatchAttn" and "patchattn" stay two methods when the
        methods file has both), else by slug, creating a stub when neither exists
        (datasets: papers.archive.write.identity)."""
        for name, model in (("datasets_introduced", Dataset), ("methods_introduced", Method)):
            wanted = [
                (item, paper_ids[r.paper.slug])
                for r in records
                for item in getattr(r, name)
                if n.slug_of(item)
            ]
            if not wanted:
                continue
            if model is Dataset:
                by_name, by_slug = self.datasets.mentions(w[0] for w in wanted), {}
            else:
                by_name = {
                    row["name"]: row["id"]
                    for row in select_rows(model, "name", [w[0] for w in wanted], ["id", "name"])
                }
                missing = {n.slug_of(item): item for item, _ in wanted if item not in by_name}
                by_slug = self.core.upsert(
                    model, "slug", {s: {"name": v} for s, v in missing.items()}, fill_only=True
                )
            for item, paper_id in wanted:
                self._introduce(model, by_name.get(item) or by_slug.get(n.slug_of(item)), paper_id)

    def _introduce(self, model, target: int | None, paper_id: int) -> None:
        """`target` (a dataset or method) is introduced by `paper_id`, unless staff edited
        it; the paper it named before and this one change with it."""
        stale = model.objects.filter(pk=target).exclude(introduced_by_id=paper_id)
        if not self.core.overwrite_edits:
            stale = stale.filter(edited_in_admin=False)
        losing = [pk for pk in stale.values_list("introduced_by_id", flat=True) if pk]
        if stale.update(introduced_by_id=paper_id, updated_at=self.core.now):
            self._touch([paper_id, *losing])

    def _touch(self, paper_ids: list[int]) -> None:
        touch(Paper, paper_ids, self.core.now)


def _sample_repo_url(sample: dict, record: RecordIn) -> str:
    repo = sample["repo"].strip("/")
    suffix = "/" + repo.lower()
    for link in record.links:
        if link.repo.url.lower().rstrip("/").removesuffix(".git").endswith(suffix):
            return link.repo.url
    for repo_in, _ in record.report_repos:
        if repo_in.url.lower().rstrip("/").removesuffix(".git").endswith(suffix):
            return repo_in.url
    if "://" in repo:
        return repo
    host = "github.com"
    if sample["file_url"].startswith(("http://", "https://")):
        host = sample["file_url"].split("/")[2]
    return f"https://{host}/{repo}"
