"""The test suite's settings: the site's own (codewithpapers/settings.py), with Django's
fast choices for tests. pyproject.toml names this module for pytest-django; subprocesses
that a test starts get the site's settings (tests/servers.py strips these variables)."""

import os

# The site refuses to start without a secret unless DEBUG is on; the suite runs with
# DEBUG off, as production does.
os.environ.setdefault("SECRET_KEY", "tests-only-insecure-secret-key-0123456789abcdefghijklmnop")
# The suite never reads a developer's .env (make run's DEBUG would reach it).
os.environ["DOTENV"] = ""

from codewithpapers.settings import *  # noqa: F403
from codewithpapers.settings import DATABASES, MIDDLEWARE, STORAGES

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
# No look at the database after responses (it would add a query to whichever request of a
# test found it due); the tests of that look turn it on.
CONTENT_CHECK_SECONDS = 0
SECURE_SSL_REDIRECT = False
# Static files straight from the finders, as in development (no collectstatic).
STORAGES = STORAGES | {
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# The live server of the browser tests shares the in-memory SQLite connection across
# its request threads (tests/serial.py).
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    MIDDLEWARE = ["tests.serial.OneRequestAtATime", *MIDDLEWARE]
