"""Related papers: what `manage.py compute_related` computes and the paper page shows.

- model.py       the text model (cluster-sharpened LSA) and why
- neighbours.py  nearest neighbours: exact in blocks, or an inverted file at scale
- corpus.py      reading the papers' text from the database in batches
- lists.py       writing RelatedPaper rows as diffs, keeping staff-hidden entries
- state.py       what a run leaves for the next `--only-new` (RELATED_STATE_DIR)
- compute.py     the full run and `--only-new`

The page reads the lists with RelatedPaper.objects.section() (papers/models/papers.py)
and cuts titles and abstracts with the cut_title and snippet filters (papers_tags).
"""
