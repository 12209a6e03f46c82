"""PostgreSQL: find a common query's first matches by id without reading every row.

A search above the count cap ranks its first matches by id (papers.search.backends). In
id order the primary key was the only way there, and it reads every paper's row on the
way to check its search vector: for three common words (one paper in five matches
every word) ~52,600 rows, 3 KB each, to find the 10,001 that match, most of them read
from the OS page cache into PostgreSQL's default 128 MB of shared buffers.

papers_paper_search_gist holds (id, search vector) the way GiST keeps a vector (its
lexemes hashed; btree_gist for the id) and yields the matches nearest to id 0 first,
i.e. by id (`ORDER BY id <-> 0`): a row is read only once its hashed lexemes hold
every word, to confirm the match and rank it. It indexes the vector under an
expression of its own, `COALESCE(search_vector, '')` (the same vector, not copied: a
copy such as `search_vector || ''` cost ~3 us a row to check): a search that names the
plain column can only use the GIN index, so the planner, which cannot tell that a
lossy GiST scan checks every entry for a rare word, never picks it there.

papers_search_in_id_order(matches, window) says which of the two a search should use:
PostgreSQL's own estimate of how many papers the statement `matches` (the search's
filtered matches) selects, against the table's size and the window. The search asks it
once per query, inside the query (see PostgresBackend._window).

VACUUM first: migration 0008 rewrote a row per paper with code or samples, and until
vacuumed every index (the GIN index too) still points at the old rows. Then the index
is built (~30 s at 576k papers on 2 cores, a SHARE lock on papers_paper: reads go on,
writes wait). An import that defers the other indexes builds this one at its end too
(papers.archive.engines.postgresql.indexes). btree_gist is a contrib extension, shipped
with PostgreSQL like unaccent (0002), and trusted: a database owner may create it.
SQLite: nothing to do (FTS5 yields matches in rowid order).
"""

from django.db import migrations

INDEX = "papers_paper_search_gist"
IN_ID_ORDER = """CREATE OR REPLACE FUNCTION papers_search_in_id_order(matches text, window_rows integer)
RETURNS boolean LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED AS $$
DECLARE
    plan json;
    found float8;
    papers float8;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || matches INTO plan;
    found := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
    SELECT GREATEST(reltuples, 1) INTO papers FROM pg_class WHERE oid = 'papers_paper'::regclass;
    -- Walking the GiST index to the window's end checks papers * window / found
    -- entries (~0.5 us each) and reads window rows; the GIN index reads every match
    -- (~4 us each) and sorts them: the walk wins from about found^2 = papers * window / 8.
    RETURN found * found * 8 >= papers * window_rows;
END
$$"""
FORWARD = [
    "VACUUM (ANALYZE) papers_paper",
    "CREATE EXTENSION IF NOT EXISTS btree_gist",
    f"CREATE INDEX IF NOT EXISTS {INDEX} ON papers_paper "
    "USING gist (id, COALESCE(search_vector, ''::tsvector))",
    IN_ID_ORDER,
]
BACKWARD = [
    "DROP FUNCTION IF EXISTS papers_search_in_id_order(text, integer)",
    f"DROP INDEX IF EXISTS {INDEX}",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    atomic = False  # VACUUM cannot run inside a transaction block

    dependencies = [("papers", "0011_paper_frameworks_sample_statuses")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
