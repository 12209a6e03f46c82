"""Query-parameter validation for the search and sample pages.

Bad values become a 400 page naming the parameter (see views.bad_request_for),
never a 500 and never a silently different result.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from django import forms
from django.core.exceptions import ValidationError

from papers.querysets import NAMED, named_ids, nearest_names
from papers.search import SORTS
from papers.vocabularies import SampleStatus

MAX_PAGE = 50  # 20 results a page: 1,000 results are enough to browse; refine beyond
NAME_MAX = 255


class _Text(forms.CharField):
    def __init__(self, **kwargs):
        super().__init__(required=False, max_length=NAME_MAX, strip=True, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if "\x00" in value:
            raise ValidationError("contains a NUL character")
        return value


class Flag(forms.Field):
    """A checkbox parameter: absent/""/0/false/off is off, 1/true/on is on; else a 400."""

    ON, OFF = {"1", "true", "on", "yes"}, {"", "0", "false", "off", "no"}

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def to_python(self, value):
        text = (value or "").strip().lower()
        if text in self.ON:
            return True
        if text in self.OFF:
            return False
        raise ValidationError("must be 1 or 0")


class QueryText(forms.CharField):
    """The search box: any text at all, NUL bytes included (papers.search makes it safe)."""

    def __init__(self, **kwargs):
        super().__init__(required=False, strip=False, **kwargs)
        self.validators = []


# The search sorts (papers.search.SORTS) as the Sort menu names them.
SORT_LABELS = {
    "relevance": "Relevance",
    "newest": "Newest",
    "implementations": "Most implementations",
}


# An arXiv category: "cs.CV", "stat.ML", "hep-th", "math.AG", "physics.comp-ph".
CATEGORY = re.compile(r"^[a-z][a-z-]{0,15}(\.[A-Za-z][A-Za-z-]{0,15})?$")


class CategoryField(forms.CharField):
    def __init__(self, **kwargs):
        super().__init__(required=False, max_length=32, strip=True, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if value and not CATEGORY.match(value):
            raise forms.ValidationError("not an arXiv category (such as cs.CV or hep-th)")
        return value


class SearchForm(forms.Form):
    """The search page's parameters. Task, method and dataset are names or slugs in any
    case, the framework any case of one the code links name ("unspecified" for those
    that name none), the status a code or its label. Their cleaned data add what the
    filters apply: `frameworks` (the stored spellings) and `task_ids`, `method_ids`,
    `dataset_ids`. A value nothing has is in `unknown`, with the nearest names."""

    q = QueryText()
    has_code = Flag()
    official = Flag()
    has_report = Flag()  # the paper's code has an execution report
    framework = _Text()
    status = _Text()
    task = _Text()
    method = _Text()
    dataset = _Text()
    author = _Text()  # an author's slug: "search within" an author page's papers
    repository = forms.CharField(required=False, max_length=500, strip=True)  # its URL
    category = CategoryField()  # an arXiv category, primary or cross-listed
    year_from = forms.IntegerField(required=False, min_value=1000, max_value=2100)
    year_to = forms.IntegerField(required=False, min_value=1000, max_value=2100)
    sort = forms.ChoiceField(required=False, choices=[(s, SORT_LABELS[s]) for s in SORTS])
    page = forms.IntegerField(required=False, min_value=1)

    def __init__(self, *args, frameworks: Sequence[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.frameworks = list(frameworks)  # every framework the code links name
        self.unknown: list[dict] = []  # {"field", "text", "suggestions"}

    def clean_q(self):
        return (self.cleaned_data.get("q") or "").replace("\x00", " ")[:10_000]

    def clean_status(self):
        value = self.cleaned_data["status"]
        folded = value.casefold()
        for status in SampleStatus:
            if folded in (status.value, status.label.casefold()):
                return status.value
        return value  # a status the vocabulary does not know yet: as given

    def clean(self):
        data = super().clean()
        low, high = data.get("year_from"), data.get("year_to")
        if low and high and low > high:
            self.add_error("year_to", "must not be before year_from")
        if text := data.get("framework"):
            folded = text.casefold()
            wanted = {folded, "none"} if folded == "unspecified" else {folded}
            data["frameworks"] = [f for f in self.frameworks if f.casefold() in wanted]
            if not data["frameworks"]:
                shown = {"unspecified" if f == "none" else f: f for f in self.frameworks}
                near = difflib.get_close_matches(folded, list(shown), n=3, cutoff=0.5)
                self.unknown.append({"field": "framework", "text": text, "suggestions": near})
        for key, model in NAMED.items():
            if text := data.get(key):
                data[f"{key}_ids"] = named_ids(model, text)
                if not data[f"{key}_ids"]:
                    near = nearest_names(model, text)
                    self.unknown.append({"field": key, "text": text, "suggestions": near})
        return data

    @property
    def too_deep(self) -> bool:
        return (self.cleaned_data.get("page") or 1) > MAX_PAGE


class SampleFilters(forms.Form):
    """The sample filters alone, as the paper page reads them (its samples are not paged)."""

    status = _Text()
    contract_check = _Text()
    language = _Text()
    repo_kind = _Text()


class SampleFilterForm(SampleFilters):
    """The sample filters of /samples, the paper page and the API's sample endpoints."""

    FILTERS = ("status", "contract_check", "language", "repo_kind")
    PAGE = "page"  # the parameter that pages the list

    page = forms.IntegerField(required=False, min_value=1)

    def filters(self) -> dict[str, str]:
        """The chosen filters as Sample field lookups: {"status": "ran", …}."""
        return self.filters_of(self.cleaned_data)

    @classmethod
    def filters_of(cls, cleaned_data: dict) -> dict[str, str]:
        return {key: cleaned_data[key] for key in cls.FILTERS if cleaned_data[key]}


class RepositorySampleForm(SampleFilterForm):
    """A repository page's samples: paged by `samples_page`, as `page` pages its papers."""

    PAGE = "samples_page"

    page = None
    samples_page = forms.IntegerField(required=False, min_value=1)


class SampleListForm(SampleFilterForm):
    """/samples: the sample filters, and a repository as host/owner/name."""

    repository = _Text()

    def clean_repository(self):
        value = self.cleaned_data["repository"].removeprefix("https://").removeprefix("http://")
        value = value.strip("/")
        if value and value.count("/") < 2:
            raise ValidationError("give it as host/owner/name, e.g. github.com/owner/name")
        return value

    def repository_parts(self) -> dict[str, str] | None:
        """{"host", "owner", "name"} of the chosen repository (the owner may hold "/")."""
        value = self.cleaned_data.get("repository")
        if not value:
            return None
        host, rest = value.split("/", 1)
        owner, name = rest.rsplit("/", 1)
        return {"host": host, "owner": owner, "name": name}


def describe_errors(form: forms.Form) -> str:
    """'year_from: Enter a whole number.; page: …' for the 400 page."""
    return "; ".join(
        f"{name}: {' '.join(str(e) for e in errors)}" for name, errors in form.errors.items()
    )


# --- the browse pages ---------------------------------------------------------------------


class PaperPageForm(forms.Form):
    """A paged list of papers (task, method, dataset, author and repository pages)."""

    page = forms.IntegerField(required=False, min_value=1, max_value=100_000)
    per_page = forms.TypedChoiceField(
        required=False, coerce=int, choices=[("20", "20"), ("50", "50")], empty_value=None
    )


class CatalogueForm(PaperPageForm):
    """/tasks, /datasets, /methods and /sota: a name filter, a sort and a page."""

    q = _Text()
    sort = forms.ChoiceField(
        required=False,
        choices=[("name", "name"), ("papers", "papers"), ("benchmarks", "benchmarks")],
    )
    collection = _Text()


class DatasetIndexForm(CatalogueForm):
    """/datasets: besides the catalogue's, Papers with Code's filters by modality, task
    and language (`?mod=images&task=image-classification&lang=english`), each a value's
    name or slug."""

    mod = _Text()
    task = _Text()
    lang = _Text()


class VenueIndexForm(PaperPageForm):
    """/conferences: a name filter, a sort and a page."""

    q = _Text()
    sort = forms.ChoiceField(required=False, choices=[("name", "name"), ("papers", "papers")])


class BoardForm(forms.Form):
    """A leaderboard page: the metric ranking its rows (its id, the slug of its name) and
    which rows it keeps: all, those whose paper's code has an execution report, those
    with a sample that ran, or those as the archive gives them."""

    metric = _Text()
    rows = forms.ChoiceField(
        required=False,
        choices=[("", "all"), ("report", "report"), ("ran", "ran"), ("archive", "archive")],
    )
    page = forms.IntegerField(required=False, min_value=1, max_value=100_000)
