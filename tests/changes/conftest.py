"""The /changes tests' records (tests/changes/records.py, shared with the browser test)."""

from tests.changes.records import alice, bob, written  # noqa: F401
