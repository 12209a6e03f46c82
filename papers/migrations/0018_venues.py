"""Venues: one row per venue and year, worked out from the papers' `proceeding` values
(papers.models.venues.refresh_venues, which imports and `refresh_browse_counts` run), and
the index a venue's page reads its papers from, newest first. The papers table gains no
column: a paper keeps its `proceeding` as the archive gives it. On an existing database,
run `manage.py refresh_browse_counts` once to fill the venues.
"""

import django.db.models.lookups
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('papers', '0017_paper_newest_idx'),
    ]

    operations = [
        migrations.CreateModel(
            name='Venue',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.CharField(help_text='/conference/<slug>: neurips-2020.', max_length=255)),
                ('series', models.CharField(help_text='The venue over its years, /conference/<series>: neurips.', max_length=255)),
                ('name', models.CharField(help_text='The most common spelling: NeurIPS.', max_length=255)),
                ('year', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('proceedings', models.JSONField(default=list, help_text="The papers' `proceeding` values that name it.")),
                ('paper_count', models.IntegerField(default=0, help_text='Its visible papers.')),
            ],
            options={
                'ordering': ['series', '-year'],
            },
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(models.F('proceeding'), models.OrderBy(django.db.models.lookups.IsNull(models.Case(models.When(models.ExpressionWrapper(models.F('date_uncertain'), models.BooleanField()), then=models.Value(None)), default=models.F('published'), output_field=models.DateField()), True)), models.OrderBy(models.Case(models.When(models.ExpressionWrapper(models.F('date_uncertain'), models.BooleanField()), then=models.Value(None)), default=models.F('published'), output_field=models.DateField()), descending=True), models.OrderBy(models.F('id'), descending=True), name='paper_proceeding_idx'),
        ),
        migrations.AddIndex(
            model_name='venue',
            index=models.Index(fields=['series', 'year'], name='venue_series_idx'),
        ),
        migrations.AddConstraint(
            model_name='venue',
            constraint=models.UniqueConstraint(fields=('slug',), name='venue_slug_unique'),
        ),
    ]
