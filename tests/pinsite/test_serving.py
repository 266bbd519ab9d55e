"""``/healthz``, ``/readyz`` and ``/metrics`` in one process (the whole site's sum is
``test_runsite``): what they answer when a store is down, who may read them, and the one
readiness probe per interval."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client
from pytest_django import Settings

from pinsite.serving import health
from pinsite.serving.health import Check, readiness
from tests.addresses import CLOSED

OUTSIDE = "203.0.113.9"  # a client address outside the default (loopback) allow-list
STATUS_PATHS = ("/metrics", "/readyz")


@pytest.fixture(autouse=True)
def fresh_readiness() -> Iterator[None]:
    """Each test starts without a cached readiness answer (and leaves none behind)."""
    readiness.forget()
    yield
    readiness.forget()


def _serving(settings: Settings, **values: object) -> None:
    settings.PINSITE_SERVING = {**settings.PINSITE_SERVING, **values}


def test_healthz_asks_no_store(client: Client, settings: Settings) -> None:
    settings.AMQP_URL = f"amqp://pinsite:pinsite@{CLOSED[0]}:{CLOSED[1]}/%2F"
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"


def test_readyz_is_503_when_the_queue_is_unreachable(client: Client,
                                                      settings: Settings) -> None:
    settings.AMQP_URL = f"amqp://pinsite:pinsite@{CLOSED[0]}:{CLOSED[1]}/%2F"
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 503 and body["ready"] is False
    assert body["checks"]["queue"]["ok"] is False and body["checks"]["queue"]["error"]
    assert body["checks"]["mysql:default"]["ok"] is True


def test_readyz_stays_200_with_the_pools_cluster_down(client: Client,
                                                      settings: Settings) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "POOLS": CLOSED}
    response = client.get("/readyz")
    body = response.json()
    assert body["checks"]["hbase:pools"] == {"ok": False, "required": False,
                                             "error": body["checks"]["hbase:pools"]["error"]}
    assert response.status_code == 200 and body["ready"] is True


def test_readyz_is_503_when_both_feed_clusters_are_down(client: Client,
                                                        settings: Settings) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "PRIMARY": CLOSED, "STANDBY": CLOSED}
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["ready"] is False


def test_metrics_count_requests_by_view(client: Client) -> None:
    client.get("/healthz")
    client.get("/no/such/page/")
    text = client.get("/metrics").content.decode()
    assert 'pinsite_request_seconds_count{method="GET",status="2xx",view="healthz"}' in text
    assert 'pinsite_request_seconds_count{method="GET",status="4xx",view="unmatched"}' in text
    assert 'pinsite_metrics_source_up{source="outbox"} 1.0' in text


@pytest.mark.parametrize("path", STATUS_PATHS)
def test_status_endpoints_answer_loopback_by_default(client: Client, path: str) -> None:
    assert client.get(path, REMOTE_ADDR="127.0.0.1").status_code == 200
    assert client.get(path, REMOTE_ADDR="::1").status_code == 200


@pytest.mark.parametrize("path", STATUS_PATHS)
def test_status_endpoints_refuse_an_address_outside_the_allow_list(client: Client,
                                                                   path: str) -> None:
    response = client.get(path, REMOTE_ADDR=OUTSIDE)
    assert response.status_code == 403
    assert b"PINSITE_STATUS_ALLOW" in response.content


@pytest.mark.parametrize("path", STATUS_PATHS)
def test_status_endpoints_answer_an_allowed_network(client: Client, settings: Settings,
                                                    path: str) -> None:
    _serving(settings, STATUS_ALLOW=["10.0.0.0/8", "203.0.113.0/24"])
    assert client.get(path, REMOTE_ADDR=OUTSIDE).status_code == 200
    assert client.get(path, REMOTE_ADDR="127.0.0.1").status_code == 403  # not listed now


def test_behind_a_trusted_proxy_the_forwarded_client_is_checked(client: Client,
                                                                settings: Settings) -> None:
    """A reverse proxy on this machine connects from loopback: the client it forwards for is
    the one that must be allowed."""
    _serving(settings, TRUSTED_PROXIES=1)
    forwarded = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": OUTSIDE}
    assert client.get("/readyz", **forwarded).status_code == 403  # type: ignore[arg-type]


@pytest.mark.parametrize("path", STATUS_PATHS)
def test_status_endpoints_can_require_a_token(client: Client, settings: Settings,
                                              path: str) -> None:
    _serving(settings, STATUS_TOKEN="s3cret")
    refused = client.get(path)
    assert refused.status_code == 401 and refused["WWW-Authenticate"].startswith("Bearer")
    assert client.get(path, HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get(path, HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200
    assert client.get(path, HTTP_AUTHORIZATION="Bearer s3cret",
                      REMOTE_ADDR=OUTSIDE).status_code == 403  # the token does not widen


def test_a_malformed_allow_list_fails_the_system_checks(settings: Settings) -> None:
    _serving(settings, STATUS_ALLOW=["10.0.0.0/8", "nonsense"])
    with pytest.raises(SystemCheckError, match="PINSITE_STATUS_ALLOW"):
        call_command("check")


def test_readiness_is_probed_once_per_interval(client: Client, settings: Settings) -> None:
    _serving(settings, READY_CACHE_SECONDS=3600)
    before = readiness.probes
    first, second = client.get("/readyz"), client.get("/readyz")
    assert (first.status_code, second.status_code) == (200, 200)
    assert first.json() == second.json()
    assert readiness.probes == before + 1


def test_a_flood_of_readiness_requests_makes_one_probe(settings: Settings) -> None:
    _serving(settings, READY_CACHE_SECONDS=3600)
    before = readiness.probes
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(lambda _: Client().get("/readyz").status_code, range(16)))
    assert statuses == [200] * 16
    assert readiness.probes == before + 1


def test_without_a_cache_interval_every_request_probes(client: Client,
                                                       settings: Settings) -> None:
    _serving(settings, READY_CACHE_SECONDS=0)
    before = readiness.probes
    client.get("/readyz")
    client.get("/readyz")
    assert readiness.probes == before + 2


def test_a_wedged_probe_does_not_hold_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store that never answers counts as timed out once the timeout passes: the answer
    does not wait for its thread."""
    release, finished = threading.Event(), threading.Event()

    def wedged() -> None:
        release.wait(10)
        finished.set()

    monkeypatch.setattr(health, "TIMEOUT_SECONDS", 0.2)
    monkeypatch.setattr(health, "_checks", lambda: [
        Check("hbase:primary", lambda: None), Check("hbase:standby", lambda: None),
        Check("queue", wedged)])
    try:
        answer = health.probe_stores()
        assert not finished.is_set()  # the answer did not wait for the wedged probe's thread
    finally:
        release.set()
    assert answer.checks["queue"] == {"ok": False, "error": "timed out", "required": True}
    assert answer.ready is False


READY_WITHOUT_ZOOKEEPER = """
import json
from django.test import Client
response = Client().get("/readyz")
print(json.dumps({"status": response.status_code, "checks": response.json()["checks"]}))
"""


def test_readyz_is_503_without_zookeeper() -> None:
    """A process whose ZooKeeper (here a closed port) cannot be reached is not ready, although
    its maps still come from the last-known-good files and every other store answers."""
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
                   "PINSITE_ZK_HOSTS": f"{CLOSED[0]}:{CLOSED[1]}"}
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c",
                             READY_WITHOUT_ZOOKEEPER], cwd=django_settings.BASE_DIR,
                            env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["status"] == 503
    assert answer["checks"]["zookeeper"]["ok"] is False
    others = {name: check for name, check in answer["checks"].items()
              if name != "zookeeper" and check["required"]}
    assert others and all(check["ok"] for check in others.values()), others
