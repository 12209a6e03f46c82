"""PostgreSQL: a phrase of common words is found from an index of word pairs.

A phrase is checked against the positions in each candidate's search vector, and the
GIN index (0002) gives as candidates every paper that holds all its words: for a
phrase like "neural network", whose words are each in about half the archive, ~300,000
rows (3 KB each) read and checked to find the ~6,000 that hold the phrase (~1 s).

papers_word_pairs(vector) is a tsvector of the vector's adjacent pairs of COMMON words
("neural network" as one lexeme, holding a space, which no parsed word can), indexed by
papers_paper_pairs_gin; papers_pair_query(phrases) is the AND of the pairs each of the
phrases holds, NULL when none holds any. A search for a phrase of two common words
takes its candidates from the pair index (a lexeme's posting list, exact, so no row is
computed again) and checks the phrase only on those (papers.search.backends.postgresql,
PostgresBackend._matching). Pairs where a word is not common need no index: that word's
own posting list is already short.

The pairs come from the same vector, positions and all, that the phrase is checked
against, so a paper that holds a phrase always holds its pairs: the index only narrows
the candidates, it never decides a match. COMMON is fixed, because the index must hold
what the query asks for: the stems (PostgreSQL's english stemmer, as cwp_english gives
them) found in at least 10% of a sample of 5,250 of the archive's real abstracts; a
pair of them is in ~1% of papers or more. Changing it is a migration that creates the
function and its index again.

Building the index computes every paper's pairs (~25 us each: ~50 s at 576k papers on
2 cores, a SHARE lock on papers_paper: reads go on, writes wait; 25 MB). An import that
defers the other indexes builds this one at its end too
(papers.archive.engines.postgresql.indexes). SQLite: nothing to do (FTS5 checks a
phrase from its own position lists).
"""

from importlib import import_module

from django.db import migrations

# The statements, on PostgreSQL only.
_run = import_module("papers.migrations.0012_search_window_gist")._run

COMMON = """
    accuraci achiev adapt addit address algorithm allow also analysi appli applic
    approach architectur art attent avail base benchmark better case challeng class
    classif combin compar complex comput consid consist convolut data dataset decis
    deep demonstr design detect develop differ direct distribut domain due effect
    effici embed end estim evalu exist experi experiment extens extract featur find
    first focus framework function general generat given graph high howev human imag
    import improv includ increas infer inform input introduc knowledg label languag
    larg learn level limit low machin make mani method model multi multipl natur
    network neural new non novel number object observ obtain one optim order outperform
    paper paramet particular perform predict present previous problem process propos
    provid real recent recognit reduc relat represent requir research result robust
    sampl scale set sever show signific similar singl space specif state
    state-of-the-art structur studi supervis system task techniqu term test three time
    train two use various via well without work world
""".split()
INDEX = "papers_paper_pairs_gin"
WORDS = "{" + ",".join(COMMON) + "}"  # an array literal
# The vector's common words with their positions are those it weighs A once every
# lexeme is D and then COMMON A (setweight and ts_filter, in C: unnest() of the whole
# vector cost three times as much); the pairs are two such words one position apart.
WORD_PAIRS = f"""CREATE OR REPLACE FUNCTION papers_word_pairs(v tsvector) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    WITH w AS MATERIALIZED (
        SELECT lexeme, unnest(positions) AS p
        FROM unnest(ts_filter(setweight(setweight(v, 'D'), 'A', '{WORDS}'), '{{a}}'))
    )
    SELECT COALESCE(array_to_tsvector(array_agg(DISTINCT a.lexeme || ' ' || b.lexeme)), '')
    FROM w AS a JOIN w AS b ON b.p = a.p + 1
$$"""
PAIR_QUERY = """CREATE OR REPLACE FUNCTION papers_pair_query(phrases text[]) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT string_agg(DISTINCT quote_literal(pair), ' & ')::tsquery
    FROM unnest(phrases) AS phrase,
        unnest(tsvector_to_array(papers_word_pairs(to_tsvector('cwp_english', phrase)))) AS pair
$$"""
CREATE = (
    f"CREATE INDEX IF NOT EXISTS {INDEX} ON papers_paper "
    "USING gin (papers_word_pairs(search_vector))"
)
FORWARD = [WORD_PAIRS, PAIR_QUERY, "SET LOCAL maintenance_work_mem = '1GB'", CREATE]
BACKWARD = [
    f"DROP INDEX IF EXISTS {INDEX}",
    "DROP FUNCTION IF EXISTS papers_pair_query(text[])",
    "DROP FUNCTION IF EXISTS papers_word_pairs(tsvector)",
]


class Migration(migrations.Migration):
    dependencies = [("papers", "0025_search_window_published")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
