"""PostgreSQL: a GiST index that yields a query's matches in id order.

A search above the count cap ranks its first matches by id (papers.search.backends). In
id order the primary key was the only way there, and it reads every paper's row on the
way to check its search vector: for three common words (one paper in five matches
every word) ~52,600 rows, 3 KB each, to find the 10,001 that match, most of them read
from the OS page cache into PostgreSQL's default 128 MB of shared buffers.

This index holds (id, search vector) in the form GiST keeps a vector in (its lexemes
hashed, btree_gist for the id) and gives the matches nearest to id 0 first, i.e. by
id (`ORDER BY id <-> 0`): a row is read only once its vector's hashed lexemes hold
every word, to confirm the match and rank it. The GIN index still answers rare words
(the planner picks one or the other by the query's estimated matches). An import that
defers the other indexes builds this one at its end too (papers.archive.indexes).

btree_gist is a contrib extension, shipped with PostgreSQL like unaccent (migration
0002) and trusted: a database owner may create it. Built in ~30 s at 576k papers (2
cores), holding a SHARE lock on papers_paper (reads go on, writes wait). SQLite:
nothing to do (FTS5 yields matches in rowid order).
"""

from django.db import migrations

INDEX = "papers_paper_search_gist"
FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS btree_gist",
    f"CREATE INDEX IF NOT EXISTS {INDEX} ON papers_paper USING gist (id, search_vector)",
]
BACKWARD = [f"DROP INDEX IF EXISTS {INDEX}"]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("papers", "0008_paper_frameworks_sample_statuses")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
