"""The site's contribution forms: what a signed-in reader fills in on a record's page, each
turned into one write call (papers.api.writes) by `call()`.

The forms check what a reader can fix before the call is made (a repository URL that
names no repository, a task or dataset that does not exist, a metric the board does not
have), because a contributor's call is not run until a moderator approves it: the
reader must hear about it now. What the call itself refuses comes back by the call's
field names (`FieldErrors`, `Invalid.field`); `form_field()` says which field of the
form shows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django import forms
from django.core.validators import URLValidator

from papers.api.writes.fields import MAX_TEXT
from papers.api.writes.operations import Invalid
from papers.api.writes.papers import LINKS, named_records, normalise_repository_url
from papers.identifiers import evaluation_id, parse_arxiv
from papers.markup import only_links
from papers.metrics import inferred_direction
from papers.models import CodeLink, Dataset, Leaderboard, Paper, Repository, Task


@dataclass
class Call:
    """One write call: the operation, its URL's ids, its body and the revision's comment.
    `held`: a proposal whatever the writer's level."""

    operation: str
    target: dict
    body: dict
    comment: str = ""
    held: bool = False
    noun: str = "change"
    fields: dict[str, str] = field(default_factory=dict)


class ContributionForm(forms.Form):
    """A form on a record's page. `body_fields`: the call's body fields shown by a field
    of the form with another name."""

    body_fields: dict[str, str] = {}

    def __init__(self, *args, record, **kwargs):
        self.record = record
        super().__init__(*args, **kwargs)

    def call(self) -> Call:
        raise NotImplementedError

    def form_field(self, body_field: str) -> str | None:
        """The form's field that shows errors of the call's `body_field` (None: the form's
        own errors, above its fields)."""
        name = self.body_fields.get(body_field, body_field)
        return name if name in self.fields else None


def _record_named(model, text: str):
    """A task or dataset by its id or its name (any case)."""
    text = text.strip()
    return (
        model.objects.filter(slug=text).first()
        or model.objects.filter(name__iexact=text).order_by("id").first()
    )


def _location_comment(location: str) -> str:
    return f"Where in the paper: {location}" if location else ""


# --- code -----------------------------------------------------------------------------------

FRAMEWORKS = [
    ("", "Not stated"),
    ("pytorch", "PyTorch"),
    ("tf", "TensorFlow"),
    ("jax", "JAX"),
    ("mxnet", "MXNet"),
    ("paddle", "PaddlePaddle"),
    ("mindspore", "MindSpore"),
    ("caffe2", "Caffe2"),
    ("torch", "Torch (Lua)"),
]


class CodeForm(ContributionForm):
    url = forms.CharField(
        label="Repository URL",
        max_length=500,
        help_text="The repository's address, as https://github.com/owner/name.",
        widget=forms.URLInput(attrs={"autocomplete": "url", "inputmode": "url"}),
    )
    framework = forms.ChoiceField(label="Framework", choices=FRAMEWORKS, required=False)
    is_official = forms.BooleanField(label="The authors' official code", required=False)

    def clean_url(self) -> str:
        url = self.cleaned_data["url"].strip()
        if not re.match(r"(?i)^https?://", url):
            url = "https://" + url
        try:
            URLValidator(schemes=["http", "https"])(url)
        except forms.ValidationError as exc:
            raise forms.ValidationError("Enter the repository's web address.") from exc
        url = normalise_repository_url(url)
        if not Repository.parts_from_url(url)[1]:
            raise forms.ValidationError("This names no repository (https://host/owner/name).")
        linked = CodeLink.objects.filter(paper=self.record, repository__url__iexact=url)
        if linked.exists():
            raise forms.ValidationError("This paper already links this repository.")
        return url

    def call(self) -> Call:
        data = self.cleaned_data
        return Call(
            "code_link_add",
            {"paper_id": self.record.slug},
            {
                "url": data["url"],
                "framework": data["framework"],
                "is_official": data["is_official"],
            },
            noun="code link",
        )


# --- results --------------------------------------------------------------------------------

_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*%?$")


def metric_value(text: str) -> str:
    text = text.strip()
    if not _NUMBER.match(text):
        raise forms.ValidationError(f"{text[:30]!r} is not a number (91.2 or 91.2%).")
    return text


class ResultFields(ContributionForm):
    """What every result form asks besides its board and its metrics."""

    model = forms.CharField(label="Model name", max_length=500)
    location = forms.CharField(
        label="Where in the paper",
        max_length=200,
        required=False,
        help_text='A table or figure, as "Table 2".',
    )
    uses_additional_data = forms.BooleanField(
        label="Trained with data beyond the benchmark's (extra training data)", required=False
    )
    body_fields = {"methodology": "model", "uses_additional_data": "uses_additional_data"}

    def result_body(self, paper: Paper, metrics: dict) -> dict:
        body = {
            "metrics": metrics,
            "methodology": self.cleaned_data["model"],
            "uses_additional_data": self.cleaned_data["uses_additional_data"],
            "paper": paper.slug,
        }
        if paper.published:
            body["evaluated_on"] = paper.published.isoformat()
        return body


class PaperResultForm(ResultFields):
    """A result of the paper shown: a task, then a board of it (by its dataset) or a new
    board on another dataset; its metric values as lines of "name: value"."""

    task = forms.CharField(
        label="Task",
        max_length=500,
        help_text="A task's name or id.",
        widget=forms.TextInput(attrs={"list": "result-tasks", "autocomplete": "off"}),
    )
    dataset = forms.CharField(
        label="Dataset",
        max_length=500,
        help_text="The dataset of one of the task's leaderboards, or another dataset: a new "
        "leaderboard is made for it.",
        widget=forms.TextInput(attrs={"list": "result-datasets", "autocomplete": "off"}),
    )
    metrics = forms.CharField(
        label="Metric values",
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text='One a line: "Top-1 Accuracy: 91.2".',
    )
    field_order = ["task", "dataset", "model", "metrics", "location", "uses_additional_data"]

    def clean_task(self) -> Task:
        found = _record_named(Task, self.cleaned_data["task"])
        if found is None:
            raise forms.ValidationError("No task has this name or id.")
        return found

    def clean_dataset(self) -> Dataset:
        found = _record_named(Dataset, self.cleaned_data["dataset"])
        if found is None:
            raise forms.ValidationError("No dataset has this name or id.")
        return found

    def clean_metrics(self) -> dict:
        values: dict[str, str] = {}
        for line in self.cleaned_data["metrics"].splitlines():
            if not line.strip():
                continue
            name, sep, value = line.rpartition(":")
            if not sep or not name.strip():
                raise forms.ValidationError(f'Write each line as "name: value" ({line[:40]!r}).')
            values[name.strip()[:255]] = metric_value(value)
        if not values:
            raise forms.ValidationError("Give at least one metric value.")
        return values

    def clean(self):
        data = super().clean()
        task, dataset, metrics = data.get("task"), data.get("dataset"), data.get("metrics")
        if not (task and dataset and metrics):
            return data
        self.board = Leaderboard.objects.filter(task=task, dataset=dataset).first()
        if self.board is not None:
            names = {m.name.casefold(): m.name for m in self.board.metrics.all()}
            unknown = [name for name in metrics if name.casefold() not in names]
            if names and unknown:
                self.add_error(
                    "metrics",
                    f"This leaderboard has no metric {unknown[0]!r}; its metrics: "
                    + ", ".join(names.values()),
                )
            data["metrics"] = {names.get(k.casefold(), k): v for k, v in metrics.items()}
        return data

    def call(self) -> Call:
        data, paper = self.cleaned_data, self.record
        task, dataset = data["task"], data["dataset"]
        result = self.result_body(paper, data["metrics"])
        comment = _location_comment(data["location"])
        if self.board is not None:
            target = {"evaluation_id": evaluation_id(task.slug, dataset.slug)}
            return Call("evaluation_result_add", target, result, comment, noun="result")
        metrics = [
            {"name": name, "is_loss": bool(inferred_direction(name))} for name in data["metrics"]
        ]
        body = {"task": task.slug, "dataset": dataset.slug, "metrics": metrics}
        return Call("evaluation_synchronize", {}, {**body, "results": [result]}, comment,
                    noun="result")  # fmt: skip

    def form_field(self, body_field: str) -> str | None:
        if body_field == "results":
            return "metrics"
        return super().form_field(body_field)


class BoardResultForm(ResultFields):
    """A result on the board shown: its paper and a value for each of its metrics."""

    paper = forms.CharField(
        label="Paper", max_length=500, help_text="Its arXiv id (2006.12467) or its id here."
    )
    field_order = ["paper", "model"]

    def __init__(self, *args, record: Leaderboard, **kwargs):
        super().__init__(*args, record=record, **kwargs)
        self.metric_names = {}
        for position, metric in enumerate(record.metrics.all()):
            name = f"metric_{position}"
            self.metric_names[name] = metric.name
            self.fields[name] = forms.CharField(label=metric.name, max_length=100, required=False)
        self.order_fields(["paper", "model", *self.metric_names])

    def clean_paper(self) -> Paper:
        text = self.cleaned_data["paper"].strip()
        found = Paper.objects.visible().filter(slug=text).first()
        if found is None and parse_arxiv(text):
            found = Paper.objects.named_by(text)
        if found is None:
            raise forms.ValidationError("No paper here has this arXiv id or id.")
        return found

    def clean(self):
        data = super().clean()
        metrics = {}
        for name, metric in self.metric_names.items():
            value = (data.get(name) or "").strip()
            if value:
                try:
                    metrics[metric] = metric_value(value)
                except forms.ValidationError as exc:
                    self.add_error(name, exc)
        if self.metric_names and not metrics and not self.errors:
            self.add_error(next(iter(self.metric_names)), "Give at least one metric value.")
        data["metrics"] = metrics
        return data

    def call(self) -> Call:
        data, board = self.cleaned_data, self.record
        target = {"evaluation_id": evaluation_id(board.task.slug, board.dataset.slug)}
        body = self.result_body(data["paper"], data["metrics"])
        comment = _location_comment(data["location"])
        return Call("evaluation_result_add", target, body, comment, noun="result")

    def form_field(self, body_field: str) -> str | None:
        if body_field == "metrics" and self.metric_names:
            return next(iter(self.metric_names))
        return super().form_field(body_field)


# --- a paper's correction ---------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class CorrectionForm(ContributionForm):
    """A paper's title, date, arXiv id, and its tasks, methods and datasets (one a line)."""

    title = forms.CharField(label="Title", max_length=1000)
    published = forms.DateField(
        label="Date", required=False, help_text="YYYY-MM-DD", widget=forms.DateInput(
            attrs={"type": "date"}
        ),
    )  # fmt: skip
    arxiv_id = forms.CharField(label="arXiv id", max_length=32, required=False)
    tasks = forms.CharField(
        label="Tasks", required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One a line, by name or id.",
    )  # fmt: skip
    methods = forms.CharField(
        label="Methods", required=False, max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}), help_text="One a line, by name or id.",
    )  # fmt: skip
    datasets = forms.CharField(
        label="Datasets", required=False, max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}), help_text="One a line, by name or id.",
    )  # fmt: skip
    reason = forms.CharField(
        label="Why (a source helps the moderator)", required=False, max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )  # fmt: skip

    @staticmethod
    def initial_for(paper: Paper) -> dict:
        return {
            "title": paper.title,
            "published": paper.published,
            "arxiv_id": paper.arxiv_id or "",
            "tasks": "\n".join(link.task.name for link in paper.task_links.all()),
            "methods": "\n".join(m.name for m in paper.methods.all()),
            "datasets": "\n".join(d.name for d in paper.datasets.all()),
        }

    def clean_arxiv_id(self) -> str:
        text = self.cleaned_data["arxiv_id"].strip()
        if text and not parse_arxiv(text):
            raise forms.ValidationError("Not an arXiv id (2006.12467).")
        arxiv = parse_arxiv(text) if text else ""
        if arxiv and Paper.objects.filter(arxiv_id=arxiv).exclude(pk=self.record.pk).exists():
            raise forms.ValidationError(f"Another paper has arXiv id {arxiv}.")
        return arxiv

    def _names(self, name: str) -> str:
        """One a line, each naming a record that exists (checked now: a proposal's call is
        only run when a moderator approves it)."""
        text = self.cleaned_data[name]
        try:
            named_records(LINKS[name][0], name, _lines(text))
        except Invalid as exc:
            raise forms.ValidationError(exc.message[:1].upper() + exc.message[1:] + ".") from exc
        return text

    def clean_tasks(self) -> str:
        return self._names("tasks")

    def clean_methods(self) -> str:
        return self._names("methods")

    def clean_datasets(self) -> str:
        return self._names("datasets")

    def call(self) -> Call:
        data, now = self.cleaned_data, self.initial_for(self.record)
        body: dict = {}
        for name in ("title", "arxiv_id"):
            if data[name] != now[name]:
                body[name] = data[name]
        if data["published"] != now["published"]:
            body["published"] = data["published"].isoformat() if data["published"] else ""
        for name in ("tasks", "methods", "datasets"):
            if [n.casefold() for n in _lines(data[name])] != [
                n.casefold() for n in _lines(now[name])
            ]:
                body[name] = _lines(data[name])
        if not body:
            raise forms.ValidationError("Nothing is changed: edit a field first.")
        return Call(
            "paper_update", {"paper_id": self.record.slug}, body, data["reason"], noun="correction"
        )


# --- descriptions -----------------------------------------------------------------------------


class DescriptionForm(ContributionForm):
    """A task's, dataset's or method's description, in Markdown."""

    description = forms.CharField(
        label="Description (Markdown)",
        max_length=MAX_TEXT,
        required=False,
        widget=forms.Textarea(attrs={"rows": 10}),
        help_text="Markdown: **bold**, [links](https://…), lists, tables and $math$.",
    )
    reason = forms.CharField(
        label="Why (a source helps the moderator)", required=False, max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )  # fmt: skip

    def __init__(self, *args, record, kind: str, **kwargs):
        self.kind = kind
        super().__init__(*args, record=record, **kwargs)

    def call(self) -> Call:
        text = self.cleaned_data["description"].strip()
        if text == (self.record.description or "").strip():
            raise forms.ValidationError("Nothing is changed: edit the description first.")
        return Call(
            f"{self.kind}_update",
            {f"{self.kind}_id": self.record.slug},
            {"description": text},
            self.cleaned_data["reason"],
            held=only_links(text),
            noun="description",
        )
