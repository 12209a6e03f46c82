from django.urls import path, re_path

from papers import feeds, sitemaps
from papers.views import (
    authors,
    browse,
    changes,
    contribute,
    history,
    leaderboards,
    new,
    pages,
    papers,
    search,
)

app_name = "papers"

urlpatterns = [
    path("", pages.home, name="home"),
    path("about", pages.about, name="about"),
    path("trends", pages.trends, name="trends"),
    path("search", search.search, name="search"),
    path("search/names/<str:field>", search.search_names, name="search-names"),
    path("paper/<str:slug>.json", papers.paper_json, name="paper-json"),
    # An old-style arXiv id holds a slash (/paper/hep-th/9504118v2); new-style ones are
    # led to their paper by paper_detail.
    re_path(
        r"^paper/(?P<arxiv>[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?P<version>v\d+)?$",
        new.paper_by_arxiv,
        name="paper-arxiv",
    ),
    # The page of a paper whose slug itself ends in ".json" (Paper.get_absolute_url).
    re_path(r"^paper/(?P<slug>[^/]+\.json)/$", papers.paper_detail, name="paper-dot-json"),
    path("paper/<str:slug>/samples", papers.paper_samples, name="paper-samples"),
    path("paper/<str:slug>/claim", authors.claim, name="paper-claim"),
    path("paper/<str:slug>/results/<int:row>/verdict", authors.verdict, name="result-verdict"),
    # /paper/<slug>/history, /sota/<slug>/history, /task/…, /dataset/…, /method/…
    re_path(
        r"^(?P<kind>paper|sota|task|dataset|method)/(?P<slug>[^/]+)/history$",
        history.record_history,
        name="history",
    ),
    path("paper/<str:slug>", papers.paper_detail, name="paper"),
    path("changes", changes.changes_list, name="changes"),
    path("changes.atom", feeds.ChangesFeed(), name="feed-changes"),
    path("task/<str:slug>/changes.atom", feeds.TaskChangesFeed(), name="feed-task-changes"),
    path("sota/<str:slug>/changes.atom", feeds.BoardChangesFeed(), name="feed-board-changes"),
    # Contributing from a record's page (papers.views.contribute).
    path(
        "paper/<str:slug>/contribute/<str:kind>",
        contribute.paper_form,
        name="contribute-paper",
    ),
    path("sota/<str:slug>/contribute/result", contribute.board_form, name="contribute-board"),
    re_path(
        r"^(?P<kind>task|dataset|method)/(?P<slug>[^/]+)/contribute/description$",
        contribute.description_form,
        name="contribute-description",
    ),
    path("contribute/preview", contribute.preview, name="contribute-preview"),
    path("samples", papers.samples, name="samples"),
    path("latest", new.latest, name="latest"),
    path("greatest", new.greatest, name="greatest"),
    path("author/<str:slug>", papers.author_detail, name="author"),
    path("repo/<str:host>/<path:owner>/<str:name>", papers.repository_detail, name="repository"),
    path("sota", browse.sota, name="sota"),
    path("sota/<str:slug>/badge.svg", authors.badge, name="leaderboard-badge"),
    path("sota/<str:slug>", leaderboards.leaderboard, name="leaderboard"),
    path("area/<str:slug>", browse.area_detail, name="area"),
    path("tasks", browse.task_index, name="tasks"),
    path("datasets", browse.dataset_index, name="datasets"),
    path("methods", browse.method_index, name="methods"),
    path("methods/area/<str:slug>", browse.method_area, name="method-area"),
    path("methods/category/<str:slug>", browse.method_category, name="method-category"),
    path("task/<str:slug>", browse.task_detail, name="task"),
    path(
        "task/<str:slug>/codeless", browse.task_detail, {"view": "codeless"}, name="task-codeless"
    ),
    path("task/<str:slug>/latest", browse.task_detail, {"view": "latest"}, name="task-latest"),
    path("method/<str:slug>", browse.method_detail, name="method"),
    path("dataset/<str:slug>", browse.dataset_detail, name="dataset"),
    path("conferences", browse.conference_index, name="conferences"),
    path("conference/<str:slug>", browse.conference_detail, name="conference"),
    path("feeds/latest.atom", feeds.LatestPapersFeed(), name="feed-latest"),
    path("task/<str:slug>/feed.atom", feeds.TaskPapersFeed(), name="feed-task"),
    path("latest/<str:category>.atom", feeds.CategoryPapersFeed(), name="feed-category"),
    path("sitemap.xml", sitemaps.index, name="sitemap-index"),
    path("sitemap-<str:section>.xml", sitemaps.section, name="sitemap-section"),
]
