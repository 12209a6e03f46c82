from django.urls import path

from papers import views

urlpatterns = [
    path("", views.home, name="home"),
    path("about", views.about, name="about"),
    path("search", views.search, name="search"),
    path("paper/<str:slug>.json", views.paper_json, name="paper-json"),
    path("paper/<str:slug>/samples", views.paper_samples, name="paper-samples"),
    path("paper/<str:slug>", views.paper_detail, name="paper"),
    path("samples", views.samples, name="samples"),
    path("author/<str:slug>", views.author_detail, name="author"),
    path("repo/<str:host>/<path:owner>/<str:name>", views.repository_detail, name="repository"),
    path("task/<str:slug>", views.task_detail, name="task"),
    path("method/<str:slug>", views.method_detail, name="method"),
    path("dataset/<str:slug>", views.dataset_detail, name="dataset"),
]
