"""The read-replica router, on two real databases: a primary and a replica that holds
different rows, so every answer shows which one it came from."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from codewithpapers.routers import PRIMARY, ReplicaRouter, reading_from_replicas
from tests.servers import ROOT, production_env

pytestmark = pytest.mark.servers

SCRIPT = r"""
import json
import django
django.setup()
from django.test import Client
from django.contrib.auth import get_user_model
from papers.models import Paper

Paper.objects.using("default").create(slug="routed", title="Primary title")
Paper.objects.using("replica_0").create(slug="routed", title="Replica title")
Paper.objects.using("replica_0").create(slug="replica-only", title="Only on the replica")
staff = get_user_model().objects.create_superuser("staff", password="pw-123-long-enough")

def title(body):
    return "Replica title" if "Replica title" in body else (
        "Primary title" if "Primary title" in body else None)

out = {}
anonymous = Client()
out["anonymous page"] = title(anonymous.get("/paper/routed").content.decode())
out["anonymous replica-only"] = anonymous.get("/paper/replica-only").status_code
found = anonymous.get("/search", {"q": "replica "}).content.decode()
out["anonymous search"] = next(w for w in ("2 papers", "0 papers") if w in found)
out["anonymous post"] = anonymous.post("/search").status_code
forged = Client(headers={"Cookie": "sessionid=made-up", "Authorization": "Token made-up"})
out["forged credentials page"] = title(forged.get("/paper/routed").content.decode())
signed_in = Client()
signed_in.force_login(staff)
out["signed-in page"] = title(signed_in.get("/paper/routed").content.decode())
out["admin list"] = title(signed_in.get("/admin/papers/paper/?q=routed").content.decode())
paper = Paper.objects.get(slug="routed")
out["command read"] = paper.title
response = signed_in.post(f"/admin/papers/paper/{paper.pk}/delete/", {"post": "yes"})
out["admin delete"] = response.status_code
out["deleted on primary"] = not Paper.objects.using("default").filter(slug="routed").exists()
out["kept on replica"] = Paper.objects.using("replica_0").filter(slug="routed").exists()
print(json.dumps(out))
"""


def test_reads_go_to_the_replica_and_writes_admin_and_commands_to_the_primary(
    tmp_path, migrated_sqlite, collected_static
):
    primary, replica = tmp_path / "primary.sqlite3", tmp_path / "replica.sqlite3"
    shutil.copy(migrated_sqlite, primary)
    shutil.copy(migrated_sqlite, replica)
    env = production_env(
        DATABASE_URL=f"sqlite:///{primary}",
        DATABASE_REPLICA_URLS=f"sqlite:///{replica}",
        ALLOWED_HOSTS="testserver",
        CACHE_URL="dummy://",
        STATIC_ROOT=str(collected_static),
        DJANGO_SETTINGS_MODULE="codewithpapers.settings",
    )
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert answers == {
        "anonymous page": "Replica title",
        "anonymous replica-only": 200,
        "anonymous search": "2 papers",
        "anonymous post": 405,
        "forged credentials page": "Replica title",
        "signed-in page": "Primary title",
        "admin list": "Primary title",
        "command read": "Primary title",
        "admin delete": 302,
        "deleted on primary": True,
        "kept on replica": True,
    }


def test_without_replicas_everything_reads_the_primary(settings):
    router = ReplicaRouter()
    with reading_from_replicas(True):
        assert router.db_for_read(None) == PRIMARY
    assert router.db_for_write(None) == PRIMARY
    assert router.allow_migrate(PRIMARY, "papers") and not router.allow_migrate(
        "replica_0", "papers"
    )


# --- a real streaming replica that dies --------------------------------------------------


def _sql(url: str, query: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(url.replace("postgres://", "postgresql://"), autocommit=True) as conn:
        return conn.execute(query).fetchall()


def test_a_dead_replica_costs_readers_nothing_and_healthz_stays_200(
    tmp_path, collected_static, private_cluster, private_replica
):
    """A streaming replica (pg_basebackup -R of a throw-away primary) serves the anonymous
    reads until it is stopped; then each request that meets it dead is answered from
    the primary, it is left out of the next ones, and /healthz reports it but stays 200
    while the primary is up (a load balancer must not drop every app server at once)."""
    import time

    from tests.servers import fetch, gunicorn, manage

    env = production_env(DATABASE_URL=private_cluster.url)
    assert manage("migrate", "--no-input", "-v", "0", env=env).returncode == 0
    create = "from papers.models import Paper; Paper.objects.create(slug='replicated', title='Replicated paper')"  # noqa: E501
    assert manage("shell", "-c", create, env=env).returncode == 0
    deadline = time.monotonic() + 30  # the replica catches up with the primary's WAL
    while time.monotonic() < deadline:
        if _sql(private_replica.url, "SELECT count(*) FROM papers_paper") == [(1,)]:
            break
        time.sleep(0.2)
    env |= {
        "DATABASE_REPLICA_URLS": private_replica.url,
        "STATIC_ROOT": str(collected_static),
        "CACHE_URL": "dummy://",
    }
    paths = ["/", "/paper/replicated", "/search?q=replicated", "/api/v1/papers/replicated/"]
    with gunicorn(env, tmp_path / "gunicorn.log") as base:
        for path in paths:
            assert fetch(base + path).status == 200, path
        sessions = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
        assert _sql(private_replica.url, sessions)[0][0] > 1, "the replica served no reads"
        healthy = json.loads(fetch(f"{base}/healthz").body)
        assert healthy["status"] == "ok" and healthy["databases"]["replica_0"] == "ok"

        private_replica.stop()
        answers = [fetch(base + path) for _ in range(5) for path in paths]
        assert [a.status for a in answers] == [200] * len(answers)
        assert "Replicated paper" in answers[1].body
        assert max(a.seconds for a in answers) < 3
        health = fetch(f"{base}/healthz")
        assert health.status == 200, health.body
        body = json.loads(health.body)
        assert body["status"] == "degraded" and body["databases"]["default"] == "ok"
        assert body["databases"]["replica_0"] != "ok"

        private_cluster.stop()  # and now the primary too: nothing can serve
        assert fetch(f"{base}/healthz").status == 503
        assert fetch(f"{base}/paper/replicated").status == 503
