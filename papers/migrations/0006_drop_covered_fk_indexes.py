"""Drop the foreign keys' own indexes where another index starts with the same column.

Each was a copy of the first column of a unique constraint or a composite index (the
author list's `paper_id` beside unique (paper_id, position), `author_id` beside
(author_id, paper_id), ...): lookups and cascades use the longer index as well, and
every row an archive import writes went into each copy. papers_paperauthor drops from
five B-trees to three.

Django's AlterField would remake each table on SQLite (twenty copies of the large ones),
so the database side drops the indexes by name instead (the names Django gave them).
"""

import django.db.models.deletion
from django.db import migrations, models

FIELDS = [
    ("codelink", "paper"), ("codelink", "repository"),
    ("leaderboard", "dataset"), ("leaderboard", "task"),
    ("leaderboardmetric", "leaderboard"),
    ("leaderboardrow", "leaderboard"), ("leaderboardrow", "paper"),
    ("paperauthor", "author"), ("paperauthor", "paper"),
    ("paperdataset", "dataset"), ("paperdataset", "paper"),
    ("papermethod", "method"), ("papermethod", "paper"),
    ("papertask", "paper"), ("papertask", "task"),
    ("relatedpaper", "paper"), ("reportrepository", "paper"),
    ("sample", "paper"), ("sample", "repository"),
    ("taskedge", "parent"),
]  # fmt: skip


def _index(schema_editor, apps, model_name, field_name):
    model = apps.get_model("papers", model_name)
    field = model._meta.get_field(field_name)
    table = model._meta.db_table
    name = schema_editor._create_index_name(table, [field.column], suffix="")
    quote = schema_editor.quote_name
    return name, f"CREATE INDEX {quote(name)} ON {quote(table)} ({quote(field.column)})"


def drop(apps, schema_editor):
    for model_name, field_name in FIELDS:
        name, _ = _index(schema_editor, apps, model_name, field_name)
        schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


def create(apps, schema_editor):
    for model_name, field_name in FIELDS:
        schema_editor.execute(_index(schema_editor, apps, model_name, field_name)[1])


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0005_search_filter_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop, create)],
            state_operations=[
                migrations.AlterField(
                    model_name="codelink",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="code_links",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="codelink",
                    name="repository",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="code_links",
                        to="papers.repository",
                    ),
                ),
                migrations.AlterField(
                    model_name="leaderboard",
                    name="dataset",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="leaderboards",
                        to="papers.dataset",
                    ),
                ),
                migrations.AlterField(
                    model_name="leaderboard",
                    name="task",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="leaderboards",
                        to="papers.task",
                    ),
                ),
                migrations.AlterField(
                    model_name="leaderboardmetric",
                    name="leaderboard",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="metrics",
                        to="papers.leaderboard",
                    ),
                ),
                migrations.AlterField(
                    model_name="leaderboardrow",
                    name="leaderboard",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rows",
                        to="papers.leaderboard",
                    ),
                ),
                migrations.AlterField(
                    model_name="leaderboardrow",
                    name="paper",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="results",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="paperauthor",
                    name="author",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="authorships",
                        to="papers.author",
                    ),
                ),
                migrations.AlterField(
                    model_name="paperauthor",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="authorships",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="paperdataset",
                    name="dataset",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="paper_links",
                        to="papers.dataset",
                    ),
                ),
                migrations.AlterField(
                    model_name="paperdataset",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="dataset_links",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="papermethod",
                    name="method",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="paper_links",
                        to="papers.method",
                    ),
                ),
                migrations.AlterField(
                    model_name="papermethod",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="method_links",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="papertask",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="task_links",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="papertask",
                    name="task",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="paper_links",
                        to="papers.task",
                    ),
                ),
                migrations.AlterField(
                    model_name="relatedpaper",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="related_entries",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="reportrepository",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="report_repositories",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="sample",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="samples",
                        to="papers.paper",
                    ),
                ),
                migrations.AlterField(
                    model_name="sample",
                    name="repository",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="samples",
                        to="papers.repository",
                    ),
                ),
                migrations.AlterField(
                    model_name="taskedge",
                    name="parent",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="child_edges",
                        to="papers.task",
                    ),
                ),
            ],
        ),
    ]
