"""The leaderboards as pages read them: a board's page at /sota/<task>-on-<dataset>
(`board`), and the best result of each board and a paper's ranks, which the task,
dataset and paper pages show (`ranks`).

Beside papers.kept, not in it: papers.kept is what is written and refreshed after
writes (the boards' rankings among it), and its one call for writers is after_write().
These are the read side: they take a board's kept facts (or work them out from its rows
when none are kept) and add what each request asks for: the metric chosen, the page of
rows, the row filter, the rows' details.
"""
