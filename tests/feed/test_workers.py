"""The feed with real queue workers on RabbitMQ: end to end, a worker killed halfway, a
primary HBase cluster stopped and restarted, dead letters."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import dramatiq
import pytest
from django.conf import settings
from django.core.management import call_command

from devstack import Stack
from feed import queues, storage, writers
from feed.schema import Entry
from feed.selectors import feed_page
from feed.store import pools
from feed.store.pools import CLUSTERS, Cluster
from graph.actions import follow_board, follow_user
from pins.actions import delete_pin
from tests.feed.helpers import (
    board_with_followers,
    feed_ids,
    flush_feed_queues,
    new_board,
    new_pin,
    new_user,
)
from tests.outages import stopped
from tests.polling import wait_until
from toolkit.clock import now_us
from toolkit.queue import dead_letters

pytestmark = pytest.mark.slow


def _everyone_has(followers: list[int], pin: int,
                  clusters: tuple[Cluster, ...] = CLUSTERS) -> bool:
    return all(pin in feed_ids(follower, cluster) for cluster in clusters
               for follower in followers)


def test_a_new_pin_reaches_every_follower_on_both_clusters(
        worker: dramatiq.Worker, small_feed: dict[str, Any]) -> None:
    owner, board, followers = board_with_followers(7)
    pin = new_pin(owner, board)
    assert wait_until(lambda: _everyone_has(followers, pin))


def test_a_follow_and_a_deletion_reach_the_feed_through_the_workers(
        worker: dramatiq.Worker) -> None:
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    pins = [new_pin(owner, board) for _ in range(3)]
    follow_user(fan, owner)
    assert wait_until(lambda: feed_ids(fan, "standby") == pins[::-1])
    delete_pin(owner, pins[1])
    assert wait_until(lambda: feed_ids(fan) == [pins[2], pins[0]])


def test_a_message_that_exhausts_its_retries_is_listed_as_a_dead_letter(
        worker: dramatiq.Worker, capsys: pytest.CaptureFixture[str]) -> None:
    poisoned = writers.retract_pin["standby"].message_with_options(
        args=(1, "not a time", 2, [3]), max_retries=0)
    dramatiq.get_broker().enqueue(poisoned)
    assert wait_until(lambda: poisoned.message_id in _dead_letter_ids())
    capsys.readouterr()
    call_command("feed", "deadletters")
    assert "feed_retract_pin_standby" in capsys.readouterr().out


def _dead_letter_ids() -> set[str]:
    return {letter.message_id for letter in dead_letters(queues.names())}


# --- A worker killed with SIGKILL halfway through a fanout ----------------------------------

def _start_worker(module: str, delivery_delay: float = 0.15) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
           "PINSITE_TEST_DELIVERY_DELAY": str(delivery_delay)}
    return subprocess.Popen(
        [sys.executable, "-m", "dramatiq", module, "--processes", "1", "--threads", "2",
         "--queues", *queues.names()],
        env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _kill(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


@pytest.fixture
def flushed_queues() -> None:
    flush_feed_queues()


def test_a_worker_killed_mid_fanout_leaves_every_follower_with_the_pin_once_restarted(
        flushed_queues: None) -> None:
    owner, board, followers = board_with_followers(120)
    slow = _start_worker("tests.feed.slow_worker")
    try:
        pin = new_pin(owner, board)
        assert wait_until(lambda: any(pin in feed_ids(f) for f in followers), timeout=60)
    finally:
        _kill(slow)
    assert not _everyone_has(followers, pin, ("primary",))
    restarted = _start_worker("pinsite.worker")
    try:
        assert wait_until(lambda: _everyone_has(followers, pin),
                          timeout=90)
    finally:
        _kill(restarted)
    for cluster in CLUSTERS:
        assert all(feed_ids(f, cluster).count(pin) == 1 for f in followers)


@pytest.mark.alone
def test_the_primary_clusters_processes_killed_mid_fanout_lose_no_delivery(
        flushed_queues: None) -> None:
    """Both JVMs of the primary cluster (gateway and server) SIGKILLed while a slowed fanout
    runs: reads go on from the standby; once the cluster is started again (its write-ahead
    log replayed), the retried deliveries land, and every follower has the pin exactly once
    on both clusters."""
    owner, board, followers = board_with_followers(120)
    stack = Stack(settings.PROFILE)
    slow = _start_worker("tests.feed.slow_worker", delivery_delay=1.0)  # 12 chunks: 6 s or more
    try:
        pin = new_pin(owner, board)
        assert wait_until(lambda: any(pin in feed_ids(f, "primary") for f in followers),
                          timeout=60)
        assert not _everyone_has(followers, pin, ("primary",)), "the fanout ended before the kill"
        try:
            stack.kill("hbase1", signal.SIGKILL)
            stack.kill("hbase1-server", signal.SIGKILL)
            assert wait_until(lambda: any(pin in feed_ids(f, "standby") for f in followers),
                              timeout=60)
            reader = next(f for f in followers if pin in feed_ids(f, "standby"))
            assert pin in [item.id for item in feed_page(reader).items]  # from the standby
        finally:
            stack.up(["hbase1"])
            pools.reset()  # this process's pooled connections died with the gateway
        assert wait_until(lambda: _everyone_has(followers, pin), timeout=120)
    finally:
        _kill(slow)
    for cluster in CLUSTERS:
        assert all(feed_ids(f, cluster).count(pin) == 1 for f in followers)


# --- The primary HBase cluster stopped and restarted -----------------------------------------

@pytest.fixture
def primary_down(worker: dramatiq.Worker, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    for cluster_actors in (writers.deliver_pin, writers.apply_follow, writers.trim_feed):
        monkeypatch.setitem(cluster_actors["primary"].options, "max_backoff", 1000)
    with stopped("hbase1") as stack:
        yield stack


@pytest.mark.alone
def test_reads_succeed_from_the_standby_while_the_primary_is_down_and_it_catches_up(
        primary_down: Stack) -> None:
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    follow_board(fan, board)
    pins = [new_pin(owner, board) for _ in range(2)]
    assert wait_until(lambda: feed_ids(fan, "standby") == pins[::-1])
    for _ in range(50):
        assert [pin.id for pin in feed_page(fan).items] == pins[::-1]
    primary_down.start("hbase1")
    primary_down.wait_healthy("hbase1", 60)
    assert wait_until(lambda: feed_ids(fan, "primary") == pins[::-1], timeout=60)


@pytest.mark.alone
def test_a_pooled_connection_survives_a_restart_of_its_server() -> None:
    user = new_user()
    storage.add_entries("standby", {user: [Entry(now_us(), 7)]}, timestamp=now_us())
    assert feed_ids(user, "standby") == [7]
    with stopped("hbase2"):  # and started again: the pool's connection to it is stale
        pass
    assert feed_ids(user, "standby") == [7]
