"""PostgreSQL: a search limited to papers with code walks only papers with code.

papers_paper_search_gist (0012) yields a common query's matches in id order, but every
match it yields is a row to read, and the has-code and framework filters can only be
checked there: for `learning` with code in PyTorch, ~40,000 rows (3 KB each, more than
the default 128 MB of shared buffers hold) to find the window's 10,001. The same index
over the visible papers with code alone (two in five) yields only those: ~17,000 rows,
which stay in the buffers. The planner takes it wherever a search's filters imply its
condition (the has-code and framework filters, with the visible papers every search
starts from); papers_search_in_id_order() decides between walking and the GIN index as
before. SQLite: nothing to do (FTS5 yields matches in rowid order, filters check the
paper's own counts).
"""

from django.db import migrations

INDEX = "papers_paper_code_search_gist"
CREATE = (
    f"CREATE INDEX IF NOT EXISTS {INDEX} ON papers_paper "
    "USING gist (id, COALESCE(search_vector, ''::tsvector)) "
    "WHERE code_link_count > 0 AND NOT hidden"
)


def _run(statement):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("papers", "0013_curated_execution_counts")]

    operations = [
        migrations.RunPython(_run(CREATE), _run(f"DROP INDEX IF EXISTS {INDEX}")),
    ]
