"""Write code links: a paper (a stub if no record gave it yet), its repository and the
link between them, keyed by the pair."""

from __future__ import annotations

from papers.archive.read.parsers import LinkIn, RepoIn
from papers.archive.write.core import Core, empty
from papers.archive.write.papers import PaperWriter
from papers.db import chunks, insert_rows, update_rows
from papers.models import CodeLink, Repository

LINK_FIELDS = ("is_official", "mentioned_in_paper", "mentioned_in_github", "framework", "position")


class LinkWriter:
    def __init__(self, core: Core, papers: PaperWriter):
        self.core = core
        self.papers = papers

    def write(self, incoming: list[LinkIn]) -> None:
        paper_ids = self.papers.write([link.paper for link in incoming])
        repo_ids = self.repositories([link.repo for link in incoming])
        self.code_links(incoming, paper_ids, repo_ids)

    def repositories(self, repos: list[RepoIn]) -> dict[str, int]:
        """Upsert repositories by URL; returns URL → id."""
        items: dict[str, dict] = {}
        for repo in repos:
            host, owner, name = Repository.parts_from_url(repo.url)
            values = items.setdefault(repo.url, {"host": host, "owner": owner, "name": name})
            values.update({k: v for k, v in repo.fields.items() if not empty(v)})
        return self.core.upsert(Repository, "url", items)

    def code_links(
        self, links: list[LinkIn], paper_ids: dict[str, int], repo_ids: dict[str, int]
    ) -> None:
        """Upsert the links between the papers and repositories (by their ids)."""
        stats, now = self.core.stats, self.core.now
        wanted: dict[tuple[int, int], dict] = {}
        for link in links:
            pair = (paper_ids[link.paper.slug], repo_ids[link.repo.url])
            wanted[pair] = link.fields
        existing = {}
        for part in chunks(sorted({p for p, _ in wanted})):
            for row in CodeLink.objects.filter(paper_id__in=part).values():
                existing[(row["paper_id"], row["repository_id"])] = row
        new, changed = [], []
        for (paper_id, repo_id), values in wanted.items():
            row = existing.get((paper_id, repo_id))
            if row is None:
                new.append((paper_id, repo_id, *(values.get(f, 0) for f in LINK_FIELDS)))
                continue
            diff = {k: v for k, v in values.items() if row[k] != v}
            if not diff:
                stats.add("CodeLink", "unchanged")
            elif row["edited_in_admin"] and not self.core.overwrite_edits:
                stats.add("CodeLink", "left_alone")
            else:
                merged = {f: row[f] for f in LINK_FIELDS} | diff
                changed.append((*(merged[f] for f in LINK_FIELDS), now, row["id"]))
        insert_rows(CodeLink, ["paper_id", "repository_id", *LINK_FIELDS], new)
        update_rows(CodeLink, [*LINK_FIELDS, "updated_at"], changed)
        stats.add("CodeLink", "created", len(new))
        stats.add("CodeLink", "updated", len(changed))
