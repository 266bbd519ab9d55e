"""``/healthz``, ``/readyz`` and ``/metrics`` in one process (the whole site's sum is
``test_runsite``): what they answer when a store is down, and the metrics token."""

from __future__ import annotations

import pytest
from django.test import Client
from pytest_django import Settings

CLOSED = ("127.0.0.1", 1)  # nothing listens on port 1


def test_healthz_asks_no_store(client: Client, settings: Settings) -> None:
    settings.AMQP_URL = "amqp://pinsite:pinsite@127.0.0.1:1/%2F"
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"


def test_readyz_is_503_when_the_queue_is_unreachable(client: Client,
                                                      settings: Settings) -> None:
    settings.AMQP_URL = "amqp://pinsite:pinsite@127.0.0.1:1/%2F"
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


def test_metrics_can_require_a_token(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINSITE_METRICS_TOKEN", "s3cret")
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200
