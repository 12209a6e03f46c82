"""SQLite: the full-text index merged into one segment.

An import that builds the FTS5 index whole (SQLiteIndex.build) now merges its segments
at the end (papers.search.backends.sqlite.OPTIMIZE); a database imported before is
merged here once (~17 s at 576k papers). PostgreSQL: nothing to do.
"""

from django.db import migrations


def merge(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("INSERT INTO papers_paper_fts(papers_paper_fts) VALUES ('optimize')")


class Migration(migrations.Migration):
    dependencies = [("papers", "0027_search_window_sampled")]

    operations = [migrations.RunPython(merge, migrations.RunPython.noop)]
