"""manage.py mcp: the MCP server over stdio, for an agent on the same machine."""

from __future__ import annotations

import logging

from django.core.management.base import BaseCommand

from papers.mcp import server


class Command(BaseCommand):
    help = (
        "Serve the read-only MCP server (search_papers, get_paper, get_leaderboard, "
        "find_sota, list_tasks, get_execution_report; paper://<id> resources) over stdio. "
        "An agent starts it as a subprocess; its database is this settings' DATABASE_URL."
    )

    def handle(self, *args, **options):
        # stdout carries the protocol: the SDK and Django log to stderr only.
        logging.getLogger("mcp").setLevel(logging.WARNING)
        server.STANDALONE["on"] = True
        server.server().run("stdio")
