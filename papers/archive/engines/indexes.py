"""Secondary indexes that an import into an empty database builds once, at its end.

The list tables (papers' authors, tasks, methods) and the code links are written a few
thousand rows a batch, and each row went into every index of its table, keyed by author,
task, method or repository, so that each batch's rows land on pages all over them (on
SQLite every such page is written to the WAL again at each commit). Indexes that the
import itself never reads through are dropped with the full-text index (`drop()`, when
an import mostly adds papers, see the index plan in papers.archive.engines) and created
from sorted data when it ends (`build()`): what the import reads by (paper_id through
each table's unique constraint, slugs, arXiv ids) stays indexed throughout, and so do
unique constraints, which keep enforcing what they enforce.

Which indexes wait is each engine's plan (`IndexPlan`, one per engine: sqlite/indexes.py,
postgresql/indexes.py); an engine without one defers none. The statements come from the
models (Django's own index SQL, the names the migrations gave), and from the plan's
own definitions where a migration made an index the models cannot declare, so an index
is "deferred" exactly when the plan names it and the database lacks it: an import killed
before `build()` leaves them missing, and the next import sees that (`missing()`) and
builds them when it ends.

A plan may defer foreign keys too (`foreign_keys()`; PostgreSQL's does). Added back at
the end, each is checked by one join over the whole table. The import writes a row only
with the row it references (in the same batch or before), so the check finds nothing;
rows left pointing at nothing by a paper deleted while the keys were away (which the
key would have refused) are deleted before the key is added again.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, connection, models, transaction

FK_SUFFIX = "_fk_%(to_table)s_%(to_column)s"  # as Django's migrations name them


@dataclass(frozen=True)
class ForeignKey:
    table: str
    column: str
    to_table: str
    to_column: str
    sql: str  # ALTER TABLE … ADD CONSTRAINT …, as the migrations made it


class IndexPlan:
    """The indexes (and foreign keys) an engine's bulk import defers: the base defers
    nothing."""

    # The tables whose secondary indexes wait, and the indexes of theirs that do not.
    MODELS: tuple[type[models.Model], ...] = ()
    KEEP: frozenset[str] = frozenset()
    # Indexes a migration made otherwise than the model's Meta says: built as it did.
    DEFINITIONS: dict[str, str] = {}
    # Indexes no model declares, as their migrations made them.
    EXTRA: dict[str, str] = {}

    def statements(self) -> dict[str, str]:
        """{index name: CREATE INDEX statement} of the deferrable indexes."""
        if not self.MODELS:
            return {}
        # Not entered as a context: only its SQL is wanted, and SQLite's editor refuses
        # to open inside a transaction (the import may run in a caller's).
        editor = connection.SchemaEditorClass(connection, collect_sql=True)
        out = {}
        for model in self.MODELS:
            for statement in editor._model_indexes_sql(model):
                name = str(statement.parts["name"]).strip('"')
                if name not in self.KEEP and not str(statement).startswith("CREATE UNIQUE"):
                    out[name] = self.DEFINITIONS.get(name, str(statement))
        out.update(self.EXTRA)
        return out

    def foreign_keys(self) -> dict[str, ForeignKey]:
        """{constraint name: ForeignKey} of the deferrable foreign keys."""
        return {}

    def present(self, names: list[str]) -> set[str]:
        """The named indexes that exist."""
        raise NotImplementedError

    def present_keys(self, names: list[str]) -> set[str]:
        """The named foreign keys that exist and are validated."""
        raise NotImplementedError

    def before_ddl(self, cursor) -> None:
        """Before the plan's DDL, in its transaction."""

    def build_settings(self, cursor) -> None:
        """The memory the builds are given, in their transaction."""

    def missing(self) -> list[str]:
        """The deferrable indexes and foreign keys the database lacks (an import deferred
        them)."""
        return _lacking(self.statements(), self.present) + _lacking(
            self.foreign_keys(), self.present_keys
        )

    def drop(self) -> None:
        """Drop the deferrable indexes and foreign keys (committed at once)."""
        quote = connection.ops.quote_name
        with transaction.atomic(), connection.cursor() as cursor:
            self.before_ddl(cursor)
            for name in self.statements():
                cursor.execute(f"DROP INDEX IF EXISTS {quote(name)}")
            for name, key in self.foreign_keys().items():
                cursor.execute(
                    f"ALTER TABLE {quote(key.table)} DROP CONSTRAINT IF EXISTS {quote(name)}"
                )

    def build(self, keys: bool = True) -> None:
        """Create the deferrable indexes and (unless not `keys`) foreign keys the database
        lacks, in one transaction."""
        wanted, every_key = self.statements(), self.foreign_keys() if keys else {}
        todo = _lacking(wanted, self.present)
        lacking = _lacking(every_key, self.present_keys)
        if not todo and not lacking:
            return
        with transaction.atomic(), connection.cursor() as cursor:
            self.before_ddl(cursor)
            self.build_settings(cursor)
            for name in todo:
                cursor.execute(wanted[name])
            for name in lacking:
                _add_key(cursor, name, every_key[name])


def _lacking(wanted: dict, present) -> list[str]:
    """The names in `wanted` that `present(names)` does not return (in `wanted`'s order)."""
    if not wanted:
        return []
    found = present(list(wanted))
    return [name for name in wanted if name not in found]


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
