"""The full-text engines behind papers.search, one module per database engine, chosen
here by the connection's engine (as django-modelsearch chooses its backends): the only
place search asks which engine it runs on.

- `backend_for()`: the engine's Backend for one search of a filtered set of papers;
- `index_for()`: the engine's FullTextIndex, which bulk writes keep in step
  (papers.search.index);
- `facet_counts()`: facet counts over a set of matches (papers.search.facets), in the
  engine's SQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet

from papers.search.backends.base import Backend, FullTextIndex
from papers.search.backends.postgresql import PostgresBackend
from papers.search.backends.sqlite import SQLiteBackend
from papers.search.facets import facet_selects, facets_from
from papers.search.query import ParsedQuery

BACKENDS: dict[str, type[Backend]] = {"sqlite": SQLiteBackend, "postgresql": PostgresBackend}


def backend_class(connection: BaseDatabaseWrapper) -> type[Backend]:
    """The Backend of the connection's engine."""
    try:
        return BACKENDS[connection.vendor]
    except KeyError:
        raise NotImplementedError(f"no full-text search for {connection.vendor}") from None


def backend_for(
    parsed: ParsedQuery, base: QuerySet, narrowed_by: Sequence[QuerySet] = ()
) -> Backend:
    """The search for `parsed` within `base` (a Paper queryset), on its database."""
    return backend_class(connections[base.db])(parsed, base, narrowed_by)


def index_for(connection: BaseDatabaseWrapper) -> FullTextIndex:
    """The full-text index of the connection's database."""
    return backend_class(connection).index_class(connection)


def facet_counts(matches_sql: str, params, using: str) -> dict[str, dict[str, int]]:
    """Counts over the papers `matches_sql` selects on the database `using`; it must give
    facets.FACET_COLUMNS, one row a paper."""
    connection = connections[using]
    keys = backend_class(connection).JSON_KEYS
    sql = f"WITH m AS MATERIALIZED ({matches_sql}) {facet_selects(keys)}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return facets_from(cursor.fetchall())
