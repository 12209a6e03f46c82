"""What a serving process does once, before its first request."""

from __future__ import annotations

import gc

from django.template.loader import get_template
from django.urls import get_resolver


def load_site() -> None:
    """Load the views and the error pages, then freeze what start-up made.

    Django imports the URLconf, and with it every view, on the first request, which costs
    over a second. Done here, with gunicorn's preload_app, it is done once in the master:
    every worker, recycled ones included, forks with it done, and the first request a
    worker answers (often a 503 page while the database is away) is as fast as the rest.

    What start-up made lives as long as the process. Frozen out of the cyclic garbage
    collector's reach, a full collection walks only what requests made, instead of every
    module, class and template too: such a collection paused one request in twenty by
    about 100 ms. Forked workers also keep those pages shared with the master."""
    get_resolver().reverse_dict  # noqa: B018
    for name in ("503.html", "500.html", "404.html"):
        get_template(name)
    gc.collect()
    gc.freeze()
