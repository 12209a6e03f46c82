"""The admin: where staff fix the archive's data by hand.

Three rules hold across it:
- A staff edit is protected from the next import. Saving a record that carries the
  edit flag (`Record`) marks it edited; saving one of a paper's rows (an author, a
  sample, a linked task…) marks the paper edited, since the importer guards a paper's
  rows by the paper's flag. Unticking "edited in admin" by hand is honoured.
- What is kept of the records follows every edit: a paper's counts, the counts of the
  tasks, methods and datasets it is linked to, its venue, its boards' rankings. Each
  admin declares what its objects feed, and `papers.kept.admin.KeptAdmin` refreshes
  it after a save or delete.
- Every changelist runs a fixed number of queries, however many rows it shows, and
  the big tables are never counted twice (`show_full_result_count = False`).
"""

from django.contrib import admin

# Each module registers its models.
from papers.admin import authors, contributions, leaderboards, papers, taxonomy  # noqa: F401

admin.site.site_header = "Code with Papers admin"
admin.site.site_title = "Code with Papers admin"
admin.site.index_title = "Papers, code and execution reports"
