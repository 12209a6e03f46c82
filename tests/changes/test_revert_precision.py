"""A revert puts back exactly what was recorded: times keep their microseconds (JSON as
Django writes it keeps milliseconds, so a deleted record came back up to 1 ms off, and
its snapshot then differed from the one taken before the delete)."""

from __future__ import annotations

import datetime as dt

import pytest

from papers.contributions.revisions import Actor, delete, revert, snapshot
from papers.models import Task
from papers.models.contributions import Via

pytestmark = pytest.mark.django_db

AT = dt.datetime(2026, 12, 6, 22, 6, 32, 412, tzinfo=dt.UTC)  # 0 ms and 412 us


def test_a_deleted_record_comes_back_to_the_microsecond():
    task = Task.objects.create(slug="exact", name="Exact", created_at=AT, updated_at=AT)
    before = snapshot(task)
    revert(delete(task, Actor(via=Via.ADMIN)), Actor(via=Via.ADMIN))
    restored = Task.objects.get(slug="exact")
    assert restored.created_at == AT and restored.updated_at == AT
    assert snapshot(restored) == before
