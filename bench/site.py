"""Benchmark: the site's search, paper and task pages as served, at full archive scale.

    python bench/site.py                                   # both engines, the shared databases
    python bench/site.py --engines sqlite --requests 30
    python bench/site.py --sqlite-url sqlite:////work/bench-data/site.sqlite3 \\
        --pg-url postgres://postgres@127.0.0.1:5432/cwp_site

For each engine, in one process per engine (read-only: nothing is written to the
database), p50/p95 of whole pages through Django's test client (middleware, view,
template; the page cache, HTTPS redirect and rate limits off), each case --requests
times:

  rare word       /search?q=<word>, a different word each request: words from random
                  titles that match 1 to 100 papers (as the page reads them, the last
                  word also as a prefix)
  mid word        /search?q=<word>, ten words matching 1,000 to 10,000 papers, in turn:
                  within the count cap, so the page counts facets over every match
  common word     /search?q=learning
  phrase          /search?q="state of the art"  (a third of the abstracts hold it)
  three words     /search?q=graph neural network
  two filters     /search?q=learning&has_code=1&framework=pytorch
  filter only     /search?has_code=1
  deep page       /search?q=learning&page=50
  paper page      /paper/<slug>, a different random paper each request
  task page       /task/<slug>, random tasks that have leaderboards
  sota index      /sota
  big task page   /task/<slug> of the task with the most papers among those with
                  leaderboards (its benchmarks table, subtask tree and first page of
                  papers with code)
  leaderboard     /sota/<task>-on-<dataset> of the board with the most rows (its
                  progress chart and full ranked table), and the same keeping only
                  the rows whose code has a report (?rows=report)
  method page     /method/<slug> of the method with the most papers (its usage chart
                  and first page of papers)
  venues          /conferences (every venue with its years), the year with the most
                  papers (/conference/<venue>-<year>) and its venue over its years
                  (/conference/<venue>), each with its first page of papers
  badges          /sota/<board>/badge.svg?paper=<slug>: the newest paper of the board
                  with the most rows, and random papers' badges on their boards (goal p95
                  < 20 ms: two queries and the kept ranking, the page cache off)
  browsing paths  the home page; the area with the most tasks (its first page of 60
                  cards); /methods/area/<a> of the area with the most methods and
                  /methods/category/<c> of the biggest collection; /datasets with its
                  filter counts, unfiltered and ?mod= the commonest modality; the big
                  task's /codeless and /latest; /trends

and the long tail (long_tail_urls), in the same kinds and against the same goals:

  phrase of common words   /search?q="neural network" (both words in half the archive)
  pasted title             a random paper's title, whole; and with one word changed
  question, stop words     nine words of a question; a query mostly of stop words
  common word + filter     learning with a year range, and with the biggest task
  filters alone            has_report=1, a status no sample has, the author with the
                           most papers, the repository with the most links
  API field filters        /api/v1/papers/?title=learning, ?title=<no match>,
                           ?abstract=network
  browse                   /samples?status=ran; the biggest author page

and the pasted titles' quality: success@1 of 200 random titles searched whole, and how
many are in the top 3 with one word changed.

`--cases browse` (or search, paper, task; comma-separated) runs only those kinds;
`--only <text>` only the cases whose name holds it (with --naive-requests 0).

and, in the same run, the naive baseline on the same data: each word `icontains` in the
title, abstract or authors, an exact count, newest first, 20 rows rendered with the same
template (no facets, no highlights: the baseline does less than the page), called
directly (the request cycle adds under 1 ms), on the rare words and on `learning`; and
for the leaderboards, the same pages ranking every row per request (what the page does
when no ranking is kept: every row's metric, chart point and paper read each time).
Every case runs once untimed first (the baseline too), so both are timed on warm pages.

Each request's CPU time is measured beside its wall time: the Django process's
(time.process_time, which holds SQLite's work) plus, on PostgreSQL, the CPU the backend
serving the site's connection used meanwhile (/proc/<pid>/schedstat; not its parallel
workers'). On a shared machine wall time moves with the others' load, CPU time far
less: read the CPU columns there, and measure the goals alone.

PostgreSQL is measured at its default server settings (128 MB shared_buffers): the
benchmark refuses a server whose memory or planner settings differ (TUNABLE) unless
--tuned is given. The site's own session settings (DATABASE_URL's options) apply.

Goals (on a 2-core machine): every search p95 < 150 ms on both engines, PostgreSQL at
its default settings, the rare word at least 20x faster than the naive baseline, the
paper page p95 < 40 ms, every browse page p95 < 100 ms with every cache off.

The databases must already hold the archive (576k synthetic papers). To build them:

    .venv/bin/python bench/make_archive.py --papers 576000 --out bench/data/576000
    DATABASE_URL=sqlite:////work/bench-data/full.sqlite3 .venv/bin/python manage.py migrate
    DATABASE_URL=sqlite:////work/bench-data/full.sqlite3 \\
        .venv/bin/python manage.py import_archive bench/data/576000/*.json.gz
    (the same with DATABASE_URL=postgres://…/cwp_full after `createdb cwp_full`,
    then VACUUM ANALYZE)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlencode

# bench/ is the script's folder, so it is on sys.path
from measure import percentiles, run, timed, timed_cpu

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
DEFAULTS = {
    "sqlite": "sqlite:////work/bench-data/full.sqlite3",
    "postgres": "postgres://postgres@127.0.0.1:5432/cwp_full",
}
GOALS = {"search": 150.0, "paper": 40.0, "task": None, "browse": 100.0, "badge": 20.0}
SPEEDUP_GOAL = 20.0
RARE = (1, 100)  # a rare word matches this many papers
MID = (1_000, 10_000)  # a mid-frequency word: facets are counted over all its matches
MID_WORDS = 10  # cycled through --requests
COMMON = "learning"
PHRASE = '"state of the art"'
THREE_WORDS = "graph neural network"
# The long tail: what people type besides single words.
COMMON_PHRASE = '"neural network"'  # both words in half the archive, the phrase in ~1%
QUESTION = "how can we learn robust representations for image segmentation"
STOP_WORDS_QUERY = "what is the state of the art in learning on the graph"
YEARS = {"year_from": 2018, "year_to": 2019}
TITLES = 200  # titles pasted for the quality figures
_TITLE_WORD = re.compile(r"[a-z]{5,}")


# --- inside one engine's process ------------------------------------------------------------


def title_words(n: int, low: int, high: int, rng: random.Random) -> list[tuple[str, int]]:
    """n different words from random papers' titles that match low..high papers, as the
    search page reads them, each with its number of matches. Each candidate costs one
    capped count (LIMIT low + 1 first, then high + 1 for those past low), so a word out
    of range is rejected about as fast as one in range is accepted; titles are read by
    random id ranges, never by scanning the table or its vocabulary."""
    from papers.models import Paper
    from papers.search.backends import backend_for
    from papers.search.query import STOP_WORDS, parse

    base = Paper.objects.visible()
    top = Paper.objects.order_by("-id").values_list("id", flat=True).first()
    found: dict[str, int] = {}
    seen: set[str] = set()
    checks = ranges = 0
    while len(found) < n:
        ranges += 1
        if checks > 200 * n or ranges > 1_000 * n:  # a small database may have no such word
            raise SystemExit(
                f"found only {len(found)} words matching {low}-{high} papers after "
                f"{checks} checks in {ranges} title ranges"
            )
        start = rng.randrange(1, top + 1)
        titles = Paper.objects.filter(id__gte=start, id__lt=start + 50, hidden=False)
        for title in titles.values_list("title", flat=True):
            for word in _TITLE_WORD.findall(title.lower()):
                if word in seen or word in STOP_WORDS:
                    continue
                seen.add(word)
                checks += 1
                engine = backend_for(parse(word), base)
                matches = engine.count(low)
                if matches > low:
                    matches = engine.count(high)
                if max(low, 1) <= matches <= high:
                    found[word] = matches
                    break  # one word a title range: spread over the archive
            if len(found) >= n:
                break
    return list(found.items())


def naive_page(request, q: str) -> bytes:
    """The search page the obvious way: every word `icontains` in title, abstract or
    authors, an exact count, newest first, and the page's template over 20 rows."""
    from django.db.models import Prefetch, Q
    from django.shortcuts import render

    from papers.forms import SearchForm
    from papers.models import Paper, PaperAuthor

    matches = Paper.objects.visible()
    for word in q.split():
        matches = matches.filter(
            Q(title__icontains=word)
            | Q(abstract__icontains=word)
            | Q(author_names__icontains=word)
        )
    total = matches.count()
    papers = matches.order_by("-published", "-id").prefetch_related(
        Prefetch("authorships", PaperAuthor.objects.select_related("author").order_by("position"))
    )[:20]

    result = SimpleNamespace(total=total, total_display=f"{total:,}", parsed=None)
    form = SearchForm({"q": q})
    form.is_valid()
    context = {
        "form": form,
        "q": q,
        "sort": "newest",
        "sort_choices": [],
        "page_number": 1,
        "result_start": 1,
        "too_deep": False,
        "result": result,
        "rows": [{"paper": p, "title": None, "snippet": None, "statuses": {}} for p in papers],
        "has_previous": False,
        "has_next": total > 20,
        "last_page": min(-(-total // 20), 50),
        "facets": None,
    }
    return render(request, "papers/search.html", context).content


def matches_of(url: str) -> str:
    """How many papers the search at `url` matches, as its page says it."""
    from django.http import QueryDict

    from papers import search as fulltext
    from papers.forms import SearchForm
    from papers.models import Paper
    from papers.querysets import filter_papers

    form = SearchForm(QueryDict(url.split("?", 1)[1]))
    assert form.is_valid(), form.errors
    base = filter_papers(Paper.objects.visible(), form.cleaned_data)
    return fulltext.search(form.cleaned_data["q"], base, limit=0).total_display


def big_area_url(slug: str) -> str:
    return f"/area/{slug}"


def long_tail_urls(rng: random.Random, requests: int) -> list[tuple[str, str, list[str]]]:
    """(kind, name, urls) of the long tail: phrases of common words, pasted titles
    (whole, and with one word changed), questions, stop words, filters with and without
    words, the API's field filters, the samples list and the biggest author page."""
    from django.db.models import Count

    from papers.models import Author, Paper, Repository, Task

    top = Paper.objects.order_by("-id").values_list("id", flat=True).first()
    ids = rng.sample(range(1, top + 1), requests * 3)
    titles = list(
        Paper.objects.filter(id__in=ids, hidden=False).values_list("title", flat=True)[:requests]
    )
    author = Author.objects.annotate(n=Count("authorships")).order_by("-n", "id").first()
    repository = Repository.objects.annotate(n=Count("code_links")).order_by("-n", "id").first()
    task = Task.objects.order_by("-paper_count", "id").first()
    # The biggest task whose papers are fewer than the count cap: every match is scored.
    mid_task = Task.objects.filter(paper_count__lt=10_000).order_by("-paper_count", "id").first()

    def search(**params) -> str:
        return "/search?" + urlencode(params)

    def api(**params) -> str:
        return "/api/v1/papers/?" + urlencode(params)

    same = lambda url: [url] * requests  # noqa: E731
    return [
        ("search", f"phrase of common words ({COMMON_PHRASE})", same(search(q=COMMON_PHRASE))),
        ("search", "pasted title", [search(q=t) for t in titles]),
        ("search", "pasted title, one word changed", [search(q=changed(t, rng)) for t in titles]),
        ("search", "question of nine words", same(search(q=QUESTION))),
        ("search", "mostly stop words", same(search(q=STOP_WORDS_QUERY))),
        ("search", f"{COMMON} + years 2018-2019", same(search(q=COMMON, **YEARS))),
        ("search", f"{COMMON} + biggest task", same(search(q=COMMON, task=task.slug))),
        (
            "search",
            f"{COMMON} + a task of {mid_task.paper_count:,} papers",
            same(search(q=COMMON, task=mid_task.slug)),
        ),
        ("search", "has report alone", same(search(has_report=1))),
        ("search", "status no sample has", same(search(status="never_seen"))),
        (
            "search",
            f"author filter ({author.n} papers)",
            same(search(author=author.slug)),
        ),
        ("search", "repository filter", same(search(repository=repository.url))),
        ("search", f"API title={COMMON}", same(api(title=COMMON))),
        ("search", "API title=<no match>", same(api(title="zqxjvw"))),
        ("search", "API abstract=network", same(api(abstract="network"))),
        ("browse", "samples by a common status (ran)", same("/samples?status=ran")),
        (
            "browse",
            f"author page ({author.n} papers)",
            same(author.get_absolute_url()),
        ),
    ]


def changed(title: str, rng: random.Random) -> str:
    """The title with one of its longer words replaced by a word no title has."""
    words = title.split()
    longer = [i for i, w in enumerate(words) if len(w) > 3 and w.isalpha()] or [0]
    words[rng.choice(longer)] = rng.choice(["banana", "orchestra", "velvet", "tundra"])
    return " ".join(words)


def title_quality(rng: random.Random) -> dict:
    """success@1 of TITLES random titles pasted whole, and the share found in the top 3
    with one word changed, through the site's search (papers.search.search)."""
    from papers import search as fulltext
    from papers.models import Paper

    top = Paper.objects.order_by("-id").values_list("id", flat=True).first()
    rows = list(
        Paper.objects.filter(
            id__in=rng.sample(range(1, top + 1), TITLES * 2), hidden=False
        ).values_list("id", "title")[:TITLES]
    )
    base = Paper.objects.visible()
    same_title: dict[str, set[int]] = {}
    for pk, title in Paper.objects.filter(title__in=[t for _, t in rows]).values_list(
        "id", "title"
    ):
        same_title.setdefault(title, set()).add(pk)
    first = sum(
        bool(ids := fulltext.search(title, base, limit=1).ids) and ids[0] in same_title[title]
        for _, title in rows
    )
    top3 = sum(pk in fulltext.search(changed(title, rng), base, limit=3).ids for pk, title in rows)
    return {
        "titles": len(rows),
        "success_at_1": first / len(rows),
        "changed_top3": top3 / len(rows),
    }


def browse_urls() -> dict[str, str]:
    """The browse pages measured: the home page, /sota and the biggest area, task (its
    papers with code, without code and newest), leaderboard (whole, and filtered to the
    rows whose code has a report) and method, the biggest method area and category, the
    datasets unfiltered and filtered to the commonest modality, /trends, /conferences,
    and the venue year with the most papers and its venue over all its years."""
    from django.db.models import Count, Sum

    from papers.models import Leaderboard, Method, Task, Venue

    task = (
        Task.objects.filter(benchmark_count__gt=0)
        .order_by("-paper_count", "-benchmark_count", "id")
        .first()
    )
    board = (
        Leaderboard.objects.annotate(n=Count("rows"))
        .select_related("task", "dataset")
        .order_by("-n", "id")
        .first()
    )
    method = Method.objects.order_by("-paper_count", "id").first()
    venue = Venue.objects.order_by("-paper_count", "id").first()
    series = Venue.objects.filter(series=venue.series).aggregate(n=Sum("paper_count"))["n"]
    from papers import taxonomy
    from papers.kept.datasets import work_out

    areas = taxonomy.areas(keep=0)
    big_area = max(areas, key=lambda a: a.task_count)
    groups = taxonomy.collection_groups()
    method_area = max(groups, key=lambda g: g.method_count)
    collection = max((c for g in groups for c in g.collections), key=lambda c: c.method_count)
    modalities = work_out()["ids"]["mod"]
    modality = max(modalities, key=lambda m: len(modalities[m]))
    return {
        "home page": "/",
        f"big area page, first 60 of {big_area.task_count} tasks": big_area_url(big_area.slug),
        f"methods of the biggest area ({method_area.area})": (f"/methods/area/{method_area.slug}"),
        f"biggest method category ({collection.method_count} methods)": (
            f"/methods/category/{collection.slug}"
        ),
        "datasets, unfiltered, with filter counts": "/datasets",
        f"datasets of the commonest modality ({len(modalities[modality])})": (
            f"/datasets?mod={modality}"
        ),
        "big task, papers without code": f"{task.get_absolute_url()}/codeless",
        "big task, every paper newest first": f"{task.get_absolute_url()}/latest",
        "framework trends (/trends)": "/trends",
        "sota index (/sota)": "/sota",
        f"big task page ({task.benchmark_count} boards, {task.paper_count} papers)": (
            task.get_absolute_url()
        ),
        f"leaderboard with chart ({board.n} rows)": board.get_absolute_url(),
        "the same, rows whose code has a report": f"{board.get_absolute_url()}?rows=report",
        f"method page with chart ({method.paper_count} papers)": method.get_absolute_url(),
        "venues index (/conferences)": "/conferences",
        f"biggest venue year ({venue.paper_count} papers)": venue.get_absolute_url(),
        f"its venue over the years ({series} papers)": f"/conference/{venue.series}",
    }


def badge_urls(rng: random.Random, requests: int) -> dict[str, list[str]]:
    """The badges measured: the newest paper with a badge on the board with the most rows
    (its whole kept ranking is read to place it), and random papers' badges on their
    boards (a different one each request)."""
    from django.db.models import Count

    from papers.leaderboards.badge import find_badge
    from papers.models import Leaderboard, LeaderboardRow

    def board_path(board: Leaderboard) -> str:
        return board.get_absolute_url().removeprefix("/sota/")

    def url(board: Leaderboard, slug: str) -> str:
        return f"{board.get_absolute_url()}/badge.svg?paper={slug}"

    board = (
        Leaderboard.objects.annotate(n=Count("rows"))
        .select_related("task", "dataset")
        .order_by("-n", "id")
        .first()
    )
    on_board = board.rows.filter(paper__isnull=False, paper__hidden=False).order_by("-id")
    last = next(
        slug
        for slug in on_board.values_list("paper__slug", flat=True)[:1000]
        if find_badge(board_path(board), slug)
    )
    top = LeaderboardRow.objects.order_by("-id").values_list("id", flat=True).first() or 0
    picked = LeaderboardRow.objects.filter(
        id__in=rng.sample(range(1, top + 1), min(top, requests * 4)),
        paper__isnull=False,
        paper__hidden=False,
    ).select_related("leaderboard__task", "leaderboard__dataset", "paper")
    # Only papers with a ranked row there have a badge (the others' is a 404).
    shown = [row for row in picked if find_badge(board_path(row.leaderboard), row.paper.slug)]
    return {
        f"badge on the biggest board ({board.n} rows)": [url(board, last)] * requests,
        "badges of random papers on their boards": [
            url(row.leaderboard, row.paper.slug) for row in shown[:requests]
        ],
    }


def board_baseline(
    boards: dict[str, str | list[str]], measure, requests: int, *, badges: bool = False
) -> list[dict]:
    """The leaderboard pages (or badges) as they were before papers.kept.rankings kept
    each board's ranking: every row read, ranked (and charted), per request (the page's
    own fallback when nothing is kept, with no cache)."""
    from unittest import mock

    from papers.kept import rankings
    from papers.leaderboards import badge

    found = []
    ignored = (
        mock.patch.object(badge, "VERSION", object())  # no kept ranking is of this version
        if badges
        else mock.patch.object(rankings, "kept_facts", lambda *args, **kwargs: (None, None))
    )
    with ignored:
        for name, url in boards.items():
            urls = url if isinstance(url, list) else [url] * requests
            measure(urls[:1])  # warm
            times = measure(urls)
            p50, p95 = percentiles(times.wall)
            cpu50, cpu95 = percentiles(times.cpu)
            found.append(
                {"name": name, "n": requests, "p50": p50, "p95": p95, "cpu_p50": cpu50,
                 "cpu_p95": cpu95}
            )  # fmt: skip
            print(f"  per-request ranking, {name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms",
                  file=sys.stderr, flush=True)  # fmt: skip
    return found


def engine_main(
    requests: int, naive_requests: int, seed: int, kinds: set[str], only: str = ""
) -> None:
    """Runs in a child process with DATABASE_URL set; prints one JSON line of results."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")
    sys.path.insert(0, str(ROOT))
    django.setup()
    from codewithpapers.startup import load_site

    load_site()  # as a gunicorn worker starts (codewithpapers/wsgi.py)
    from django.db import connection
    from django.test import Client, RequestFactory
    from django.test.utils import CaptureQueriesContext

    from papers.models import Leaderboard, Paper

    rng = random.Random(seed)
    started = time.perf_counter()
    searching = "search" in kinds
    rare = title_words(requests, *RARE, rng) if searching and not only else []
    mid = title_words(MID_WORDS, *MID, rng) if searching and not only else []
    picked_in = time.perf_counter() - started
    print(f"  words picked in {picked_in:.1f} s", file=sys.stderr, flush=True)
    top = Paper.objects.order_by("-id").values_list("id", flat=True).first()
    ids = rng.sample(range(1, top + 1), requests * 3)
    slugs = list(
        Paper.objects.filter(id__in=ids, hidden=False).values_list("slug", flat=True)[:requests]
    )
    with_boards = sorted(set(Leaderboard.objects.values_list("task__slug", flat=True)))
    tasks = [rng.choice(with_boards) for _ in range(requests)]

    client = Client(SERVER_NAME="127.0.0.1")

    def backend() -> int | None:
        """The PostgreSQL backend serving the site's connection (its CPU is the
        request's too); None on SQLite, whose work is this process's own."""
        if connection.vendor != "postgresql":
            return None
        connection.ensure_connection()
        return connection.connection.info.backend_pid

    def get(url: str) -> bytes:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return response.content

    def search_url(**params) -> str:
        return "/search?" + urlencode(params)

    def same(url: str, n: int = requests) -> list[str]:
        return [url] * n

    cases = (
        []
        if only
        else [
            ("search", "rare word", [search_url(q=w) for w, _ in rare]),
            (
                "search",
                "mid word (facets counted)",
                [search_url(q=mid[i % len(mid)][0]) for i in range(requests)] if mid else [],
            ),
            ("search", f"common word ({COMMON})", same(search_url(q=COMMON))),
            ("search", f"phrase ({PHRASE})", same(search_url(q=PHRASE))),
            ("search", f"three words ({THREE_WORDS})", same(search_url(q=THREE_WORDS))),
            (
                "search",
                f"two filters ({COMMON}, has code, PyTorch)",
                same(search_url(q=COMMON, has_code=1, framework="pytorch")),
            ),
            ("search", "filter only (has code)", same(search_url(has_code=1))),
            ("search", f"deep page 50 ({COMMON})", same(search_url(q=COMMON, page=50))),
            ("paper", "paper page", [f"/paper/{s}" for s in slugs]),
            ("task", "task page with leaderboards", [f"/task/{s}" for s in tasks]),
        ]
    )
    if "browse" in kinds:
        cases += [("browse", name, same(url)) for name, url in browse_urls().items()]
    badges = badge_urls(rng, requests) if "badge" in kinds else {}
    cases += [("badge", name, urls) for name, urls in badges.items()]
    cases += long_tail_urls(rng, requests)
    cases = [case for case in cases if case[0] in kinds and (not only or only in case[1])]
    # How many papers each search matches, as the page says it ("10,000+" past the cap).
    searches = (
        {
            "rare word": f"{min(n for _, n in rare)} to {max(n for _, n in rare)}",
            "mid word (facets counted)": f"{min(n for _, n in mid)} to {max(n for _, n in mid)}",
        }
        if rare and mid
        else {}
    )
    results = []
    for kind, name, urls in cases:
        # Untimed pass first, counting the queries each page runs.
        with CaptureQueriesContext(connection) as captured:
            for url in urls:
                get(url)
        queries = len(captured) / len(urls)
        times = timed_cpu(get, urls, backend)
        p50, p95 = percentiles(times.wall)
        cpu50, cpu95 = percentiles(times.cpu)
        searched = urls[0].startswith("/search?")
        matches = searches.get(name) or (matches_of(urls[0]) if searched else "")
        results.append(
            {
                "kind": kind,
                "name": name,
                "n": len(urls),
                "matches": matches,
                "queries": queries,
                "p50": p50,
                "p95": p95,
                "cpu_p50": cpu50,
                "cpu_p95": cpu95,
                "db_cpu": sum(times.other_cpu) / len(urls),
            }
        )
        print(
            f"  {name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms; CPU p50 {cpu50:.1f}, "
            f"p95 {cpu95:.1f} ms",
            file=sys.stderr,
            flush=True,
        )

    quality = title_quality(rng) if searching else None
    if quality:
        print(f"  titles: {quality}", file=sys.stderr, flush=True)
    factory = RequestFactory()
    naive = []
    for name, words in (
        ("rare word", [w for w, _ in rare[:naive_requests]]),
        (
            f"common word ({COMMON})",
            [COMMON] * (naive_requests and searching and max(5, naive_requests // 3)),
        ),
    ):
        if not words:
            continue

        def page(q: str) -> bytes:
            return naive_page(factory.get("/search", {"q": q}), q)

        timed(page, words[:1] if len(set(words)) == 1 else words)
        times = timed_cpu(page, words, backend)
        p50, p95 = percentiles(times.wall)
        cpu50, cpu95 = percentiles(times.cpu)
        naive.append(
            {
                "name": name,
                "n": len(words),
                "p50": p50,
                "p95": p95,
                "cpu_p50": cpu50,
                "cpu_p95": cpu95,
            }
        )
        print(f"  naive {name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms", file=sys.stderr, flush=True)
    if "browse" in kinds:
        naive += board_baseline(
            {name: url for name, url in browse_urls().items() if url.startswith("/sota/")},
            lambda urls: timed_cpu(get, urls, backend),
            requests,
        )
    if badges:
        naive += board_baseline(
            badges, lambda urls: timed_cpu(get, urls, backend), requests, badges=True
        )
    print(
        "RESULT "
        + json.dumps(
            {
                "vendor": connection.vendor,
                "papers": Paper.objects.count(),
                "rare_words": rare,
                "mid_words": mid,
                "cases": results,
                "naive": naive,
                "titles": quality,
            }
        ),
        flush=True,
    )


# --- the driver ---------------------------------------------------------------------------------


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def missing(engine: str, url: str) -> str | None:
    """Why the database at `url` cannot be benchmarked, or None."""
    if engine == "sqlite":
        path = Path(url.removeprefix("sqlite://"))
        if not path.exists():
            return f"{path} does not exist"
        return None
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        return str(exc).strip()
    return None


# Server settings a deployment might tune; the site must meet its goals without that.
TUNABLE = (
    "shared_buffers",
    "effective_cache_size",
    "work_mem",
    "maintenance_work_mem",
    "random_page_cost",
    "seq_page_cost",
    "effective_io_concurrency",
    "jit",
    "max_parallel_workers_per_gather",
    "default_statistics_target",
)


def tuned(url: str) -> list[str]:
    """The TUNABLE settings the PostgreSQL server at `url` runs with that differ from
    PostgreSQL's own defaults, as "name = value (default …)". The site's sessions set
    jit and random_page_cost themselves (DATABASE_URL's options): that is the product,
    not the server, and is not read here (a fresh connection without those options)."""
    import psycopg

    with psycopg.connect(url, connect_timeout=3, options="") as conn:
        rows = conn.execute(
            "SELECT name, setting, unit, boot_val FROM pg_settings "
            "WHERE name = ANY(%s) AND setting <> boot_val ORDER BY name",
            [list(TUNABLE)],
        ).fetchall()
    return [
        f"{name} = {value}{unit or ''} (default {boot}{unit or ''})"
        for name, value, unit, boot in rows
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--sqlite-url", default=DEFAULTS["sqlite"])
    parser.add_argument("--pg-url", default=DEFAULTS["postgres"])
    parser.add_argument("--requests", type=int, default=40, help="requests per case (>= 30)")
    parser.add_argument(
        "--naive-requests", type=int, default=30, help="naive searches of rare words"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cases", default=",".join(GOALS), help=f"kinds of page to measure ({', '.join(GOALS)})"
    )
    parser.add_argument(
        "--tuned",
        action="store_true",
        help="run against a PostgreSQL server whose memory or planner settings are not "
        "the defaults (without it the benchmark refuses: the goals hold at defaults)",
    )
    parser.add_argument("--only", default="", help="only the cases whose name holds this")
    parser.add_argument("--engine-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    kinds = set(args.cases.split(","))
    if unknown := kinds - set(GOALS):
        parser.error(f"unknown --cases {', '.join(sorted(unknown))}")
    if args.engine_child:
        engine_main(args.requests, args.naive_requests, args.seed, kinds, args.only)
        return

    engines = args.engines.split(",")
    urls = {"sqlite": args.sqlite_url, "postgres": args.pg_url}
    for engine in engines:
        if reason := missing(engine, urls[engine]):
            raise SystemExit(
                f"{engine}: {reason}.\nLoad the archive first (see the top of {__file__}):\n"
                + __doc__.split("To build them:\n", 1)[1]
            )
    if "postgres" in engines:
        changed = tuned(urls["postgres"])
        if changed and not args.tuned:
            raise SystemExit(
                "postgres: the server does not run with PostgreSQL's default settings:\n  "
                + "\n  ".join(changed)
                + "\nReset them (ALTER SYSTEM RESET …, restart), or pass --tuned to measure "
                "a tuned server (and say so with its figures)."
            )
        print(f"postgres: server settings {'; '.join(changed) if changed else 'default'}")
    # Production settings serve hashed static files from a manifest: collect them once.
    static_root = ROOT / "bench" / "out" / "static"
    static_root.mkdir(parents=True, exist_ok=True)
    run(
        [PYTHON, "manage.py", "collectstatic", "--no-input", "-v", "0"],
        dict(os.environ, SECRET_KEY="bench", DEBUG="false", STATIC_ROOT=str(static_root)),
    )
    runs = []
    for engine in engines:
        env = dict(
            os.environ,
            SECRET_KEY="bench",
            DEBUG="false",
            DATABASE_URL=urls[engine],
            # The pages themselves are measured: no page cache (it would hide the cost), no
            # HTTPS redirect (the test client speaks plain HTTP), no rate limit.
            CACHE_URL="dummy://",
            SECURE_SSL_REDIRECT="false",
            RATELIMIT_ENABLE="false",
            STATIC_ROOT=str(static_root),
        )
        print(f"{engine}: {args.requests} requests per case, load {load()} …", flush=True)
        command = [PYTHON, __file__, "--engine-child", engine]
        command += ["--requests", str(args.requests), "--naive-requests", str(args.naive_requests)]
        command += ["--seed", str(args.seed), "--cases", args.cases, "--only", args.only]
        # The child's stdout carries the request log (part of the page as served) and
        # the RESULT line; its progress goes to stderr, straight to the terminal.
        child = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        if child.returncode:
            raise SystemExit(f"{engine}: the benchmark failed ({child.returncode})")
        output = child.stdout
        print(f"{engine}: done, load {load()}", flush=True)
        line = next(x for x in output.splitlines() if x.startswith("RESULT "))
        result = json.loads(line.removeprefix("RESULT "))
        runs.append((engine, result))
        print(f"{engine}: {result['papers']:,} papers; rare words: {result['rare_words'][:6]} …")
        print(f"{engine}: mid words: {result['mid_words']}")

    print()
    print(
        "CPU: the Django process's (time.process_time; SQLite runs in it) plus, on "
        "PostgreSQL, the backend's (/proc), per request; DB: the backend's share, mean."
    )
    print(
        "| engine | page | n | matches | queries | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms "
        "| DB CPU ms | goal p95 |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for engine, result in runs:
        for case in result["cases"]:
            goal = GOALS[case["kind"]]
            db = f"{case['db_cpu']:.1f}" if result["vendor"] == "postgresql" else "—"
            print(
                f"| {engine} | {case['name']} | {case['n']} | {case['matches']} "
                f"| {case['queries']:g} | {case['p50']:.1f} | {case['p95']:.1f} "
                f"| {case['cpu_p50']:.1f} | {case['cpu_p95']:.1f} | {db} "
                f"| {f'< {goal:.0f}' if goal else '—'} |"
            )
    print()
    print(
        "| engine | naive baseline (search: `icontains`; board: ranked per request) | n "
        "| p50 ms | p95 ms | CPU p50 / p95 ms "
        "| site p50 / p95 | faster |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for engine, result in runs:
        ours = {c["name"]: c for c in result["cases"]}
        for case in result["naive"]:
            site = ours[case["name"]]
            ratio = min(case["p50"] / site["p50"], case["p95"] / site["p95"])
            print(
                f"| {engine} | {case['name']} | {case['n']} | {case['p50']:.1f} "
                f"| {case['p95']:.1f} | {case['cpu_p50']:.1f} / {case['cpu_p95']:.1f} "
                f"| {site['p50']:.1f} / {site['p95']:.1f} | {ratio:.0f}x |"
            )
    for engine, result in runs:
        if quality := result.get("titles"):
            print(
                f"{engine}: {quality['titles']} pasted titles: success@1 "
                f"{quality['success_at_1']:.3f} (goal >= 0.95); one word changed, in the "
                f"top 3: {quality['changed_top3']:.3f}"
            )
    print()
    print("Against the goals:")
    for engine, result in runs:
        notes = []
        for kind, goal in GOALS.items():
            cases = [c for c in result["cases"] if c["kind"] == kind]
            if not cases or goal is None:
                continue
            worst = max(cases, key=lambda c: c["p95"])
            notes.append(
                f"worst {kind} p95 {worst['p95']:.1f} ms ({worst['name']}; CPU p95 "
                f"{worst['cpu_p95']:.1f} ms) {'met' if worst['p95'] < goal else 'NOT met'}"
            )
        rare_site = next((c for c in result["cases"] if c["name"] == "rare word"), None)
        rare_naive = next((c for c in result["naive"] if c["name"] == "rare word"), None)
        if rare_site and rare_naive:
            ratio = min(rare_naive["p50"] / rare_site["p50"], rare_naive["p95"] / rare_site["p95"])
            verdict = "met" if ratio >= SPEEDUP_GOAL else "NOT met"
            notes.append(f"rare word {ratio:.0f}x the naive page {verdict}")
        elif rare_site:
            notes.append("rare word not compared (--naive-requests 0)")
        print(f"  {engine}: " + "; ".join(notes))


if __name__ == "__main__":
    main()
