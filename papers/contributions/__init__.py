"""Writes by people: API tokens and their trust, revisions of every change, proposals
waiting for review, and the limits on writes (papers.api.writes serves them)."""
