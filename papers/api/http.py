"""The API's HTTP conventions, in one place: read-only JSON, JSON errors, pages, validators.

Every endpoint is a function `(request, **url_kwargs) -> Payload` wrapped in `@endpoint`,
which answers:
- 405 with a JSON body for anything but GET/HEAD (writes are routed to
  papers.api.writes before they reach a read endpoint); CSRF does not apply: writes
  authenticate with a token, never a cookie;
- 400 naming the parameter when a query parameter is unknown or invalid (`BadParameter`);
- 404 in JSON for an unknown id (`Http404`, `ObjectDoesNotExist`);
- 200 with an `ETag` (a hash of the body) and, for single objects, a `Last-Modified`,
  and 304 to a conditional GET that matches either, through Django's own
  `get_conditional_response` (the same logic as `ConditionalGetMiddleware`).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, set_response_etag
from django.utils.http import http_date
from django.views.decorators.csrf import csrf_exempt

from codewithpapers.http import json_error, json_response
from papers.paging import Window

ITEMS_PER_PAGE = 50  # the client's default
MAX_ITEMS_PER_PAGE = 500  # larger requests are served 500 a page; `next` says so
MAX_PAGE = 1_000_000  # keeps OFFSET within every engine's integer range
ID_MAX_LENGTH = 255
SAFE_METHODS = ("GET", "HEAD")


class BadParameter(Exception):
    def __init__(self, parameter: str, reason: str):
        self.parameter = parameter
        self.reason = reason
        super().__init__(f"{parameter}: {reason}")


@dataclass
class Payload:
    """What an endpoint answers: the JSON data, and when the object last changed (single
    objects only: a list's newest change is not known without another query)."""

    data: Any
    last_modified: dt.datetime | None = None


def error(status: int, message: str, **extra) -> HttpResponse:
    return json_error(status, message, **extra)


def conditional_json(
    request: HttpRequest, data: Any, last_modified: dt.datetime | None = None
) -> HttpResponse:
    """A 200 JSON response with validators, or 304 when the client's copy is current."""
    response = json_response(data)
    set_response_etag(response)
    timestamp = int(last_modified.timestamp()) if last_modified else None
    if timestamp is not None:
        response["Last-Modified"] = http_date(timestamp)
    return get_conditional_response(
        request, etag=response["ETag"], last_modified=timestamp, response=response
    )


def endpoint(view: Callable[..., Payload]) -> Callable[..., HttpResponse]:
    @csrf_exempt
    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method not in SAFE_METHODS:
            response = error(405, f"{request.method} is not allowed on {request.path}")
            response["Allow"] = ", ".join(SAFE_METHODS)
            return response
        for value in (*args, *kwargs.values()):
            if not is_usable_id(value):
                return error(404, "Not found.")
        try:
            payload = view(request, *args, **kwargs)
        except BadParameter as exc:
            return error(400, str(exc), parameter=exc.parameter)
        except (Http404, ObjectDoesNotExist):
            return error(404, "Not found.")
        return conditional_json(request, payload.data, payload.last_modified)

    return wrapper


def is_usable_id(value: str) -> bool:
    """Ids from the URL that no row can have (NUL bytes, absurd lengths) are a plain 404,
    never a database error."""
    return isinstance(value, str) and "\x00" not in value and len(value) <= 2 * ID_MAX_LENGTH


def newest(*timestamps: dt.datetime | None) -> dt.datetime | None:
    return max((t for t in timestamps if t is not None), default=None)


# --- query parameters ------------------------------------------------------------------


class PageForm(forms.Form):
    """`page` and `items_per_page`; endpoint forms add their filters to it."""

    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)
    items_per_page = forms.IntegerField(required=False, min_value=1)

    def clean_items_per_page(self) -> int:
        size = self.cleaned_data.get("items_per_page") or ITEMS_PER_PAGE
        return min(size, MAX_ITEMS_PER_PAGE)

    def clean_page(self) -> int:
        return self.cleaned_data.get("page") or 1


def parameters(request: HttpRequest, form_class: type[forms.Form]) -> dict[str, Any]:
    """The request's query parameters, validated: unknown names and bad values raise
    BadParameter naming the first offending parameter."""
    form = form_class(request.GET)
    for name in request.GET:
        if name not in form.fields:
            known = ", ".join(sorted(form.fields))
            raise BadParameter(name, f"unknown parameter (this endpoint takes: {known})")
    if not form.is_valid():
        name, errors = next(iter(form.errors.items()))
        raise BadParameter(name, " ".join(str(e) for e in errors))
    return form.cleaned_data


def requested_page(params: dict[str, Any]) -> Window:
    """The page `page` and `items_per_page` ask for (PageForm's cleaned values)."""
    return Window(params["page"], params["items_per_page"])


def page_of(
    request: HttpRequest, page: Window, count: int, results: Iterable, **extra
) -> dict[str, Any]:
    """{count, next, previous, results}: next/previous are absolute URLs that keep the
    request's other parameters (paperswithcode-client reads `page` back from them)."""

    def link(number: int) -> str:
        query = request.GET.copy()
        query["page"] = str(number)
        query["items_per_page"] = str(page.size)
        return request.build_absolute_uri(f"{request.path}?{urlencode(sorted(query.items()))}")

    return {
        "count": count,
        "next": link(page.number + 1) if page.stop < count else None,
        "previous": link(page.number - 1) if page.number > 1 else None,
        "results": list(results),
        **extra,
    }


class Text(forms.CharField):
    """A filter's text: up to 255 characters, no NUL bytes; empty means no filter."""

    def __init__(self, **kwargs):
        super().__init__(required=False, max_length=ID_MAX_LENGTH, strip=True, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if "\x00" in value:
            raise forms.ValidationError("contains a NUL character")
        return value
