"""Nothing an acknowledged action causes is lost: RabbitMQ killed, a web process killed between
its commit and its publish, the relay killed mid-batch. All on the real stack."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import dramatiq
import pytest
import requests
from pytest_django import Settings

from devstack.stack import Stack
from feed import queues
from graph.actions import follow_user
from pins.types import BOARD_HAS_PINS
from sharding import mappings, outbox
from sharding.hosts import cursor
from sharding.topology import current_map
from tests.api.helpers import new_board, new_caller, upload
from tests.broker import rabbitmq_stopped
from tests.feed.helpers import feed_ids, flush_feed_queues, new_pin, new_user
from tests.feed.helpers import new_board as new_user_board
from tests.pins.helpers import image_bytes
from tests.polling import wait_until

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture
def stack_restoring_rabbitmq() -> Iterator[Stack]:
    """The test stack; RabbitMQ is brought back up afterwards whatever happens."""
    stack = Stack("test")
    try:
        yield stack
    finally:
        stack.up(["rabbitmq"])
        stack.wait_healthy("rabbitmq")


def _everyone_has(followers: list[int], pins: list[int]) -> bool:
    return all(set(pins) <= set(feed_ids(follower)) for follower in followers)


@pytest.mark.alone
def test_pins_and_follows_made_while_rabbitmq_is_dead_reach_every_feed(
        worker: dramatiq.Worker, stack_restoring_rabbitmq: Stack) -> None:
    owner = new_caller()
    board = new_board(owner)
    followers = [new_caller() for _ in range(3)]
    for follower in followers:
        assert follower.client.put(f"/api/v1/users/{owner.id}/follow/").status_code == 200
    assert wait_until(lambda: _everyone_has([f.user_id for f in followers], []), timeout=5)

    stack_restoring_rabbitmq.kill("rabbitmq")
    pins = []
    for number in range(3):
        response = owner.client.post("/api/v1/pins/", {
            "board_id": str(board.id), "title": f"Pin {number}", "image": upload()},
            format="multipart")
        assert response.status_code == 201, response.content
        pins.append(int(response.json()["id"]))
    late = new_caller()
    assert late.client.put(f"/api/v1/users/{owner.id}/follow/").status_code == 200
    stack_restoring_rabbitmq.up(["rabbitmq"])

    receivers = [f.user_id for f in followers] + [late.user_id]
    assert wait_until(lambda: _everyone_has(receivers, pins), timeout=60, every=0.5)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _unsent(event: str, key: str, value: int) -> list[int]:
    """IDs of unsent outbox rows of ``event`` whose payload has ``key == value``."""
    found = []
    for alias in current_map().masters():
        with cursor(alias) as c:
            c.execute(f"SELECT id, payload FROM {outbox.TABLE} WHERE sent_us IS NULL "
                      "AND name = %s", [event])
            found += [row_id for row_id, payload in c.fetchall()
                      if json.loads(payload).get(key) == value]
    return found


def test_a_web_process_killed_after_its_commit_still_delivers_the_event(
        worker: dramatiq.Worker, tmp_path: Path) -> None:
    owner = new_caller()
    board = new_board(owner)
    fans = [new_user() for _ in range(2)]
    for fan in fans:
        follow_user(fan, owner.user_id)
    port = _free_port()
    environment = {**os.environ, "PINSITE_MEDIA_ROOT": str(tmp_path / "media"),
                   "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
                   "PINSITE_EVENTS_HOLD_BEFORE_PUBLISH_MS": "600000"}
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}",
                               "--noreload", "--skip-checks"], cwd=REPO, env=environment,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: _listening(port), timeout=30)
        request = threading.Thread(target=_post_pin, daemon=True,
                                   args=(port, owner.token, board.id))
        request.start()
        assert wait_until(lambda: bool(_unsent("pin_created", "board_id", board.id)),
                          timeout=30), "the pin's transaction never committed"
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(10)
    [pin] = _board_pins(board.id)
    assert wait_until(lambda: all(pin in feed_ids(fan) for fan in fans), timeout=30)
    assert wait_until(lambda: not _unsent("pin_created", "board_id", board.id), timeout=10)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _post_pin(port: int, token: str, board_id: int) -> None:
    """Create a pin through the server's API (the server is killed while this waits)."""
    with suppress(requests.RequestException):
        requests.post(f"http://127.0.0.1:{port}/api/v1/pins/",
                      headers={"Authorization": f"Token {token}"},
                      data={"board_id": str(board_id), "title": "Held"},
                      files={"image": ("held.png", image_bytes(), "image/png")}, timeout=120)


def _board_pins(board_id: int) -> list[int]:
    return [entry.to_id for entry in mappings.iterate(BOARD_HAS_PINS, board_id)]


@pytest.mark.alone
def test_a_relay_killed_mid_batch_loses_nothing_and_its_duplicates_are_harmless(
        settings: Settings) -> None:
    settings.PINSITE_EVENTS = {**settings.PINSITE_EVENTS, "RELAY_IN_WORKERS": False}
    owner = new_user()
    board = new_user_board(owner)
    fans = [new_user() for _ in range(3)]
    for fan in fans:
        follow_user(fan, owner)
    with rabbitmq_stopped():
        pins = [new_pin(owner, board, f"Backlog {n}") for n in range(60)]
    assert len(_unsent("pin_created", "board_id", board)) == 60

    flush_feed_queues()
    consumer = dramatiq.Worker(dramatiq.get_broker(), queues=set(queues.names()),
                               worker_threads=4, worker_timeout=100)
    consumer.start()
    try:
        held = _relay({"PINSITE_EVENTS_RELAY_BATCH": "25", "PINSITE_EVENTS_RELAY_GRACE_MS": "0",
                       "PINSITE_EVENTS_HOLD_BEFORE_MARK_MS": "600000"})
        try:
            assert wait_until(lambda: any(set(feed_ids(fan)) & set(pins) for fan in fans),
                              timeout=60), "the relay published nothing"
            assert len(_unsent("pin_created", "board_id", board)) == 60  # none marked yet
        finally:
            held.send_signal(signal.SIGKILL)
            held.wait(10)
        again = _relay({"PINSITE_EVENTS_RELAY_GRACE_MS": "0"})
        try:
            assert wait_until(lambda: not _unsent("pin_created", "board_id", board),
                              timeout=60, every=0.2)
            assert wait_until(lambda: _everyone_has(fans, pins), timeout=60, every=0.2)
        finally:
            again.terminate()
            again.wait(10)
    finally:
        consumer.stop()
    for fan in fans:
        stored = [pin for pin in feed_ids(fan) if pin in pins]
        assert sorted(stored) == sorted(pins)  # each pin once, duplicates or not


def _relay(variables: dict[str, str]) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings", **variables}
    return subprocess.Popen([sys.executable, "manage.py", "events", "relay"], cwd=REPO,
                            env=environment, stdout=subprocess.DEVNULL)
