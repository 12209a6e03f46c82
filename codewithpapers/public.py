"""The site's public address, for the absolute URLs it hands out: canonical links,
OpenGraph cards, sitemaps, robots.txt and feeds.

SITE_URL when set. Otherwise the request's scheme and host (ALLOWED_HOSTS vets the
host), with a port only when it is the one the server listens on: ALLOWED_HOSTS does not
look at ports, so `Host: codewithpapers.app:1337` would otherwise put a made-up port in
every canonical link and sitemap cached for other visitors.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest
from django.http.request import split_domain_port

DEFAULT_PORTS = {"http": "80", "https": "443"}


def public_base_url(request: HttpRequest) -> str:
    """`scheme://host[:port]` with no trailing slash (raises DisallowedHost for a Host
    header outside ALLOWED_HOSTS)."""
    if settings.SITE_URL:
        return settings.SITE_URL
    host = request.get_host()
    domain, port = split_domain_port(host)
    if host.startswith("["):  # IPv6: split_domain_port keeps the brackets
        domain = host[: host.index("]") + 1]
    scheme = request.scheme
    if port and port == request.META.get("SERVER_PORT") and port != DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{domain}:{port}"
    return f"{scheme}://{domain}"


class PublicRequest:
    """The request as seen at the public address, for Django's feed and sitemap views,
    which build their absolute URLs from `request.get_host()` and `request.scheme`.
    Everything else is the request's own."""

    def __init__(self, request: HttpRequest):
        self._request = request
        base = urlsplit(public_base_url(request))
        self.scheme = base.scheme
        self._host = base.netloc

    def get_host(self) -> str:
        return self._host

    def is_secure(self) -> bool:
        return self.scheme == "https"

    def __getattr__(self, name: str):
        return getattr(self._request, name)
