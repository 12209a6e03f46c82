"""Facts the site works out over the whole archive and keeps by name, for pages that
would otherwise aggregate hundreds of thousands of rows per request (/trends). Written by
papers.kept (`manage.py refresh_browse_counts`, the end of an import); never edited,
never exported."""

from __future__ import annotations

from django.db import models


class KeptFact(models.Model):
    """One named fact: its data as JSON, and when it was worked out."""

    name = models.CharField(max_length=100, help_text="What it is: framework-trends.")
    data = models.JSONField(default=dict)
    number = models.BigIntegerField(
        null=True, blank=True, help_text="A fact that is one number (a count moved in place)."
    )
    version = models.PositiveSmallIntegerField(
        default=0, help_text="The code's version of the fact's shape: older ones are ignored."
    )
    refreshed = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name"], name="keptfact_name_unique")]

    def __str__(self) -> str:
        return self.name
