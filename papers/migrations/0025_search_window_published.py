"""PostgreSQL: a search within a range of years checks the range in the walked index.

A common word's window is walked in id order through papers_paper_search_gist (0012)
or, for papers with code, papers_paper_code_search_gist (0014), and every entry whose
hashed lexemes hold the words is a heap row read. A range of years was checked only
there: `learning` in 2018-2019 read ~62,000 rows (3 KB each) to keep the window's
10,001. With the publication date in the index (btree_gist's date operators) the range
is an index condition, and only the rows in it are read (~10,200).

The walk's cost model (papers_search_in_id_order) already counts the range, since it
estimates the filtered matches. Both indexes are built again (~15 s each at 576k papers
on 2 cores, a SHARE lock on papers_paper: reads go on, writes wait). SQLite: nothing to
do (its filters are checked in a covering index, migration 0017).
"""

from django.db import migrations

VECTOR = "COALESCE(search_vector, ''::tsvector)"
CODE = "WHERE code_link_count > 0 AND NOT hidden"
INDEXES = {  # name: (columns as 0012 and 0014 made them, as they are now, condition)
    "papers_paper_search_gist": (f"id, {VECTOR}", f"id, published, {VECTOR}", ""),
    "papers_paper_code_search_gist": (f"id, {VECTOR}", f"id, published, {VECTOR}", CODE),
}


def _rebuild(which: int):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for name, definition in INDEXES.items():
            columns, condition = definition[which], definition[2]
            schema_editor.execute(f"DROP INDEX IF EXISTS {name}")
            schema_editor.execute(
                f"CREATE INDEX {name} ON papers_paper USING gist ({columns}) {condition}"
            )

    return run


class Migration(migrations.Migration):
    dependencies = [("papers", "0024_accounts")]

    operations = [migrations.RunPython(_rebuild(1), _rebuild(0))]
