"""Data fidelity: fields the dumps carry that were dropped, a method's collections in their
order, the direction a board's description states, and the stored data brought to the
rules the importer now follows (placeholder years, junk, datasets' provenance, boards in
source order)."""

import django.db.models.deletion
from django.db import migrations, models

VOWELS = set("aeiouyAEIOUY")


def _mash(text):
    word = text.strip()
    return 1 < len(word) <= 64 and word.isascii() and word.isalpha() and not (VOWELS & set(word))


def _junk(name, full_name, description):
    return (
        _mash(name)
        and _mash(description)
        and description.casefold() != name.casefold()
        and (not full_name or _mash(full_name))
    )


def add_paper_text_columns(*names):
    def run(apps, schema_editor):
        for name in names:
            schema_editor.execute(
                f"ALTER TABLE papers_paper ADD COLUMN {name} varchar(500) NOT NULL DEFAULT ''"
            )
            if schema_editor.connection.vendor == "postgresql":
                schema_editor.execute(f"ALTER TABLE papers_paper ALTER COLUMN {name} DROP DEFAULT")

    return run


def drop_paper_columns(*names):
    def run(apps, schema_editor):
        for name in names:
            schema_editor.execute(f"ALTER TABLE papers_paper DROP COLUMN {name}")

    return run


def copy_collections(apps, schema_editor):
    Method = apps.get_model("papers", "Method")
    MethodCollection = apps.get_model("papers", "MethodCollection")
    old = Method.old_collections.through
    rows = [
        MethodCollection(method_id=m, collection_id=c, position=0)
        for m, c in old.objects.order_by("method_id", "id").values_list(
            "method_id", "collection_id"
        )
    ]
    position, last = 0, None
    for row in rows:
        position = position + 1 if row.method_id == last else 0
        row.position, last = position, row.method_id
    MethodCollection.objects.bulk_create(rows, batch_size=2000)


def restore_collections(apps, schema_editor):
    Method = apps.get_model("papers", "Method")
    MethodCollection = apps.get_model("papers", "MethodCollection")
    old = Method.old_collections.through
    old.objects.bulk_create(
        [
            old(method_id=m, collection_id=c)
            for m, c in MethodCollection.objects.order_by("method_id", "position").values_list(
                "method_id", "collection_id"
            )
        ],
        batch_size=2000,
    )


def bring_data_to_the_rules(apps, schema_editor):
    Method = apps.get_model("papers", "Method")
    Dataset = apps.get_model("papers", "Dataset")
    Leaderboard = apps.get_model("papers", "Leaderboard")
    # 2000 is the dump's "unknown"; real early years (SGD 1951) are not in doubt.
    methods = Method.objects.filter(edited_in_admin=False)
    methods.filter(introduced_year=2000).update(year_uncertain=True)
    methods.filter(introduced_year__gte=1600, introduced_year__lt=2000).update(
        year_uncertain=False
    )
    # Only plain junk stays hidden (names without vowels were hidden, and case variants).
    for model in (Method, Dataset):
        shown = [
            pk
            for pk, name, full_name, description in model.objects.filter(
                hidden=True, edited_in_admin=False
            ).values_list("id", "name", "full_name", "description")
            if not _junk(name, full_name, description)
        ]
        for start in range(0, len(shown), 900):
            model.objects.filter(id__in=shown[start : start + 900]).update(hidden=False)
    # A dataset with anything a datasets file says was described by one.
    described = (
        ~models.Q(description="")
        | ~models.Q(full_name="")
        | ~models.Q(homepage="")
        | ~models.Q(paper_title="")
        | ~models.Q(paper_url="")
        | models.Q(introduced_date__isnull=False)
        | models.Q(num_papers__isnull=False)
    )
    Dataset.objects.filter(described).update(in_dump=True)
    # Boards in source order within their task: subdatasets right after their parent.
    boards = list(Leaderboard.objects.order_by("task_id", "position", "id").values_list(
        "id", "task_id", "parent_id"
    ))
    children = {}
    for pk, _, parent in boards:
        if parent is not None:
            children.setdefault(parent, []).append(pk)
    order = []
    for pk, task, parent in boards:
        if parent is None:
            stack = [pk]
            while stack:
                node = stack.pop()
                order.append((node, task))
                stack.extend(reversed(children.get(node, [])))
    placed = {pk for pk, _ in order}
    order += [(pk, task) for pk, task, _ in boards if pk not in placed]  # a parent elsewhere
    position, last, changes = 0, None, []
    for pk, task in order:
        position = position + 1 if task == last else 0
        last = task
        changes.append(Leaderboard(id=pk, position=position))
    Leaderboard.objects.bulk_update(changes, ["position"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0007_search_vector_given"),
    ]

    operations = [
        migrations.CreateModel(
            name="MethodCollection",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("position", models.PositiveSmallIntegerField(default=0)),
                (
                    "collection",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, to="papers.collection"
                    ),
                ),
                (
                    "method",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        to="papers.method",
                    ),
                ),
            ],
            options={"ordering": ["method_id", "position", "id"]},
        ),
        migrations.AddConstraint(
            model_name="methodcollection",
            constraint=models.UniqueConstraint(
                fields=("method", "collection"), name="methodcollection_unique"
            ),
        ),
        # The old many-to-many keeps its table under another field name while its rows
        # are copied, then goes; the field comes back through MethodCollection.
        migrations.RenameField("method", "collections", "old_collections"),
        migrations.AlterField(
            model_name="method",
            name="old_collections",
            field=models.ManyToManyField(
                blank=True,
                related_name="+",
                to="papers.collection",
                db_table="papers_method_collections",
            ),
        ),
        migrations.RunPython(copy_collections, restore_collections),
        migrations.RemoveField("method", "old_collections"),
        migrations.AddField(
            model_name="method",
            name="collections",
            field=models.ManyToManyField(
                blank=True,
                related_name="methods",
                through="papers.MethodCollection",
                to="papers.collection",
            ),
        ),
        migrations.AddField(
            model_name="dataset",
            name="in_dump",
            field=models.BooleanField(
                default=False,
                editable=False,
                help_text="Described by a datasets file; unset for a name only leaderboards "
                "or records mention, which the first dataset record of that name fills in.",
            ),
        ),
        migrations.AddField(
            model_name="dataset",
            name="paper_year",
            field=models.IntegerField(
                blank=True,
                help_text="The introducing paper's year, where the source gives it.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="leaderboardmetric",
            name="stated_lower_is_better",
            field=models.BooleanField(
                blank=True,
                editable=False,
                help_text="The direction the source board's description states, if any "
                '("lower is better").',
                null=True,
            ),
        ),
        # SQLite's schema editor would rebuild papers_paper to add a NOT NULL column,
        # dropping the full-text triggers (migration 0002) and copying every row: add
        # the columns in place instead.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name="paper",
                    name="conference_url_abs",
                    field=models.CharField(
                        blank=True, max_length=500, verbose_name="conference abstract URL"
                    ),
                ),
                migrations.AddField(
                    model_name="paper",
                    name="conference_url_pdf",
                    field=models.CharField(
                        blank=True, max_length=500, verbose_name="conference PDF URL"
                    ),
                ),
            ],
            database_operations=[
                migrations.RunPython(
                    add_paper_text_columns("conference_url_abs", "conference_url_pdf"),
                    drop_paper_columns("conference_url_abs", "conference_url_pdf"),
                )
            ],
        ),
        migrations.AddField(
            model_name="task",
            name="content_key",
            field=models.CharField(
                blank=True,
                editable=False,
                help_text="A digest of what the evaluation tables hold under this task "
                "(description, datasets, subtasks): a subtask repeated under several parents "
                "is one task, a different node of the same name is another.",
                max_length=40,
            ),
        ),
        migrations.AddField(
            model_name="task",
            name="source_link_title",
            field=models.CharField(
                blank=True,
                help_text='The source link\'s title ("CheXpert Leaderboard").',
                max_length=500,
            ),
        ),
        migrations.AlterField(
            model_name="dataset",
            name="date_uncertain",
            field=models.BooleanField(
                default=False,
                help_text="The date is before 1900 or after the snapshot: kept but not shown "
                "as a fact.",
            ),
        ),
        migrations.AlterField(
            model_name="leaderboardmetric",
            name="lower_is_better",
            field=models.BooleanField(
                blank=True,
                help_text="Leave empty to take the direction the leaderboard's description "
                "states, else to infer it from the name (error, loss, perplexity, WER, FID… "
                "are lower-is-better); set it when that is wrong.",
                null=True,
            ),
        ),
        migrations.AlterField(
            model_name="method",
            name="year_uncertain",
            field=models.BooleanField(
                default=False,
                help_text="The archive's year is its placeholder for unknown (2000) or "
                "impossible: not shown.",
            ),
        ),
        migrations.AddIndex(
            model_name="dataset",
            index=models.Index(fields=["name"], name="dataset_name_idx"),
        ),
        migrations.RunPython(bring_data_to_the_rules, migrations.RunPython.noop),
    ]
