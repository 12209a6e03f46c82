import os

from django.core.wsgi import get_wsgi_application
from django.template.loader import get_template
from django.urls import get_resolver

from codewithpapers.backends import bound_requests

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")
application = get_wsgi_application()

# The site's requests are bounded (statement timeout); commands and scripts are not.
bound_requests()

# Django imports the views (and everything they import) on the first request, which costs
# over a second. Doing it here, with gunicorn's preload_app, does it once in the master:
# every worker, recycled ones included, forks with it done, and the first request a worker
# answers (often a 503 page while the database is away) is as fast as the rest.
get_resolver().reverse_dict  # noqa: B018
for name in ("503.html", "500.html", "404.html"):
    get_template(name)
