"""Tags and filters for what every page says about itself: titles, links, meta."""

from __future__ import annotations

from urllib.parse import urlsplit

from django import template
from django.utils.safestring import mark_safe

register = template.Library()


class CaptureNode(template.Node):
    def __init__(self, nodelist: template.NodeList, name: str):
        self.nodelist = nodelist
        self.name = name

    def render(self, context) -> str:
        # The output is already escaped template output: one line, marked safe so it is
        # not escaped a second time where it is used.
        context[self.name] = mark_safe(" ".join(self.nodelist.render(context).split()))
        return ""


@register.tag
def capture(parser, token):
    """{% capture name %}…{% endcapture %}: render once, use {{ name }} many times.

    base.html captures its title and description blocks, which child templates fill,
    and repeats them in <title>, the description meta and the OpenGraph/Twitter cards
    (a block can be rendered only once)."""
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("usage: {% capture name %}…{% endcapture %}")
    nodelist = parser.parse(("endcapture",))
    parser.delete_first_token()
    return CaptureNode(nodelist, bits[1])


@register.filter
def is_http_url(value) -> bool:
    """True for an absolute http(s) URL with a host: the only URLs the site links to
    (never javascript:, data: or a relative path smuggled in an archive record)."""
    if not isinstance(value, str):
        return False
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return parts.scheme.lower() in {"http", "https"} and bool(parts.netloc)
