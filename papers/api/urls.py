"""/api/v1/: the paths paperswithcode-client 0.3.1 calls (its reads, and its writes
through papers.api.writes), plus the execution reports and their records.

Every path answers with or without its trailing slash (the client writes
`/repositories/<owner>` without one), since a redirect would lose a client that does
not follow it. Anything else under /api/v1/ is a JSON 404.
"""

from django.urls import path, re_path

from papers.api import meta, taxonomy, views
from papers.api.writes import records
from papers.api.writes.views import methods


def both(route: str, view, name: str) -> list:
    """The route with its trailing slash, and without."""
    return [path(route, view, name=name), path(route.rstrip("/"), view)]


app_name = "api"
urlpatterns = [
    path("", meta.root, name="root"),
    path("schema.json", meta.schema, name="schema"),
    *both("search/", views.search, "search"),
    *both("papers/", methods(views.paper_list, POST="paper_add"), "paper-list"),
    *both("papers/<str:paper_id>/", methods(views.paper_detail, PATCH="paper_update"), "paper"),
    *both("papers/<str:paper_id>/datasets/", views.paper_datasets, "paper-datasets"),
    *both(
        "papers/<str:paper_id>/repositories/",
        methods(views.paper_repositories, POST="code_link_add"),
        "paper-repositories",
    ),
    *both("papers/<str:paper_id>/tasks/", views.paper_tasks, "paper-tasks"),
    *both("papers/<str:paper_id>/methods/", views.paper_methods, "paper-methods"),
    *both("papers/<str:paper_id>/results/", views.paper_results, "paper-results"),
    *both("papers/<str:paper_id>/samples/", views.paper_samples, "paper-samples"),
    *both("repositories/", views.repository_list, "repository-list"),
    *both("repositories/<str:owner>/", views.repository_owner_list, "repository-owner"),
    # Owners may be nested groups (gitlab.com/group/subgroup/name): the sub-resources come
    # before the repository itself, whose owner is the whole path before its name.
    *both(
        "repositories/<path:owner>/<str:name>/papers/",
        views.repository_papers,
        "repository-papers",
    ),
    *both(
        "repositories/<path:owner>/<str:name>/samples/",
        views.repository_samples,
        "repository-samples",
    ),
    *both("repositories/<path:owner>/<str:name>/", views.repository_detail, "repository"),
    *both("authors/", views.author_list, "author-list"),
    *both("authors/<str:author_id>/", views.author_detail, "author"),
    *both("authors/<str:author_id>/papers/", views.author_papers, "author-papers"),
    *both("conferences/", views.conference_list, "conference-list"),
    *both("conferences/<str:conference_id>/", views.conference_detail, "conference"),
    *both(
        "conferences/<str:conference_id>/proceedings/",
        views.proceeding_list,
        "proceeding-list",
    ),
    *both(
        "conferences/<str:conference_id>/proceedings/<str:proceeding_id>/",
        views.proceeding_detail,
        "proceeding",
    ),
    *both(
        "conferences/<str:conference_id>/proceedings/<str:proceeding_id>/papers/",
        views.proceeding_papers,
        "proceeding-papers",
    ),
    *both("areas/", taxonomy.area_list, "area-list"),
    *both("areas/<str:area_id>/", taxonomy.area_detail, "area"),
    *both("areas/<str:area_id>/tasks/", taxonomy.area_tasks, "area-tasks"),
    *both("tasks/", methods(taxonomy.task_list, POST="task_add"), "task-list"),
    *both(
        "tasks/<str:task_id>/",
        methods(taxonomy.task_detail, PATCH="task_update", DELETE="task_delete"),
        "task",
    ),
    *both("tasks/<str:task_id>/parents/", taxonomy.task_parents, "task-parents"),
    *both("tasks/<str:task_id>/children/", taxonomy.task_children, "task-children"),
    *both("tasks/<str:task_id>/papers/", taxonomy.task_papers, "task-papers"),
    *both("tasks/<str:task_id>/evaluations/", taxonomy.task_evaluations, "task-evaluations"),
    *both("datasets/", methods(taxonomy.dataset_list, POST="dataset_add"), "dataset-list"),
    *both(
        "datasets/<str:dataset_id>/",
        methods(taxonomy.dataset_detail, PATCH="dataset_update", DELETE="dataset_delete"),
        "dataset",
    ),
    *both(
        "datasets/<str:dataset_id>/evaluations/",
        taxonomy.dataset_evaluations,
        "dataset-evaluations",
    ),
    *both("methods/", taxonomy.method_list, "method-list"),
    *both(
        "methods/<str:method_id>/",
        methods(taxonomy.method_detail, PATCH="method_update"),
        "method",
    ),
    *both(
        "evaluations/",
        methods(taxonomy.evaluation_list, POST="evaluation_create"),
        "evaluation-list",
    ),
    *both(
        "evaluations/<str:evaluation_id>/",
        methods(taxonomy.evaluation_detail, PATCH="evaluation_update", DELETE="evaluation_delete"),
        "evaluation",
    ),
    *both(
        "evaluations/<str:evaluation_id>/metrics/",
        methods(taxonomy.evaluation_metrics, POST="evaluation_metric_add"),
        "evaluation-metrics",
    ),
    *both(
        "evaluations/<str:evaluation_id>/metrics/<str:metric_id>/",
        methods(
            taxonomy.evaluation_metric,
            PATCH="evaluation_metric_update",
            DELETE="evaluation_metric_delete",
        ),
        "evaluation-metric",
    ),
    *both(
        "evaluations/<str:evaluation_id>/results/",
        methods(taxonomy.evaluation_results, POST="evaluation_result_add"),
        "evaluation-results",
    ),
    *both(
        "evaluations/<str:evaluation_id>/results/<str:result_id>/",
        methods(
            taxonomy.evaluation_result,
            PATCH="evaluation_result_update",
            DELETE="evaluation_result_delete",
        ),
        "evaluation-result",
    ),
    *both(
        "rpc/evaluation-synchronize/",
        methods(views.read_only, POST="evaluation_synchronize"),
        "evaluation-synchronize",
    ),
    *both("records/", records.records, "records"),
    re_path(r"^.*$", views.not_found),
]
