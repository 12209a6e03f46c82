"""PostgreSQL: paper_published_idx orders undated papers last, as SQLite does.

"Newest first" lists (search without words, the newest sort, the admin) order by
`published DESC NULLS LAST, id DESC` on both engines. SQLite's DESC already puts NULL
last and its index serves that order; PostgreSQL's DESC puts NULL first, so its index
is rebuilt with NULLS LAST to keep serving the order without sorting every paper.
The model's Meta keeps `fields=["-published", "-id"]`: SQLite cannot declare NULLS
LAST in an index, and on PostgreSQL this migration owns the index's definition.
"""

from django.db import migrations

DEFINITIONS = {
    "forward": "(published DESC NULLS LAST, id DESC)",
    "backward": "(published DESC, id DESC)",
}


def _index(direction: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute("DROP INDEX IF EXISTS paper_published_idx")
        schema_editor.execute(
            f"CREATE INDEX paper_published_idx ON papers_paper {DEFINITIONS[direction]}"
        )

    return run


class Migration(migrations.Migration):
    dependencies = [("papers", "0003_search_vector_inline")]

    operations = [migrations.RunPython(_index("forward"), _index("backward"))]
