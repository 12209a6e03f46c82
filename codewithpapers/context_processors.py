from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.utils.encoding import escape_uri_path

from codewithpapers.public import public_base_url


def page(request: HttpRequest) -> dict:
    """The page's canonical URL: the public address (codewithpapers.public) and the path
    without its query string, so filtered and paged variants name one page."""
    try:
        base = public_base_url(request)
    except DisallowedHost:  # the 400 page for a bad Host header
        return {}
    return {"canonical_url": base + escape_uri_path(request.path), "site_url": base}
