"""arXiv as a source of new papers.

records.py maps one arXiv record (from any of arXiv's three shapes) to the archive
importer's values (papers.archive.read.parsers.RecordIn), so arXiv papers are written by
the same writer as the archive's (papers.archive.write) with the same identity rules;
code.py finds repository URLs in abstracts and comments; snapshot.py, oai.py and
atom.py read the bulk JSON Lines snapshot, OAI-PMH pages and the query API's Atom
pages; harvest.py drives a harvest (requests, retries, resumption, its journal).
"""
