"""``manage.py runsite`` as production runs the site: gunicorn's threaded workers and the queue
workers as child processes, keep-alive connections, WhiteNoise's static files, ``/healthz``,
``/readyz`` and one ``/metrics`` summing every process; SIGTERM stops them all."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.conf import settings

from sharding import orchestrator
from tests.api.helpers import Caller, new_caller
from tests.pins.helpers import image_bytes
from tests.polling import wait_until


@dataclass
class Site:
    url: str
    process: subprocess.Popen[bytes]
    var: Path
    log: Path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with _running(tmp_path_factory.mktemp("runsite")) as running:
        yield running


@contextmanager
def _running(var: Path, *options: str) -> Iterator[Site]:
    """``manage.py runsite`` with ``options`` on a free port, serving; stopped after."""
    log = var / "runsite.log"
    port = _free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
           "PINSITE_VAR": str(var), "PINSITE_MEDIA_ROOT": str(var / "media")}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runsite", f"127.0.0.1:{port}", "--workers", "2",
             "--threads", "2", "--queue-threads", "2", *options],
            cwd=settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)
    running = Site(f"http://127.0.0.1:{port}", process, var, log)
    try:
        assert wait_until(lambda: _answers(running.url + "/healthz"), timeout=60, every=0.2), \
            log.read_text()[-3000:]
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


def _answers(url: str) -> bool:
    """Whether ``url`` answers 200 within 2 s (a worker still booting may take longer)."""
    try:
        return requests.get(url, timeout=2).status_code == 200
    except (requests.ConnectionError, requests.Timeout):
        return False


def _children(pid: int) -> list[int]:
    found = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                           text=True, check=False).stdout.split()
    return [int(child) for child in found]


def _sample(metrics: str, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    total = 0.0
    for line in metrics.splitlines():
        match = re.fullmatch(rf"{name}{{(.*)}} (\S+)", line)
        if match and all(f'{key}="{value}"' in match.group(1) for key, value in labels.items()):
            total += float(match.group(2))
    return total


def _session(caller: Caller) -> requests.Session:
    session = requests.Session()
    session.headers["Authorization"] = f"Token {caller.token}"
    return session


def test_the_site_runs_gunicorn_workers_and_a_queue_worker(site: Site) -> None:
    assert "gunicorn" in site.log.read_text()
    assert "Using worker: pinsite.serving.threaded.ThreadedWorker" in site.log.read_text()
    assert (site.var / "runsite.pid").read_text().strip() == str(site.process.pid)
    assert len(_children(site.process.pid)) == 2
    health = requests.get(site.url + "/healthz", timeout=5)
    assert health.status_code == 200 and health.json()["status"] == "ok"


def test_a_healthy_start_logs_no_warning_of_zookeeper_or_the_broker(site: Site) -> None:
    """Every worker thread's first read of the shard map waits for ZooKeeper (no fallback to
    the last-known-good file), and no queue consumer fails its first connection."""
    assert requests.get(site.url + "/readyz", timeout=10).status_code == 200
    text = site.log.read_text()
    assert "ZooKeeper unreachable" not in text
    assert "CRITICAL" not in text


def test_requests_are_not_logged_one_by_one_unless_asked(site: Site) -> None:
    """``PINSITE_ACCESS_LOG`` is off here: requests leave no access line in the log."""
    assert requests.get(site.url + "/healthz?access-line-probe", timeout=10).status_code == 200
    for _ in range(10):  # by now the probe's worker thread has long written any line of it
        requests.get(site.url + "/healthz", timeout=10)
    assert "access-line-probe" not in site.log.read_text()
    assert "gunicorn.access" not in site.log.read_text()


def test_readyz_asks_every_store(site: Site) -> None:
    response = requests.get(site.url + "/readyz", timeout=10)
    body = response.json()
    assert response.status_code == 200 and body["ready"] is True
    names = set(body["checks"])
    assert {"mysql:default", "mysql:mysql001a", "mysql:mysql002a", "redis:redis001a",
            "hbase:primary", "hbase:standby", "hbase:pools", "queue"} <= names
    assert all(check["ok"] for check in body["checks"].values()), body


def test_a_connection_is_kept_alive_across_requests(site: Site) -> None:
    connection = http.client.HTTPConnection(site.url.removeprefix("http://"), timeout=5)
    try:
        for _ in range(5):
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            assert response.status == 200 and response.getheader("Connection") != "close"
            response.read()
        pids = set()
        for _ in range(20):
            connection.request("GET", "/healthz")
            pids.add(json.loads(connection.getresponse().read())["pid"])
        assert len(pids) == 1  # one connection, one worker process
    finally:
        connection.close()


def test_static_files_are_served_compressed(site: Site) -> None:
    response = requests.get(site.url + "/static/pinsite.css", timeout=5,
                            headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "gzip"
    assert "text/css" in response.headers["Content-Type"] and response.text


def test_metrics_sum_every_process_of_the_site(site: Site) -> None:
    author, follower = new_caller(), new_caller()
    author_http, follower_http = _session(author), _session(follower)
    assert follower_http.put(f"{site.url}/api/v1/users/{author.id}/follow/",
                             timeout=10).status_code in (200, 201)
    board = author_http.post(f"{site.url}/api/v1/boards/", json={"name": "Metrics"}, timeout=10)
    assert board.status_code == 201, board.text
    pin = author_http.post(f"{site.url}/api/v1/pins/", timeout=10, data={
        "board_id": board.json()["id"], "title": "Scraped"},
        files={"image": ("p.png", image_bytes(), "image/png")})
    assert pin.status_code == 201, pin.text

    def in_feed() -> bool:
        page = follower_http.get(f"{site.url}/api/v1/me/feed/", timeout=10).json()
        return pin.json()["id"] in [item["id"] for item in page["items"]]

    assert wait_until(in_feed, timeout=30, every=0.3), "the pin never reached the feed"

    def scrape() -> str:
        response = requests.get(site.url + "/metrics", timeout=10)
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        return response.text

    assert wait_until(lambda: _sample(scrape(), "pinsite_feed_fanout_lag_seconds_count",
                                      cluster="standby") >= 1, timeout=30, every=0.3)
    metrics = scrape()
    assert _sample(metrics, "pinsite_request_seconds_count", view="api-feed", status="2xx") >= 1
    assert _sample(metrics, "pinsite_request_seconds_count", view="api-pins", method="POST") >= 1
    for backend, instance in (("mysql", "default"), ("mysql", "mysql001a"),
                              ("mysql", "mysql002a"), ("hbase", "primary")):
        assert _sample(metrics, "pinsite_store_call_seconds_count", backend=backend,
                       instance=instance) >= 1, (backend, instance)
    assert _sample(metrics, "pinsite_store_call_seconds_count", backend="redis") >= 1
    assert _sample(metrics, "pinsite_feed_fanout_lag_seconds_count", cluster="primary") >= 1
    assert _sample(metrics, "pinsite_feed_reads_total") >= 1
    assert _sample(metrics, "dramatiq_messages_total") >= 1
    assert _sample(metrics, "pinsite_metrics_source_up", source="queues") == 1
    assert _sample(metrics, "pinsite_metrics_source_up", source="outbox") == 1
    assert 'pinsite_queue_messages{queue="feed_primary",state="ready"}' in metrics
    assert 'pinsite_outbox_unsent_events{host="mysql001a"}' in metrics


def test_sigterm_stops_every_process_of_the_site(site: Site) -> None:
    children = _children(site.process.pid)
    assert children
    site.process.send_signal(signal.SIGTERM)
    assert site.process.wait(timeout=60) == 0
    for pid in children:
        assert not Path(f"/proc/{pid}").exists() or \
            "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    assert not (site.var / "runsite.pid").exists()
    assert "Shutting down: Master" in site.log.read_text()


@pytest.mark.alone  # an orchestrator fails over the masters it finds dead: nothing beside it
def test_an_orchestrator_runs_beside_the_site_when_asked(tmp_path: Path) -> None:
    with _running(tmp_path, "--orchestrator") as running:
        found = [pid for pid in _children(running.process.pid)
                 if b"orchestrator" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(found) == 1, running.log.read_text()[-3000:]
        name = f"{socket.gethostname()}:{found[0]}"
        assert wait_until(lambda: _leads(name), timeout=60, every=0.2), orchestrator.status()
        running.process.send_signal(signal.SIGTERM)
        assert running.process.wait(timeout=60) == 0
    assert not Path(f"/proc/{found[0]}").exists() or \
        "zombie" in Path(f"/proc/{found[0]}/status").read_text().lower()
    assert wait_until(lambda: name not in orchestrator.status()["contenders"], timeout=30,
                      every=0.2)


def _leads(name: str) -> bool:
    """Whether orchestrator ``name`` leads and has finished a round."""
    status = orchestrator.status()
    return bool(status["leader"] == name and status["rounds"])
