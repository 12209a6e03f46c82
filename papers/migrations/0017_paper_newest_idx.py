"""Newest-first lists sort a paper whose date is flagged uncertain with the undated ones.

A placeholder date past the snapshot (2099-12-15) sorted before every real date in each
newest-first list. Lists now order by whether the paper has a certain date, then by that
date, then by id (papers.models.papers.NEWEST_FIRST), and paper_newest_idx serves that
order as paper_published_idx served the old one (kept: the year filters read ranges of
dates). Its first key puts the undated last, so no NULLS LAST is needed, which SQLite
cannot say in an index: the index is the same on both engines.

SQLite's search window reads each match's columns from paper_search_idx (0011): the
order now reads date_uncertain too, so that index is rebuilt with it.
"""

import django.db.models.lookups
from django.db import migrations, models

LISTED_DATE = models.Case(
    models.When(
        models.ExpressionWrapper(models.F("date_uncertain"), models.BooleanField()),
        then=models.Value(None),
    ),
    default=models.F("published"),
    output_field=models.DateField(),
)
SEARCH_INDEX = (
    "CREATE INDEX paper_search_idx ON papers_paper (id, hidden, published, {}code_link_count, "
    "has_official_code, sample_count, frameworks, sample_statuses)"
)


def _search_index(columns: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute("DROP INDEX IF EXISTS paper_search_idx")
            schema_editor.execute(SEARCH_INDEX.format(columns))

    return run


class Migration(migrations.Migration):
    dependencies = [("papers", "0016_metric_directions_by_metric")]

    operations = [
        migrations.AddIndex(
            model_name="paper",
            index=models.Index(
                django.db.models.lookups.IsNull(LISTED_DATE, True).asc(),
                LISTED_DATE.desc(),
                models.F("id").desc(),
                name="paper_newest_idx",
            ),
        ),
        migrations.RunPython(_search_index("date_uncertain, "), _search_index("")),
    ]
