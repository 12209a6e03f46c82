# Indexes for search filters and sample lists that read only what they count.

import django.db.models.lookups
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('papers', '0021_harvest'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(models.OrderBy(django.db.models.lookups.IsNull(models.Case(models.When(models.ExpressionWrapper(models.F('date_uncertain'), models.BooleanField()), then=models.Value(None)), default=models.F('published'), output_field=models.DateField()), True)), models.OrderBy(models.Case(models.When(models.ExpressionWrapper(models.F('date_uncertain'), models.BooleanField()), then=models.Value(None)), default=models.F('published'), output_field=models.DateField()), descending=True), models.OrderBy(models.F('id'), descending=True), condition=models.Q(('has_report', True), ('hidden', False)), name='paper_report_newest_idx'),
        ),
        migrations.AddIndex(
            model_name='sample',
            index=models.Index(fields=['status', 'contract_check', 'language', 'repo_kind'], name='sample_combination_idx'),
        ),
    ]
