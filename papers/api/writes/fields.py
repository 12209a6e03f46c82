"""What each write call's JSON body takes: one form per call, in the client's request
models' terms (paperswithcode-client 0.3.1's *CreateRequest, *UpdateRequest and
*SyncRequest). The views validate every body here, and a schema can describe them from
these declarations.

In an update (PATCH) every field is optional and a null means "not given", as the client
sends every field of its request model, unset ones as null. A key no form declares is a
400 naming it.
"""

from __future__ import annotations

import datetime as dt

from django import forms
from django.core.validators import URLValidator

MAX_TEXT = 10_000
MAX_RESULTS = 20_000  # results in one evaluation_synchronize


class Text(forms.CharField):
    """Text without NUL characters."""

    def __init__(self, *, required=False, max_length=500, **kwargs):
        super().__init__(required=required, max_length=max_length, strip=True, **kwargs)

    def clean(self, value):
        if value is not None and not isinstance(value, str):
            raise forms.ValidationError("must be a string")
        value = super().clean(value)
        if "\x00" in value:
            raise forms.ValidationError("contains a NUL character")
        return value


class Url(Text):
    default_validators = [URLValidator(schemes=["http", "https"])]


class Flag(forms.Field):
    """A JSON boolean (true/false), nothing else."""

    json_schema = {"type": "boolean"}

    def clean(self, value):
        if value is None:
            if self.required:
                raise forms.ValidationError("is required")
            return None
        if not isinstance(value, bool):
            raise forms.ValidationError("must be true or false")
        return value


class Day(Text):
    """YYYY-MM-DD."""

    json_schema = {"type": "string", "format": "date"}

    def __init__(self, **kwargs):
        super().__init__(max_length=32, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if value:
            try:
                dt.date.fromisoformat(value[:10])
            except ValueError as exc:
                raise forms.ValidationError("must be a date, YYYY-MM-DD") from exc
            value = value[:10]
        return value


class Metrics(forms.Field):
    """{metric name: value}: names are text, values numbers or text (as the archive
    gives them: "91.2", "91.2%", 91.2)."""

    json_schema = {
        "type": "object",
        "maxProperties": 100,
        "additionalProperties": {"type": ["number", "string", "null"], "maxLength": 100},
    }

    def clean(self, value):
        if value is None:
            if self.required:
                raise forms.ValidationError("is required")
            return None
        if not isinstance(value, dict):
            raise forms.ValidationError("must be an object of metric name → value")
        if len(value) > 100:
            raise forms.ValidationError("at most 100 metrics")
        for name, number in value.items():
            if not name.strip() or len(name) > 255 or "\x00" in name:
                raise forms.ValidationError(f"metric name {name[:50]!r} is not a usable name")
            if isinstance(number, bool) or not isinstance(number, int | float | str | None):
                raise forms.ValidationError(f"metric {name[:50]!r}: a number or text")
            if isinstance(number, str) and len(number) > 100:
                raise forms.ValidationError(f"metric {name[:50]!r}: at most 100 characters")
        return value


class Listed(forms.Field):
    """A list of objects, each validated by `form`."""

    def __init__(self, form: type[forms.Form], *, max_items: int, **kwargs):
        super().__init__(required=False, **kwargs)
        self.form, self.max_items = form, max_items

    @property
    def json_schema(self) -> dict:
        from papers.api.openapi import array, body_schema

        return {**array(body_schema(self.form)), "maxItems": self.max_items}

    def clean(self, value):
        if value is None:
            return []
        if not isinstance(value, list):
            raise forms.ValidationError("must be a list")
        if len(value) > self.max_items:
            raise forms.ValidationError(f"at most {self.max_items} items")
        out = []
        for index, item in enumerate(value):
            if not isinstance(item, dict):
                raise forms.ValidationError(f"item {index} must be an object")
            cleaned, errors = validate(self.form, item)
            if errors:
                name, messages = next(iter(errors.items()))
                raise forms.ValidationError(f"item {index}, {name}: {' '.join(messages)}")
            out.append(cleaned)
        return out


# --- tasks, datasets ----------------------------------------------------------------------


class TaskCreate(forms.Form):
    name = Text(required=True)
    description = Text(max_length=MAX_TEXT)
    area = Text()
    parent_task = Text()


class TaskUpdate(TaskCreate):
    name = Text()


class DatasetCreate(forms.Form):
    name = Text(required=True)
    full_name = Text()
    url = Url()


class DatasetUpdate(forms.Form):
    name = Text()
    url = Url()
    description = Text(max_length=MAX_TEXT)


class MethodUpdate(forms.Form):
    name = Text()
    description = Text(max_length=MAX_TEXT)


# --- evaluation tables, metrics, results -----------------------------------------------------


class EvaluationCreate(forms.Form):
    task = Text(required=True)
    dataset = Text(required=True)
    description = Text(max_length=MAX_TEXT)
    mirror_url = Url()


class EvaluationUpdate(EvaluationCreate):
    task = Text()
    dataset = Text()


class MetricCreate(forms.Form):
    name = Text(required=True, max_length=255)
    description = Text(max_length=MAX_TEXT)
    is_loss = Flag(required=True)


class MetricUpdate(forms.Form):
    name = Text(max_length=255)
    description = Text(max_length=MAX_TEXT)
    is_loss = Flag(required=False)


class ResultCreate(forms.Form):
    metrics = Metrics(required=True)
    methodology = Text(required=True)
    uses_additional_data = Flag(required=False)
    paper = Text()
    evaluated_on = Day()
    external_source_url = Url()


class ResultUpdate(ResultCreate):
    metrics = Metrics(required=False)
    methodology = Text()


class MetricSync(forms.Form):
    name = Text(required=True, max_length=255)
    description = Text(max_length=MAX_TEXT)
    is_loss = Flag(required=False)


class ResultSync(ResultCreate):
    external_id = Text(max_length=255)


class EvaluationSync(forms.Form):
    task = Text(required=True)
    dataset = Text(required=True)
    description = Text(max_length=MAX_TEXT)
    mirror_url = Url()
    external_id = Text(max_length=255)
    metrics = Listed(MetricSync, max_items=100)
    results = Listed(ResultSync, max_items=MAX_RESULTS)


# --- papers, code links ---------------------------------------------------------------------


class PaperCreate(forms.Form):
    arxiv_id = Text(required=True, max_length=32)
    title = Text(max_length=1000)
    abstract = Text(max_length=MAX_TEXT)
    authors = forms.JSONField(required=False)
    published = Day()
    url_abs = Url()
    url_pdf = Url()

    def clean_authors(self):
        authors = self.cleaned_data.get("authors") or []
        if not isinstance(authors, list) or not all(
            isinstance(a, str) and a.strip() and len(a) <= 500 and "\x00" not in a for a in authors
        ):
            raise forms.ValidationError("must be a list of names")
        if len(authors) > 500:
            raise forms.ValidationError("at most 500 authors")
        return [a.strip() for a in authors]


class Names(forms.Field):
    """A list of records' ids or names (tasks, methods, datasets)."""

    json_schema = {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 100}

    def clean(self, value):
        if value is None:
            return None
        if not isinstance(value, list):
            raise forms.ValidationError("must be a list of ids or names")
        if len(value) > 100:
            raise forms.ValidationError("at most 100 items")
        out = []
        for item in value:
            if not isinstance(item, str) or not item.strip() or len(item) > 500 or "\x00" in item:
                raise forms.ValidationError("must be a list of ids or names")
            if item.strip() not in out:
                out.append(item.strip())
        return out


class PaperUpdate(forms.Form):
    """A correction of a paper: its own fields, and its tasks, methods and datasets as
    whole lists (each replaces the paper's links of its kind)."""

    title = Text(max_length=1000)
    published = Day()
    arxiv_id = Text(max_length=32)
    tasks = Names()
    methods = Names()
    datasets = Names()


class CodeLinkCreate(forms.Form):
    url = Url(required=True)
    framework = Text(max_length=64)
    is_official = Flag(required=False)


# Bodies a call takes, by operation; None: the call takes no body (deletes).
FORMS: dict[str, type[forms.Form] | None] = {
    "task_add": TaskCreate,
    "task_update": TaskUpdate,
    "task_delete": None,
    "dataset_add": DatasetCreate,
    "dataset_update": DatasetUpdate,
    "dataset_delete": None,
    "method_update": MethodUpdate,
    "evaluation_create": EvaluationCreate,
    "evaluation_update": EvaluationUpdate,
    "evaluation_delete": None,
    "evaluation_metric_add": MetricCreate,
    "evaluation_metric_update": MetricUpdate,
    "evaluation_metric_delete": None,
    "evaluation_result_add": ResultCreate,
    "evaluation_result_update": ResultUpdate,
    "evaluation_result_delete": None,
    "evaluation_synchronize": EvaluationSync,
    "paper_add": PaperCreate,
    "paper_update": PaperUpdate,
    "code_link_add": CodeLinkCreate,
}
UPDATES = {name for name in FORMS if name.endswith("_update")}


def validate(
    form_class: type[forms.Form], body: dict, *, partial: bool = False
) -> tuple[dict, dict[str, list[str]]]:
    """(cleaned values, errors by field name). With `partial`, only the keys given (and
    not null) are validated and returned."""
    unknown = sorted(set(body) - set(form_class.base_fields))
    if unknown:
        known = ", ".join(form_class.base_fields)
        return {}, {name: [f"unknown field (this call takes: {known})"] for name in unknown}
    given = {k: v for k, v in body.items() if v is not None} if partial else body
    form = form_class(data=given)
    if partial:
        for name in list(form.fields):
            if name not in given:
                del form.fields[name]
    if not form.is_valid():
        return {}, {name: [str(m) for m in messages] for name, messages in form.errors.items()}
    return form.cleaned_data, {}


def checked(operation: str, body: dict) -> tuple[dict, dict[str, list[str]]]:
    """A call's body validated by its form (an update's only where given): (cleaned
    values, errors by field name). A call without a body checks nothing."""
    form = FORMS.get(operation)
    if form is None:
        return {}, {}
    return validate(form, body, partial=operation in UPDATES)
