"""gunicorn's configuration for `make serve` (and any production start-up):

    gunicorn -c gunicorn.conf.py codewithpapers.wsgi

Every knob comes from the environment (see docs/configuration.md):

- BIND (127.0.0.1:8000): where to listen. Behind a load balancer or a reverse proxy,
  the proxy terminates TLS; set SECURE_PROXY_SSL_HEADER=true and CLIENT_IP_HEADER there.
- WEB_CONCURRENCY (2 x cores + 1): worker processes. Each is a full copy of Django.
- GUNICORN_THREADS (4): threads per worker (gthread). Pages spend much of their time
  waiting on the database, so a few threads per process keep the cores busy; each
  thread holds its own database connection (CONN_MAX_AGE), so workers x threads is the
  number of connections one app server opens.
- GUNICORN_TIMEOUT (30 s): a worker silent for this long is killed and replaced.
- GUNICORN_MAX_REQUESTS (2000, ± 10 % jitter): workers are recycled after this many
  requests, which bounds the growth of any slow leak.
- GUNICORN_CONTROL_SOCKET ($XDG_RUNTIME_DIR or ~/.gunicorn, gunicorn-<bind>.ctl): the
  control socket of `gunicornc`, one per address so that instances do not collide.

Request logging is the application's own (one JSON line a request on stdout, see
codewithpapers.middleware.RequestLogMiddleware), so gunicorn's access log is off and
its error log goes to stderr. Request lines and headers are capped so that oversized
requests are refused before they reach Django (which caps bodies itself with
DATA_UPLOAD_MAX_MEMORY_SIZE).
"""

import multiprocessing
import os
import re

from codewithpapers.env import env_int, env_str

bind = env_str("BIND", "127.0.0.1:8000")
workers = env_int("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count() + 1, minimum=1)
worker_class = "gthread"
threads = env_int("GUNICORN_THREADS", 4, minimum=1)
timeout = env_int("GUNICORN_TIMEOUT", 30, minimum=1)
graceful_timeout = 30
keepalive = 5
max_requests = env_int("GUNICORN_MAX_REQUESTS", 2000, minimum=0)
max_requests_jitter = max_requests // 10

# Oversized requests are refused here (414/431-like 400s) before reaching Django.
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190

accesslog = None
errorlog = "-"
loglevel = env_str("LOG_LEVEL", "info").lower()
# Django is imported once in the master: workers fork with the code already loaded.
preload_app = True
# gunicorn's control socket (for `gunicornc`) is one path per user by default, so a second
# instance on the same machine (another port, a staging copy) would collide with the
# first: each instance's socket is named after its address, unless
# GUNICORN_CONTROL_SOCKET names one.
control_socket = env_str(
    "GUNICORN_CONTROL_SOCKET",
    os.path.join(
        os.environ.get("XDG_RUNTIME_DIR") or os.path.expanduser("~/.gunicorn"),
        "gunicorn-" + re.sub(r"[^A-Za-z0-9.]+", "-", bind).strip("-") + ".ctl",
    ),
)
# Production settings unless told otherwise.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")


def post_fork(server, worker):
    # Connections opened in the master while preloading must not be shared with workers.
    from django.db import connections

    connections.close_all()
