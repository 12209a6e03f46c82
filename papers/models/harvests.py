"""The arXiv harvests (papers.arxiv.harvest): one row per run of `harvest_arxiv`.

A run's row is its journal: the window it asked for, the resumption token and the
number of records written so far (both committed with each page's papers, so a run
killed halfway resumes where it stopped), and how it ended. The last successful run's
`until` is where the next one starts; /healthz reports the last run.
"""

from __future__ import annotations

from django.db import models


class Harvest(models.Model):
    class Outcome(models.TextChoices):
        RUNNING = "running", "running"
        OK = "ok", "succeeded"
        FAILED = "failed", "failed"

    source = models.CharField(max_length=16, help_text="oai or api.")
    endpoint = models.CharField(max_length=500)
    metadata_prefix = models.CharField(max_length=16, blank=True)
    set_spec = models.CharField("set", max_length=64, blank=True)
    query = models.CharField(max_length=500, blank=True, help_text="The API's search query.")
    from_date = models.DateField(null=True, blank=True)
    until_date = models.DateField(null=True, blank=True)
    token = models.CharField(
        max_length=500, blank=True, help_text="The resumption token of the next page."
    )
    position = models.PositiveIntegerField(
        default=0, help_text="Records written so far (the API's start of the next page)."
    )
    pages = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=16, choices=Outcome, default=Outcome.RUNNING)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            # The last successful harvest of a set (where the next one starts).
            models.Index(fields=["source", "set_spec", "outcome", "-id"], name="harvest_last_idx"),
        ]

    def __str__(self) -> str:
        what = self.set_spec or self.query or self.source
        return f"{what} {self.from_date or '…'} to {self.until_date or '…'}: {self.outcome}"
