"""The characters full-text search puts around each match of a highlighted title or
snippet (papers.search.backends), which become <mark> where the page shows them
(papers.titles). Apart from both, so that each imports them without the other."""

MARK_START, MARK_END = "\x02", "\x03"
