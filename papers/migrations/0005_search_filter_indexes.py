# Indexes for search filters checked per matching paper (and their facets).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0004_newest_nulls_last"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="codelink",
            index=models.Index(fields=["paper", "framework"], name="codelink_paper_framework_idx"),
        ),
        migrations.AddIndex(
            model_name="sample",
            index=models.Index(fields=["paper", "status"], name="sample_paper_status_idx"),
        ),
    ]
