"""PostgreSQL's side of a bulk import: its session (session.py) and the helpers beside
the writer (gin_side, vectors, link_counts, statistics)."""
