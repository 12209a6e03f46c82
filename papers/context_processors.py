from django.conf import settings


def site(request):
    """The archive notices every page's footer carries, and the layout an error page
    takes (error_layout: see the function)."""
    return {
        "ARCHIVE_ABOUT": settings.ARCHIVE_ABOUT,
        "ARCHIVE_SNAPSHOT": settings.ARCHIVE_SNAPSHOT,
        "error_layout": error_layout(request),
    }


def error_layout(request) -> str:
    """An error page is the region an htmx request asked for (its HX-Target, which htmx
    swaps a 4xx answer into) or the whole page. Read from the headers: a request refused
    by middleware never reached django-htmx's."""
    headers = request.headers
    if (
        headers.get("HX-Request") == "true"
        and headers.get("HX-Target")
        and headers.get("HX-History-Restore-Request") != "true"
    ):
        return "_error_fragment.html"
    return "_error_page.html"
