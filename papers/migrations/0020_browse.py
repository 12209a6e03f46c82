"""Kept facts: facts worked out over the whole archive and kept by name (/trends reads the
frameworks' shares of new code links from one). On an existing database, run
`manage.py refresh_browse_counts` once to work them out.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('papers', '0022_search'),
    ]

    operations = [
        migrations.CreateModel(
            name='KeptFact',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text='What it is: framework-trends.', max_length=100)),
                ('data', models.JSONField(default=dict)),
                ('version', models.PositiveSmallIntegerField(default=0, help_text="The code's version of the fact's shape: older ones are ignored.")),
                ('refreshed', models.DateTimeField(auto_now=True)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('name',), name='keptfact_name_unique')],
            },
        ),
    ]
