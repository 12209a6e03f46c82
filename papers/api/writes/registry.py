"""Every write call by name: what papers.api.writes.views runs (and an approved
proposal runs again)."""

from papers.api.writes.operations import (
    dataset_add,
    dataset_delete,
    dataset_update,
    evaluation_create,
    evaluation_delete,
    evaluation_metric_add,
    evaluation_metric_delete,
    evaluation_metric_update,
    evaluation_result_add,
    evaluation_result_delete,
    evaluation_result_update,
    evaluation_update,
    method_update,
    task_add,
    task_delete,
    task_update,
)
from papers.api.writes.papers import code_link_add, paper_add, paper_update
from papers.api.writes.sync import evaluation_synchronize

OPERATIONS = {
    "task_add": task_add,
    "task_update": task_update,
    "task_delete": task_delete,
    "dataset_add": dataset_add,
    "dataset_update": dataset_update,
    "dataset_delete": dataset_delete,
    "method_update": method_update,
    "evaluation_create": evaluation_create,
    "evaluation_update": evaluation_update,
    "evaluation_delete": evaluation_delete,
    "evaluation_metric_add": evaluation_metric_add,
    "evaluation_metric_update": evaluation_metric_update,
    "evaluation_metric_delete": evaluation_metric_delete,
    "evaluation_result_add": evaluation_result_add,
    "evaluation_result_update": evaluation_result_update,
    "evaluation_result_delete": evaluation_result_delete,
    "evaluation_synchronize": evaluation_synchronize,
    "paper_add": paper_add,
    "paper_update": paper_update,
    "code_link_add": code_link_add,
}
DELETES = {name for name in OPERATIONS if name.endswith("_delete")}
