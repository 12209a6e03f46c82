"""Settings for Code with Papers: one file, every knob from the environment.

See the configuration table in docs/configuration.md; codewithpapers/env.py holds the readers.
"""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from codewithpapers.env import (
    env_bool,
    env_int,
    env_list,
    env_rate,
    env_str,
    load_env_file,
    parse_cache_url,
    parse_database_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# A development machine's own settings: `make run` writes .env (DEBUG on, a secret of its
# own), so that `manage.py` works in a plain shell there. DOTENV names another file, or
# none when empty (production, the tests); the environment always wins over the file.
if _env_file := os.environ.get("DOTENV", str(BASE_DIR / ".env")):
    load_env_file(Path(_env_file))

DEBUG = env_bool("DEBUG", False)

_DEV_SECRET = "dev-only-insecure-secret-key-change-me-0123456789abcdefghijklmnop"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
for _origin in CSRF_TRUSTED_ORIGINS:
    if not _origin.startswith(("http://", "https://")):
        raise ImproperlyConfigured(
            f"CSRF_TRUSTED_ORIGINS entries must start with http:// or https://, got {_origin!r}"
        )

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "django_htmx",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "papers",
]

MIDDLEWARE = [
    # Outermost, so its duration and query count cover everything below it.
    "codewithpapers.middleware.RequestLogMiddleware",
    # Outside everything that answers, so that every HEAD response leaves without a body.
    "codewithpapers.middleware.HeadWithoutBodyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "codewithpapers.middleware.RejectNulMiddleware",
    # Before the page cache: a client over its limit is refused even for cached pages.
    "codewithpapers.middleware.RateLimitMiddleware",
    # Before sessions and CSRF: a response that sets a cookie passes back through them
    # first, and the page cache never stores it.
    "codewithpapers.middleware.PageCacheMiddleware",
    "codewithpapers.middleware.ReplicaRoutingMiddleware",
    # Django's, taking over the session the page cache has loaded to see who is signed in.
    "codewithpapers.sessions.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "codewithpapers.urls"
WSGI_APPLICATION = "codewithpapers.wsgi.application"
ASGI_APPLICATION = "codewithpapers.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "papers.context_processors.site",
                "codewithpapers.context_processors.page",
            ],
        },
    },
]

DATABASES = {
    "default": parse_database_url(
        env_str("DATABASE_URL", "sqlite:///db.sqlite3"), name="DATABASE_URL", base_dir=BASE_DIR
    )
}
# Read replicas: anonymous GET/HEAD pages read from one of them, everything else (writes,
# the admin, management commands such as import_archive) uses the primary. See
# codewithpapers/routers.py and docs/deploy.md.
for _number, _url in enumerate(env_list("DATABASE_REPLICA_URLS", [])):
    _replica = parse_database_url(_url, name="DATABASE_REPLICA_URLS", base_dir=BASE_DIR)
    # Tests run against one database: each replica mirrors the primary's test database.
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES[f"replica_{_number}"] = _replica
DATABASE_ROUTERS = ["codewithpapers.routers.ReplicaRouter"]
# The longest a statement of the site's may run (gunicorn, runserver; management commands
# and scripts have no limit): past it the request is a 503. 0 turns it off. See
# codewithpapers.backends, which wsgi.py and asgi.py call.
DATABASE_STATEMENT_TIMEOUT_MS = env_int("DATABASE_STATEMENT_TIMEOUT_MS", 5000, minimum=0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
# Development serves static files straight from the finders (no collectstatic).
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
# Files served at the site's root: /favicon.ico, which browsers and feed readers ask for
# whatever the page's <link rel="icon"> says.
WHITENOISE_ROOT = BASE_DIR / "public"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

FIXTURE_DIRS = [BASE_DIR / "fixtures"]

# The archive's licence and notices; every page and every exported record carries them.
ARCHIVE_ABOUT = {
    "site": "https://codewithpapers.app",
    "non_affiliation": (
        "Code with Papers and Syntology are not affiliated with, endorsed by, or sponsored by "
        "Papers with Code, Meta, or the pwc-archive mirror."
    ),
    "licence": "CC BY-SA 4.0",
    "licence_url": "https://creativecommons.org/licenses/by-sa/4.0/legalcode",
    "attribution": "https://codewithpapers.app/attribution",
    "modified": "archive material modified by Syntology; see the attribution page",
}
# The date of the archive snapshot: dates after it (or before 1900) are flagged uncertain.
ARCHIVE_SNAPSHOT = env_str("ARCHIVE_SNAPSHOT", "2025-07-28")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "codewithpapers.logs.JsonFormatter"}},
    "filters": {
        "without_traceback": {"()": "codewithpapers.logs.WithoutTraceback"},
        "database_down_brief": {"()": "codewithpapers.logs.DatabaseDownBrief"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        # One JSON object a line on stdout, for the log shipper: see RequestLogMiddleware.
        "stdout_json": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "json",
        },
    },
    "loggers": {
        "codewithpapers.requests": {
            "handlers": ["stdout_json"],
            "level": "INFO",
            "propagate": False,
        },
        # RequestLogMiddleware logs every request; Django's own 4xx/5xx lines would repeat
        # them (a 5xx's traceback still goes to stderr through django.request).
        "django.server": {"level": "ERROR"},
        # A Host header outside ALLOWED_HOSTS is a 400 and one line, not a traceback.
        "django.security.DisallowedHost": {"filters": ["without_traceback"]},
        # So is each request a database outage turns into a 503.
        "django.request": {"filters": ["database_down_brief"]},
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# --- Production: security headers, cookies, HTTPS ------------------------------------
# DEBUG=false turns all of these on; `manage.py check --deploy` then reports nothing.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# Load balancers probe over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    # Only behind a proxy that sets X-Forwarded-Proto itself (and strips the client's).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = not DEBUG
# Database sessions with signed keys: a made-up session cookie is known for one without a
# lookup, so it cannot take a request past the page cache (codewithpapers.sessions).
SESSION_ENGINE = "codewithpapers.sessions"
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
# Django's built-in CSP: scripts and styles only from our own static files, no inline
# code at all (templates carry no <script> body and no style attribute; htmx is told
# through its meta tag not to inject its indicator styles or evaluate code).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
# The absolute URL pages name as canonical (and feeds and sitemaps use); empty means
# the request's own scheme and host (ALLOWED_HOSTS keeps those honest).
SITE_URL = env_str("SITE_URL", "").rstrip("/")
if SITE_URL and not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"SITE_URL must start with http:// or https://, got {SITE_URL!r}")

# --- Request limits -----------------------------------------------------------------
# Nothing public takes a body; the admin's forms are small.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("REQUEST_MAX_BYTES", 1_048_576, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000
DATA_UPLOAD_MAX_NUMBER_FILES = 10
# The write API: a JSON body's size (a 20,000-row evaluation_synchronize fits), and the
# writes one token may make per minute (0: no limit).
API_WRITE_MAX_BYTES = env_int("API_WRITE_MAX_BYTES", 8_388_608, minimum=1024)
API_WRITES_PER_MINUTE = env_int("API_WRITES_PER_MINUTE", 120, minimum=0)

# --- Caching ------------------------------------------------------------------------
# Anonymous GET pages (and the API) are cached whole by codewithpapers.middleware.
# PageCacheMiddleware; every import and every admin save or delete bumps the cache
# version (codewithpapers.cache), so nothing stale outlives a change.
CACHE_TTL = env_int("CACHE_TTL", 600, minimum=1)
CACHES = {
    "default": parse_cache_url(
        env_str("CACHE_URL", "locmem://"),
        timeout=CACHE_TTL,
        key_prefix=env_str("CACHE_KEY_PREFIX", "cwp"),
    )
}
# Writes that do not go through the site (SQL by hand, a script) retire cached pages within
# this many seconds: each process looks at a stamp of the database at most this often
# (codewithpapers.cache.check_database). 0 turns the look off.
CONTENT_CHECK_SECONDS = env_int("CONTENT_CHECK_SECONDS", 10, minimum=0)
# After a failed call to Redis the site serves uncached for this long before trying it
# again (codewithpapers.breaker), so a Redis outage costs no request more
# than one socket timeout.
CACHE_RETRY_SECONDS = env_int("CACHE_RETRY_SECONDS", 5, minimum=1)
# Paths the page cache never stores (prefixes).
PAGE_CACHE_EXCLUDE = ["/admin/", "/accounts/", "/healthz", "/static/"]
# Writes under these prefixes (the admin's forms and actions) invalidate the page cache.
PAGE_CACHE_WRITE_PATHS = ["/admin/"]

# --- Rate limits (django-ratelimit on the cache above) --------------------------------
# Per client address and path prefix; a client over its limit gets a 429 with
# Retry-After. With the default local-memory cache each worker process counts alone.
RATELIMIT_ENABLE = env_bool("RATELIMIT_ENABLE", True)
RATELIMITS = {
    prefix: rate
    for prefix, rate in (
        ("/search", env_rate("RATELIMIT_SEARCH", "60/m")),
        ("/api/", env_rate("RATELIMIT_API", "120/m")),
        # The MCP server's tools answer what the API answers: the same allowance.
        ("/mcp", env_rate("RATELIMIT_MCP", env_str("RATELIMIT_API", "120/m"))),
    )
    if rate
}
# Renders of heavy pages the page cache did not hold, per client address and path prefix
# (sitemap pages list thousands of URLs): past the rate a 429 (cached pages still serve).
RATELIMIT_RENDERS = {
    prefix: rate for prefix, rate in (("/sitemap", env_rate("RATELIMIT_SITEMAP", "30/m")),) if rate
}
# Failed sign-ins to the admin allowed per client address, and per user name, in a window
# (codewithpapers.views.admin_login); past them the login answers 429 until it ends (a
# user name only to addresses that have failed).
RATELIMIT_LOGIN = env_rate("RATELIMIT_LOGIN", "10/10m")
# The request header holding the client address when a proxy sits in front
# (e.g. X-Real-IP); empty means the connection's own address.
CLIENT_IP_HEADER = env_str("CLIENT_IP_HEADER", "")
RATELIMIT_USE_CACHE = "default"
# A cache that cannot count lets requests through rather than refusing everyone.
RATELIMIT_FAIL_OPEN = True

# --- Related papers -------------------------------------------------------------------
# Where compute_related keeps what --only-new needs (the fitted text model, every paper's
# vector and neighbours): one file per database, a few hundred MB at archive scale.
RELATED_STATE_DIR = Path(env_str("RELATED_STATE_DIR", str(BASE_DIR / "var" / "related")))

# /healthz gives up on the database after this long and answers 503.
HEALTHZ_TIMEOUT_MS = env_int("HEALTHZ_TIMEOUT_MS", 1000, minimum=50)
# /healthz reports search as "rebuilding" while this says the full-text index is deferred
# (an import builds it); named here so the project's own code needs nothing from the app.
SEARCH_INDEX_DEFERRED = "papers.search.index.deferred"

# SQLite: an import that defers the full-text index builds it in a helper process while
# it writes (papers.archive.engines.sqlite.fts_side); false rebuilds it in the writer at
# the end. PostgreSQL: an import computes new papers' search vectors on a second
# connection while it writes (papers.archive.engines.postgresql.vectors); false leaves
# them to the trigger in the writer's.
IMPORT_SIDE_INDEX = env_bool("IMPORT_SIDE_INDEX", True)

# --- arXiv harvests (manage.py harvest_arxiv; docs/import.md) ------------------------------
# The endpoints; tests and mirrors point them elsewhere (--base-url overrides the one in use).
ARXIV_OAI_URL = env_str("ARXIV_OAI_URL", "https://oaipmh.arxiv.org/oai")
ARXIV_API_URL = env_str("ARXIV_API_URL", "https://export.arxiv.org/api/query")
# Seconds between two requests to arXiv (its terms ask for 3); 0 in tests.
ARXIV_POLITE_DELAY_MS = env_int("ARXIV_POLITE_DELAY_MS", 3000, minimum=0)
# OAI-PMH sets harvested when none is named.
ARXIV_SETS = env_list("ARXIV_SETS", ["cs", "stat"])
# /healthz reports the last harvest through this (named here, like SEARCH_INDEX_DEFERRED).
ARXIV_LAST_HARVEST = "papers.arxiv.journal.last_harvest"

# --- Accounts (django-allauth; docs/accounts.md) ------------------------------------------
# Sign-up by email and password, the address verified before the first sign-in; password
# reset by email. A new account's writes on the site are proposals (papers.contributions.
# site); staff raise a contributor to trusted in the admin.
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "accounts-profile"
ACCOUNT_LOGIN_METHODS = {"email"}
# The user name is the public name beside a user's contributions (never the address).
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = env_str("ACCOUNT_EMAIL_VERIFICATION", "mandatory")
ACCOUNT_LOGOUT_REDIRECT_URL = "papers:home"
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Code with Papers] "
ACCOUNT_USER_DISPLAY = "papers.contributions.site.display_name"
# allauth counts these in the cache above (Redis in production): sign-ups and password
# resets per client address, failed logins per address and per account.
ACCOUNT_RATE_LIMITS = {
    "signup": env_str("RATELIMIT_SIGNUP", "5/h/ip"),
    "login": "30/m/ip",
    "login_failed": env_str("RATELIMIT_LOGIN_FAILED", "10/m/ip,5/5m/key"),
    "reset_password": "10/h/ip,3/h/key",
    "confirm_email": "1/3m/key",
}
# Writes through the site's forms (results, code, corrections, edits, claims), per user
# and per client address in each hour; past them the form answers 429.
SITE_WRITES_PER_HOUR = env_int("SITE_WRITES_PER_HOUR", 30, minimum=0)
SITE_WRITES_PER_HOUR_PER_ADDRESS = env_int("SITE_WRITES_PER_HOUR_PER_ADDRESS", 60, minimum=0)
# An account younger than this many days writes proposals whatever its level.
NEW_ACCOUNT_DAYS = env_int("NEW_ACCOUNT_DAYS", 7, minimum=0)

# Email: SMTP to EMAIL_HOST (STARTTLS unless EMAIL_USE_TLS=false); without it, printed to
# the console in development (DEBUG) and handed to the machine's own mail server
# (localhost:25) in production.
_email_host = env_str("EMAIL_HOST", "")
if _email_host or not DEBUG:
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": _email_host or "localhost",
                "port": env_int("EMAIL_PORT", 587 if _email_host else 25, minimum=1),
                "username": env_str("EMAIL_HOST_USER", ""),
                "password": env_str("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", bool(_email_host)),
                "timeout": 10,
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Code with Papers <noreply@codewithpapers.app>")

# Sign-in with GitHub or ORCID: off unless the provider's client id and secret are set.
SOCIALACCOUNT_PROVIDERS = {}
for _provider, _prefix in (("github", "GITHUB"), ("orcid", "ORCID")):
    _client_id = env_str(f"{_prefix}_CLIENT_ID", "")
    if _client_id:
        INSTALLED_APPS.append(f"allauth.socialaccount.providers.{_provider}")
        SOCIALACCOUNT_PROVIDERS[_provider] = {
            "APPS": [{"client_id": _client_id, "secret": env_str(f"{_prefix}_SECRET", "")}]
        }
# A social sign-in still gives the site a verified email before any write.
SOCIALACCOUNT_EMAIL_VERIFICATION = ACCOUNT_EMAIL_VERIFICATION
