"""SQLite's side of a bulk import: its session (session.py) and the full-text index
built beside the writer (fts_side.py)."""
