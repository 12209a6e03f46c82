"""SQL helpers every bulk writer shares: batched INSERT, UPDATE, DELETE and SELECT
without the ORM's per-object cost, and the chunking of IN (...) lists.

At archive scale Django's bulk_create spends most of its time compiling SQL
(one placeholder tuple per object and field). These helpers build one
statement per table and run it with `executemany` (psycopg 3 pipelines it;
sqlite3 loops in C); values are converted once per column with the field's own
`get_db_prep_save`, so the database sees exactly what the ORM would write.
Columns a caller does not give take the model field's default.

What differs between engines (how ids are reserved, how rows go in: COPY on
PostgreSQL, how a JSON parameter is cast) each engine's operations do
(`connection.ops`, codewithpapers.backends).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.db import connection, models
from django.utils import timezone

# Values per IN (...) list (and so per statement's parameters): under SQLite's limit on
# a statement's variables in every build it ships with (999 before 3.32).
CHUNK = 900

_PLAIN = (
    models.CharField,
    models.TextField,
    models.IntegerField,
    models.BooleanField,
    models.FloatField,
    models.ForeignKey,
)


def chunks(items: Sequence, size: int = CHUNK) -> Iterator[Sequence]:
    """`items` in consecutive pieces of at most `size`."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _columns(model: type[models.Model], names: Sequence[str]) -> list[models.Field]:
    return [model._meta.get_field(name) for name in names]


def _converter(field: models.Field):
    if isinstance(field, _PLAIN) and not isinstance(field, models.JSONField):
        return None  # the driver takes str/int/bool/None as they are
    if isinstance(field, models.JSONField):
        return _json_converter  # the placeholder casts it on PostgreSQL
    if isinstance(field, models.DateField | models.DateTimeField):
        # Dates repeat (every row of a batch has the same created_at): convert each once.
        @functools.lru_cache(maxsize=4096)
        def convert_date(value):
            return field.get_db_prep_save(value, connection)

        return convert_date
    return lambda value: field.get_db_prep_save(value, connection)


def _json_converter(value):
    if value is None:
        return None
    if not value and type(value) in (dict, list):  # most rows' extra: spare json.dumps
        return "{}" if type(value) is dict else "[]"
    return json.dumps(value, ensure_ascii=False)


def _placeholder(field: models.Field) -> str:
    if isinstance(field, models.JSONField):
        return connection.ops.json_placeholder
    return "%s"


def _prepare(fields: list[models.Field], rows: Iterable[Sequence[Any]]) -> list[tuple]:
    converters = [(i, c) for i, f in enumerate(fields) if (c := _converter(f)) is not None]
    if not converters:
        return [tuple(row) for row in rows]
    # Only the columns that need it are converted (a paper's row: 7 of 33), in a copy of
    # the row: a generator over every value, with a json.dumps of each empty JSON value,
    # costs the writer several times as much.
    width = len(fields)
    out = []
    for row in rows:
        values = list(row)
        if len(values) != width:
            raise ValueError(f"a row of {len(values)} values for {width} columns")
        for i, convert in converters:
            values[i] = convert(values[i])
        out.append(tuple(values))
    return out


def _defaults(model: type[models.Model], given: Sequence[str]) -> tuple[list[str], tuple]:
    """The columns a caller did not give, and the value each takes (the same for every row
    of one statement: the field's default, or now for created_at/updated_at)."""
    now = timezone.now()
    rest = [
        f
        for f in model._meta.concrete_fields
        if not f.primary_key and f.attname not in given and f.name not in given
    ]
    values = tuple(
        now if field.name in {"created_at", "updated_at"} else field.get_default()
        for field in rest  # get_default(): "" for non-null text, None for nullable
    )
    return [f.attname for f in rest], values


def full_rows(
    model: type[models.Model], given: Sequence[str], rows: Iterable[Sequence[Any]]
) -> tuple[list[str], list[tuple]]:
    """Extend rows of `given` columns with every other concrete column's default."""
    names, tail = _defaults(model, given)
    return [*given, *names], [(*row, *tail) for row in rows]


def reserve_ids(model: type[models.Model], count: int) -> list[int]:
    """`count` primary keys for rows about to be inserted, so the caller knows them
    without reading the rows back. Must run inside the transaction that inserts them:
    on SQLite that transaction holds the write lock (BEGIN IMMEDIATE), so no other writer
    can take the same ids; on PostgreSQL they come from the table's own sequence."""
    if count <= 0:
        return []
    return connection.ops.reserve_ids(model._meta.db_table, model._meta.pk.column, count)


def insert_rows(
    model: type[models.Model],
    names: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    ignore_conflicts: bool = False,
    complete: bool = True,
    raw: Sequence[str] = (),
) -> int:
    """INSERT rows (tuples in `names` order, then the values of the `raw` columns, which
    the model does not declare and which go to the database as they are); other columns
    get their defaults."""
    rows = list(rows)
    if not rows:
        return 0
    if raw:
        extra = [row[len(names) :] for row in rows]
        rows = [row[: len(names)] for row in rows]
    fields = _columns(model, names)
    prepared = _prepare(fields, rows)
    if complete:
        # The other columns' values are the same for every row: convert them once.
        rest, tail = _defaults(model, names)
        rest_fields = _columns(model, rest)
        tail = _prepare(rest_fields, [tail])[0]
        fields += rest_fields
        prepared = [row + tail for row in prepared]
    columns = [*(f.column for f in fields), *raw]
    if raw:
        prepared = [row + more for row, more in zip(prepared, extra, strict=True)]
    placeholders = [*(_placeholder(f) for f in fields), *(["%s"] * len(raw))]
    connection.ops.insert_rows(
        model._meta.db_table, columns, placeholders, prepared, ignore_conflicts=ignore_conflicts
    )
    return len(rows)


def update_rows(
    model: type[models.Model], names: Sequence[str], rows: Iterable[Sequence[Any]]
) -> int:
    """UPDATE by primary key: each row is (*values in `names` order, pk)."""
    rows = list(rows)
    if not rows:
        return 0
    fields = _columns(model, names)
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(f.column)} = {_placeholder(f)}" for f in fields)
    table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
    sql = f"UPDATE {table} SET {sets} WHERE {pk} = %s"
    prepared = _prepare([*fields, model._meta.pk], rows)
    with connection.cursor() as cursor:
        cursor.executemany(sql, prepared)
    return len(rows)


def delete_where_in(model: type[models.Model], column: str, values: Sequence[Any]) -> None:
    """DELETE FROM table WHERE column IN (...), in chunks, without loading rows."""
    quote = connection.ops.quote_name
    values = list(values)
    with connection.cursor() as cursor:
        for part in chunks(values):
            cursor.execute(
                f"DELETE FROM {quote(model._meta.db_table)} WHERE {quote(column)} "
                f"IN ({', '.join(['%s'] * len(part))})",
                part,
            )


def select_rows(
    model: type[models.Model],
    key: str,
    values: Iterable[Any],
    only: Sequence[str],
    filters: dict[str, Any] | None = None,
) -> list[dict]:
    """Rows whose `key` is among `values` (and which match `filters`), as dicts of `only`.

    Plain columns (text, numbers, booleans, foreign keys) are read with raw SQL, which
    at this scale is several times cheaper than building an ORM query per chunk;
    anything else goes through the ORM so values come back as Python types.
    """
    values = list(dict.fromkeys(values))
    filters = filters or {}
    fields = _columns(model, [key, *only, *filters])
    plain = all(isinstance(f, _PLAIN) and not isinstance(f, models.JSONField) for f in fields)
    rows: list[dict] = []
    if not plain:
        for part in chunks(values):
            rows.extend(model.objects.filter(**filters, **{f"{key}__in": part}).values(*only))
        return rows
    quote = connection.ops.quote_name
    columns = ", ".join(quote(model._meta.get_field(name).column) for name in only)
    where = "".join(f"{quote(model._meta.get_field(name).column)} = %s AND " for name in filters)
    key_column = quote(model._meta.get_field(key).column)
    with connection.cursor() as cursor:
        for part in chunks(values):
            cursor.execute(
                f"SELECT {columns} FROM {quote(model._meta.db_table)} WHERE {where}"
                f"{key_column} IN ({', '.join(['%s'] * len(part))})",
                [*filters.values(), *part],
            )
            rows.extend(dict(zip(only, row, strict=True)) for row in cursor.fetchall())
    return rows
