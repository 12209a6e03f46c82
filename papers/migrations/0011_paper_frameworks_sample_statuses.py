"""Each paper's code links by framework and samples by status, kept on the paper.

Search filters and facets read them from the paper's row instead of counting code
links and samples for every request (refresh_counts() keeps them, as it keeps the
counts beside them). Existing rows are filled from their links and samples here.

On SQLite the columns are added in place (`ALTER TABLE … ADD COLUMN … DEFAULT`):
Django would rebuild the table for a NOT NULL column, copying every paper and dropping
the triggers that keep the full-text index. SQLite also gets a covering index of what
the search filters and orders read (paper_search_idx, see papers.search.backends): a
match is checked in its entry, not in the paper's wide row. PostgreSQL reads those
columns from the row it checks the match on (STORAGE MAIN keeps them in it), and adds
the columns without a rewrite.
"""

from django.db import migrations, models

FIELDS = {
    "frameworks": "The code links' frameworks: {framework: number of links}.",
    "sample_statuses": "The execution report's samples by status: {status: number of samples}.",
}
SEARCH_INDEX = (
    "CREATE INDEX paper_search_idx ON papers_paper (id, hidden, published, code_link_count, "
    "has_official_code, sample_count, frameworks, sample_statuses)"
)
FILL = {
    "sqlite": [
        """UPDATE papers_paper SET frameworks = (
            SELECT json_group_object(framework, n) FROM (
                SELECT framework, COUNT(*) AS n FROM papers_codelink
                WHERE paper_id = papers_paper.id AND framework <> ''
                GROUP BY framework ORDER BY framework))
        WHERE id IN (SELECT paper_id FROM papers_codelink WHERE framework <> '')""",
        """UPDATE papers_paper SET sample_statuses = (
            SELECT json_group_object(status, n) FROM (
                SELECT status, COUNT(*) AS n FROM papers_sample
                WHERE paper_id = papers_paper.id GROUP BY status ORDER BY status))
        WHERE id IN (SELECT paper_id FROM papers_sample)""",
    ],
    "postgresql": [
        """UPDATE papers_paper p SET frameworks = f.counts FROM (
            SELECT paper_id, jsonb_object_agg(framework, n) AS counts FROM (
                SELECT paper_id, framework, COUNT(*) AS n FROM papers_codelink
                WHERE framework <> '' GROUP BY paper_id, framework) AS links
            GROUP BY paper_id) AS f
        WHERE p.id = f.paper_id""",
        """UPDATE papers_paper p SET sample_statuses = s.counts FROM (
            SELECT paper_id, jsonb_object_agg(status, n) AS counts FROM (
                SELECT paper_id, status, COUNT(*) AS n FROM papers_sample
                GROUP BY paper_id, status) AS samples
            GROUP BY paper_id) AS s
        WHERE p.id = s.paper_id""",
    ],
}


def _field(name: str) -> models.JSONField:
    field = models.JSONField(blank=True, default=dict, editable=False, help_text=FIELDS[name])
    field.set_attributes_from_name(name)
    return field


def forward(apps, schema_editor):
    paper = apps.get_model("papers", "Paper")
    vendor = schema_editor.connection.vendor
    for name in FIELDS:
        if vendor == "sqlite":
            schema_editor.execute(
                f'ALTER TABLE papers_paper ADD COLUMN "{name}" text NOT NULL '
                f"DEFAULT '{{}}' CHECK (JSON_VALID(\"{name}\"))"
            )
        else:
            schema_editor.add_field(paper, _field(name))
            # Kept in the row, as the search vector is (0003): a row whose vector is
            # large has every other value it can move out moved to TOAST, and a search
            # reading a match's frameworks then fetched them from there (~5 µs a match).
            schema_editor.execute(
                f'ALTER TABLE papers_paper ALTER COLUMN "{name}" SET STORAGE MAIN'
            )
    for statement in FILL.get(vendor, []):
        schema_editor.execute(statement)
    if vendor == "sqlite":
        schema_editor.execute(SEARCH_INDEX)


def backward(apps, schema_editor):
    paper = apps.get_model("papers", "Paper")
    sqlite = schema_editor.connection.vendor == "sqlite"
    if sqlite:
        schema_editor.execute("DROP INDEX IF EXISTS paper_search_idx")
    for name in FIELDS:
        if sqlite:
            schema_editor.execute(f'ALTER TABLE papers_paper DROP COLUMN "{name}"')
        else:
            schema_editor.remove_field(paper, _field(name))


class Migration(migrations.Migration):
    dependencies = [("papers", "0010_catalogue_counts")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forward, backward)],
            state_operations=[
                migrations.AddField(model_name="paper", name=name, field=_field(name))
                for name in FIELDS
            ],
        )
    ]
