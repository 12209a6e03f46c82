"""Pages, one module per family: search, papers (a paper, its samples and record, authors,
repositories, every sample), browse (the state of the art, indexes, tasks, datasets,
methods, venues), leaderboards, and pages (home, about), over what they share (common).

Thin views: querying lives in querysets and the modules named for what they query,
formatting in templates and template tags.
"""
