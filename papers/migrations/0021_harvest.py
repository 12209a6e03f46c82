"""arXiv harvests: their journal (Harvest), and each paper's arXiv categories.

The categories are added with ALTER TABLE ADD COLUMN on SQLite: Django's AddField would
rebuild papers_paper there, dropping what earlier migrations made by hand on it (the
full-text triggers, paper_search_idx).
"""

import django.db.models.lookups
from django.db import migrations, models

COLUMNS = {"arxiv_primary_category": 32, "arxiv_categories": 500}


def _field(name: str) -> models.CharField:
    field = models.CharField(blank=True, max_length=COLUMNS[name])
    field.set_attributes_from_name(name)
    return field


def forward(apps, schema_editor):
    paper = apps.get_model("papers", "Paper")
    for name, length in COLUMNS.items():
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute(
                f'ALTER TABLE papers_paper ADD COLUMN "{name}" varchar({length}) NOT NULL '
                "DEFAULT ''"
            )
        else:
            schema_editor.add_field(paper, _field(name))


def backward(apps, schema_editor):
    paper = apps.get_model("papers", "Paper")
    for name in COLUMNS:
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute(f'ALTER TABLE papers_paper DROP COLUMN "{name}"')
        else:
            schema_editor.remove_field(paper, _field(name))


class Migration(migrations.Migration):

    dependencies = [
        ('papers', '0019_contributions'),
    ]

    operations = [
        migrations.CreateModel(
            name='Harvest',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('source', models.CharField(help_text='oai or api.', max_length=16)),
                ('endpoint', models.CharField(max_length=500)),
                ('metadata_prefix', models.CharField(blank=True, max_length=16)),
                ('set_spec', models.CharField(blank=True, max_length=64, verbose_name='set')),
                ('query', models.CharField(blank=True, help_text="The API's search query.", max_length=500)),
                ('from_date', models.DateField(blank=True, null=True)),
                ('until_date', models.DateField(blank=True, null=True)),
                ('token', models.CharField(blank=True, help_text='The resumption token of the next page.', max_length=500)),
                ('position', models.PositiveIntegerField(default=0, help_text="Records written so far (the API's start of the next page).")),
                ('pages', models.PositiveIntegerField(default=0)),
                ('outcome', models.CharField(choices=[('running', 'running'), ('ok', 'succeeded'), ('failed', 'failed')], default='running', max_length=16)),
                ('error', models.TextField(blank=True)),
                ('started_at', models.DateTimeField(auto_now_add=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'ordering': ['-id'],
            },
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forward, backward)],
            state_operations=[
            migrations.AddField(
                model_name='paper',
                name='arxiv_categories',
                field=models.CharField(blank=True, max_length=500, verbose_name='arXiv categories'),
            ),
            migrations.AddField(
                model_name='paper',
                name='arxiv_primary_category',
                field=models.CharField(blank=True, max_length=32, verbose_name='arXiv primary category'),
            ),
            ],
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(models.F('arxiv_primary_category'), models.OrderBy(django.db.models.lookups.IsNull(models.Case(models.When(models.ExpressionWrapper(models.F('date_uncertain'), models.BooleanField()), then=models.Value(None)), default=models.F('published'), output_field=models.DateField()), True)), models.OrderBy(models.Case(models.When(models.ExpressionWrapper(models.F('date_uncertain'), models.BooleanField()), then=models.Value(None)), default=models.F('published'), output_field=models.DateField()), descending=True), models.OrderBy(models.F('id'), descending=True), name='paper_category_idx'),
        ),
        migrations.AddIndex(
            model_name='harvest',
            index=models.Index(fields=['source', 'set_spec', 'outcome', '-id'], name='harvest_last_idx'),
        ),
    ]
