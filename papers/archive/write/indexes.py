"""Secondary indexes that an import into an empty database builds once, at its end.

The list tables (papers' authors, tasks, methods) and the code links are written a few
thousand rows a batch, and each row went into every index of its table, keyed by author,
task, method or repository, so that each batch's rows land on pages all over them (on
SQLite every such page is written to the WAL again at each commit). Indexes that the
import itself never reads through are dropped with the full-text index (`defer()`, when
an import mostly adds papers, see papers.archive.importer.IndexPlan) and created from
sorted data when it ends (`build()`): what the import reads by (paper_id through each
table's unique constraint, slugs, arXiv ids) stays indexed throughout, and so do unique
constraints, which keep enforcing what they enforce.

On SQLite only the list tables' and code links' indexes wait: building one of the
papers table's means a scan of its 3 GB. (An earlier attempt that deferred those too
made the full import slower.)

The statements come from the models (Django's own index SQL, the names the migrations
gave), and on PostgreSQL also from POSTGRES_ONLY (an index of a kind only PostgreSQL
has, which no model can declare), so an index is "deferred" exactly when it is declared
there and the database lacks it: an import killed before `build()` leaves them
missing, and the next import's IndexPlan sees that and builds them when it ends.

On PostgreSQL the same tables' foreign keys wait too (`foreign_keys()`). Django makes
them DEFERRABLE INITIALLY DEFERRED, so every row a batch inserted queued a check that
ran at COMMIT, one index probe of the referenced table per row: about a tenth of the
server's time in a full import. Added back at the
end, each is checked by one join over the whole table. The import writes a row only
with the row it references (in the same batch or before), so the check finds nothing;
rows left pointing at nothing by a paper deleted while the keys were away (which the
key would have refused) are deleted before the key is added again.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction

from papers.models import CodeLink, Paper, PaperAuthor, PaperMethod, PaperTask

# The tables an archive import fills in bulk. On the papers table only the indexes the
# site alone reads (listing orders) wait; the import resolves papers by arXiv id.
MODELS = (Paper, PaperAuthor, PaperTask, PaperMethod, CodeLink)
KEEP = {"paper_arxiv_idx"}
SQLITE_MODELS = (PaperAuthor, PaperTask, PaperMethod, CodeLink)  # see the module's docstring
FOREIGN_KEY_MODELS = (PaperAuthor, PaperTask, PaperMethod, CodeLink)  # PostgreSQL only
FK_SUFFIX = "_fk_%(to_table)s_%(to_column)s"  # as Django's migrations name them
BUILD_MEMORY = "1GB"  # maintenance_work_mem while they are built (PostgreSQL)
SQLITE_BUILD_CACHE_KIB = 16 * 1024  # SQLite's page cache (and so sort memory) from then on
# Indexes whose PostgreSQL definition a migration made differently from the model's
# Meta (which must also suit SQLite): built as the migration built them. Migration 0004
# orders undated papers last; built from Meta instead, "newest first" lists and the
# has-code filter sorted every paper (a 2.3 GB sequential scan, ~0.5 s a page).
POSTGRES_DEFINITIONS = {
    "paper_published_idx": (
        "CREATE INDEX paper_published_idx ON papers_paper (published DESC NULLS LAST, id DESC)"
    ),
}
# PostgreSQL indexes no model declares (their kind exists on PostgreSQL alone), as their
# migrations made them: search's matches in id order (migration 0012), and those of the
# visible papers with code alone (0014).
POSTGRES_ONLY = {
    "papers_paper_search_gist": (
        "CREATE INDEX papers_paper_search_gist ON papers_paper "
        "USING gist (id, COALESCE(search_vector, ''::tsvector))"
    ),
    "papers_paper_code_search_gist": (
        "CREATE INDEX papers_paper_code_search_gist ON papers_paper "
        "USING gist (id, COALESCE(search_vector, ''::tsvector)) "
        "WHERE code_link_count > 0 AND NOT hidden"
    ),
}


def statements() -> dict[str, str]:
    """{index name: CREATE INDEX statement} of the deferrable indexes."""
    # Not entered as a context: only its SQL is wanted, and SQLite's editor refuses to
    # open inside a transaction (the import may run in a caller's).
    editor = connection.SchemaEditorClass(connection, collect_sql=True)
    out = {}
    for model in MODELS if connection.vendor == "postgresql" else SQLITE_MODELS:
        for statement in editor._model_indexes_sql(model):
            name = str(statement.parts["name"]).strip('"')
            if name not in KEEP and not str(statement).startswith("CREATE UNIQUE"):
                out[name] = POSTGRES_DEFINITIONS.get(name, str(statement))
    if connection.vendor == "postgresql":
        out.update(POSTGRES_ONLY)
    return out


@dataclass(frozen=True)
class ForeignKey:
    table: str
    column: str
    to_table: str
    to_column: str
    sql: str  # ALTER TABLE … ADD CONSTRAINT …, as the migrations made it


def foreign_keys() -> dict[str, ForeignKey]:
    """PostgreSQL: {constraint name: ForeignKey} of the deferrable foreign keys."""
    if connection.vendor != "postgresql":
        return {}
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


def _present_keys(names: list[str]) -> set[str]:
    """The named foreign keys that exist and are validated."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname FROM pg_constraint WHERE contype = 'f' AND convalidated "
            "AND connamespace = current_schema()::regnamespace AND conname = ANY(%s)",
            [names],
        )
        return {row[0] for row in cursor.fetchall()}


def _present(names: list[str]) -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'index' "
                f"AND name IN ({', '.join(['%s'] * len(names))})",
                names,
            )
        else:
            cursor.execute(
                "SELECT relname FROM pg_class WHERE relkind = 'i' "
                "AND relnamespace = current_schema()::regnamespace AND relname = ANY(%s)",
                [names],
            )
        return {row[0] for row in cursor.fetchall()}


def _lacking(wanted: dict, present) -> list[str]:
    """The names in `wanted` that `present(names)` does not return (in `wanted`'s order)."""
    if not wanted:
        return []
    found = present(list(wanted))
    return [name for name in wanted if name not in found]


def missing() -> list[str]:
    """The deferrable indexes and foreign keys the database lacks (an import deferred
    them)."""
    return _lacking(statements(), _present) + _lacking(foreign_keys(), _present_keys)


def _run_pending_checks(cursor) -> None:
    """PostgreSQL refuses DDL on a table with deferred foreign-key checks still pending
    (an import run inside a caller's transaction): run them now."""
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def drop() -> None:
    """Drop the deferrable indexes and foreign keys (committed at once)."""
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            _run_pending_checks(cursor)
        for name in statements():
            cursor.execute(f"DROP INDEX IF EXISTS {quote(name)}")
        for name, key in foreign_keys().items():
            cursor.execute(
                f"ALTER TABLE {quote(key.table)} DROP CONSTRAINT IF EXISTS {quote(name)}"
            )


def _add_key(cursor, name: str, key: ForeignKey) -> None:
    """Add a foreign key back (validating it), first deleting the rows that point at
    nothing if there are any."""
    quote = connection.ops.quote_name
    table, column = quote(key.table), quote(key.column)
    # missing() counts a key left NOT VALID as missing: replace it with a validated one.
    cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {quote(name)}")
    try:
        with transaction.atomic():
            cursor.execute(key.sql)
    except IntegrityError:
        cursor.execute(
            f"DELETE FROM {table} c WHERE c.{column} IS NOT NULL AND NOT EXISTS "
            f"(SELECT 1 FROM {quote(key.to_table)} t WHERE t.{quote(key.to_column)} = c.{column})"
        )
        cursor.execute(key.sql)


def build(keys: bool = True) -> None:
    """Create the deferrable indexes and (unless not `keys`) foreign keys the database
    lacks, in one transaction."""
    wanted, every_key = statements(), foreign_keys() if keys else {}
    todo = _lacking(wanted, _present)
    lacking = _lacking(every_key, _present_keys)
    if not todo and not lacking:
        return
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            _run_pending_checks(cursor)
            cursor.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
        else:
            # Each CREATE INDEX sorts in memory up to the page cache's size, beside the
            # cache itself: with the import's 128 MB cache the writer peaked 80 MB
            # higher (445 MB). The rest of the import reads little; shrink it.
            cursor.execute(f"PRAGMA cache_size = -{SQLITE_BUILD_CACHE_KIB}")
        for name in todo:
            cursor.execute(wanted[name])
        for name in lacking:
            _add_key(cursor, name, every_key[name])
