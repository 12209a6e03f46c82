from django.urls import path, re_path

from papers import browse, feeds, sitemaps, views

urlpatterns = [
    path("", views.home, name="home"),
    path("about", views.about, name="about"),
    path("search", views.search, name="search"),
    path("search/names/<str:field>", views.search_names, name="search-names"),
    path("paper/<str:slug>.json", views.paper_json, name="paper-json"),
    # The page of a paper whose slug itself ends in ".json" (Paper.get_absolute_url).
    re_path(r"^paper/(?P<slug>[^/]+\.json)/$", views.paper_detail, name="paper-dot-json"),
    path("paper/<str:slug>/samples", views.paper_samples, name="paper-samples"),
    path("paper/<str:slug>", views.paper_detail, name="paper"),
    path("samples", views.samples, name="samples"),
    path("author/<str:slug>", views.author_detail, name="author"),
    path("repo/<str:host>/<path:owner>/<str:name>", views.repository_detail, name="repository"),
    path("sota", browse.sota, name="sota"),
    path("sota/<str:slug>", browse.leaderboard, name="leaderboard"),
    path("area/<str:slug>", browse.area_detail, name="area"),
    path("tasks", browse.task_index, name="tasks"),
    path("datasets", browse.dataset_index, name="datasets"),
    path("methods", browse.method_index, name="methods"),
    path("task/<str:slug>", browse.task_detail, name="task"),
    path("method/<str:slug>", browse.method_detail, name="method"),
    path("dataset/<str:slug>", browse.dataset_detail, name="dataset"),
    path("conferences", browse.conference_index, name="conferences"),
    path("conference/<str:slug>", browse.conference_detail, name="conference"),
    path("feeds/latest.atom", feeds.LatestPapersFeed(), name="feed-latest"),
    path("task/<str:slug>/feed.atom", feeds.TaskPapersFeed(), name="feed-task"),
    path("sitemap.xml", sitemaps.index, name="sitemap-index"),
    path("sitemap-<str:section>.xml", sitemaps.section, name="sitemap-section"),
]
