"""PostgreSQL: the walk-or-GIN choice counts a query's words on a sample of papers.

papers_search_in_id_order (0012) chose between walking a query's matches in id order
and having the GIN index find them all from PostgreSQL's estimate of the matches, which
takes a paper's words to be independent: for "state", "art", "learning" and "graph"
it expected ~13,600 papers to hold all four, where 44,209 do (the first two nearly
always come together). Sent to the GIN index, those 44,209 rows were read and sorted to
rank the first 10,001 (~300 ms), where the walk reads ~10,000.

papers_search_estimate(matches, words) is that estimate and, given `words` (the
query's condition on the search vector, for a query of more than one group), also
counts the papers that meet it among a fixed sample of the table's pages (~1,000
papers, TABLESAMPLE SYSTEM with a fixed seed: the same pages while the table keeps its
size; ~4 ms when its pages are cached), and scales the filtered estimate by how far the
planner's estimate of that condition alone is off. Too small a sample (a small table)
leaves the estimate as it was. papers_search_in_id_order(matches, words, window) decides
from it as before; a search also asks it whether a word being typed is worth counting
as typed first (PostgresBackend.expected_matches). SQLite: nothing to do.
"""

from importlib import import_module

from django.db import migrations

SAMPLED_PAPERS = 1000
ESTIMATE = f"""CREATE OR REPLACE FUNCTION papers_search_estimate(matches text, words text)
RETURNS float8 LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED AS $$
DECLARE
    plan json;
    found float8;
    papers float8;
    expected float8;
    sampled float8;
    hits float8;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || matches INTO plan;
    found := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
    IF words IS NOT NULL THEN
        SELECT GREATEST(reltuples, 1) INTO papers FROM pg_class
        WHERE oid = 'papers_paper'::regclass;
        EXECUTE 'SELECT count(*), count(*) FILTER (WHERE ' || words || ') FROM papers_paper '
            || 'TABLESAMPLE SYSTEM (' || LEAST(100, 100 * {SAMPLED_PAPERS} / papers) || ') '
            || 'REPEATABLE (0)' INTO sampled, hits;
        IF sampled >= {SAMPLED_PAPERS} / 4 THEN
            EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM papers_paper WHERE ' || words INTO plan;
            expected := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
            found := found * (hits / sampled * papers) / GREATEST(expected, 1);
        END IF;
    END IF;
    RETURN found;
END
$$"""
IN_ID_ORDER = """CREATE OR REPLACE FUNCTION papers_search_in_id_order(
    matches text, words text, window_rows integer
) RETURNS boolean LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED AS $$
DECLARE
    found float8 := papers_search_estimate(matches, words);
    papers float8;
BEGIN
    SELECT GREATEST(reltuples, 1) INTO papers FROM pg_class WHERE oid = 'papers_paper'::regclass;
    -- Walking the GiST index to the window's end checks papers * window / found
    -- entries (~0.5 us each) and reads window rows; the GIN index reads every match
    -- (~4 us each) and sorts them: the walk wins from about found^2 = papers * window / 8.
    RETURN found * found * 8 >= papers * window_rows;
END
$$"""
_0012 = import_module("papers.migrations.0012_search_window_gist")
BEFORE = _0012.IN_ID_ORDER  # the function as 0012 made it, for the way back
_run = _0012._run  # the statements, on PostgreSQL only
FORWARD = [
    "DROP FUNCTION IF EXISTS papers_search_in_id_order(text, integer)",
    ESTIMATE,
    IN_ID_ORDER,
]
BACKWARD = [
    "DROP FUNCTION IF EXISTS papers_search_in_id_order(text, text, integer)",
    "DROP FUNCTION IF EXISTS papers_search_estimate(text, text)",
    BEFORE,
]


class Migration(migrations.Migration):
    dependencies = [("papers", "0026_search_word_pairs")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
