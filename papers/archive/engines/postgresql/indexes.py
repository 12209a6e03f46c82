"""PostgreSQL's index plan: the list tables' and code links' indexes, the papers table's
listing orders (the import resolves papers by arXiv id, so that one stays), the search
windows' GiST indexes, and the list tables' foreign keys.

Django makes the foreign keys DEFERRABLE INITIALLY DEFERRED, so every row a batch
inserted queued a check that ran at COMMIT, one index probe of the referenced table per
row: about a tenth of the server's time in a full import. They wait for the end too.
"""

from __future__ import annotations

from django.db import connection

from papers.archive.engines.indexes import FK_SUFFIX, ForeignKey, IndexPlan
from papers.models import CodeLink, Paper, PaperAuthor, PaperMethod, PaperTask

BUILD_MEMORY = "1GB"  # maintenance_work_mem while they are built
FOREIGN_KEY_MODELS = (PaperAuthor, PaperTask, PaperMethod, CodeLink)


class PostgresIndexes(IndexPlan):
    # On the papers table only the indexes the site alone reads (listing orders) wait.
    MODELS = (Paper, PaperAuthor, PaperTask, PaperMethod, CodeLink)
    KEEP = frozenset({"paper_arxiv_idx"})
    # Migration 0004 orders undated papers last; built from Meta instead (which must also
    # suit SQLite), "newest first" lists and the has-code filter sorted every paper (a
    # 2.3 GB sequential scan, ~0.5 s a page).
    DEFINITIONS = {
        "paper_published_idx": (
            "CREATE INDEX paper_published_idx ON papers_paper (published DESC NULLS LAST, id DESC)"
        ),
    }
    # Indexes of a kind only PostgreSQL has, which no model can declare: search's matches
    # in id order (migration 0012), and those of the visible papers with code alone (0014),
    # with the publication date to check a range of years in (0025); and a phrase's
    # candidates from the pairs of common words (0026).
    EXTRA = {
        "papers_paper_search_gist": (
            "CREATE INDEX papers_paper_search_gist ON papers_paper "
            "USING gist (id, published, COALESCE(search_vector, ''::tsvector))"
        ),
        "papers_paper_code_search_gist": (
            "CREATE INDEX papers_paper_code_search_gist ON papers_paper "
            "USING gist (id, published, COALESCE(search_vector, ''::tsvector)) "
            "WHERE code_link_count > 0 AND NOT hidden"
        ),
        "papers_paper_pairs_gin": (
            "CREATE INDEX papers_paper_pairs_gin ON papers_paper "
            "USING gin (papers_word_pairs(search_vector))"
        ),
    }

    def foreign_keys(self) -> dict[str, ForeignKey]:
        editor = connection.SchemaEditorClass(connection, collect_sql=True)
        out = {}
        for model in FOREIGN_KEY_MODELS:
            for field in model._meta.local_concrete_fields:
                if field.remote_field is None or not field.db_constraint:
                    continue
                statement = editor._create_fk_sql(model, field, FK_SUFFIX)
                target = field.target_field
                out[str(statement.parts["name"]).strip('"')] = ForeignKey(
                    model._meta.db_table,
                    field.column,
                    target.model._meta.db_table,
                    target.column,
                    str(statement),
                )
        return out

    def present(self, names: list[str]) -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT relname FROM pg_class WHERE relkind = 'i' "
                "AND relnamespace = current_schema()::regnamespace AND relname = ANY(%s)",
                [names],
            )
            return {row[0] for row in cursor.fetchall()}

    def present_keys(self, names: list[str]) -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT conname FROM pg_constraint WHERE contype = 'f' AND convalidated "
                "AND connamespace = current_schema()::regnamespace AND conname = ANY(%s)",
                [names],
            )
            return {row[0] for row in cursor.fetchall()}

    def before_ddl(self, cursor) -> None:
        # PostgreSQL refuses DDL on a table with deferred foreign-key checks still pending
        # (an import run inside a caller's transaction): run them now.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")

    def build_settings(self, cursor) -> None:
        cursor.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
