from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.utils.encoding import escape_uri_path


def page(request: HttpRequest) -> dict:
    """The page's canonical URL: SITE_URL (or the request's own scheme and host) and the
    path without its query string, so filtered and paged variants name one page."""
    try:
        base = settings.SITE_URL or f"{request.scheme}://{request.get_host()}"
    except DisallowedHost:  # the 400 page for a bad Host header
        return {}
    return {"canonical_url": base + escape_uri_path(request.path), "site_url": base}
