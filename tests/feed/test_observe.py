"""Fanout observations (feed.observe): the lag of a fanout's last delivery per cluster,
deliveries, standby reads and queue depths in Redis, and ``manage.py feed lag``."""

from __future__ import annotations

import io
import json
import math
import random
import uuid
from collections.abc import Iterator
from typing import Any, cast

import dramatiq
import pytest
from django.core.management import CommandError, call_command
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.common import dq_name, xq_name
from pytest_django import Settings

from feed import observe
from feed.exceptions import ObservationsUnavailable
from feed.middleware import held_retries
from feed.speculative import speculative
from feed.store import observations
from tests.feed.helpers import (
    CapturedQueue,
    board_with_followers,
    clear_of_a_bucket_edge,
    feed_ids,
    new_pin,
)
from tests.polling import wait_until
from toolkit.clock import now_us
from toolkit.queue import QueueDepth

pytestmark = pytest.mark.usefixtures("observations_db")


def _summary() -> dict[str, Any]:
    return observe.figures(minutes=5)["summary"]


def _fanouts(cluster: str) -> int:
    return int(_summary()["lag_seconds"][cluster]["fanouts"])


# --- Lag buckets and percentiles (no servers) ---------------------------------------------

def _exact(samples: list[float], q: float) -> float:
    return sorted(samples)[max(1, math.ceil(q * len(samples))) - 1]


@pytest.mark.parametrize("seed", range(5))
def test_percentiles_from_lag_buckets_are_within_the_documented_resolution(seed: int) -> None:
    rng = random.Random(seed)
    samples = [math.exp(rng.uniform(math.log(0.002), math.log(600))) for _ in range(500)]
    counts: dict[int, int] = {}
    for sample in samples:
        counts[observe.lag_bucket(sample)] = counts.get(observe.lag_bucket(sample), 0) + 1
    for q in (0.5, 0.9, 0.99):
        estimate = observe.percentile(counts, q)
        assert estimate is not None
        assert abs(estimate / _exact(samples, q) - 1) <= observe.LAG_RESOLUTION + 1e-9


def test_a_lag_falls_into_the_bucket_whose_bounds_hold_it() -> None:
    for seconds in (0.0015, 0.25, 1.0, 7.3, 3600.0):
        low, high = observe.lag_bounds(observe.lag_bucket(seconds))
        assert low <= seconds < high


def test_no_samples_have_no_percentile_and_tiny_or_huge_lags_are_clamped() -> None:
    assert observe.percentile({}, 0.5) is None
    assert observe.lag_bucket(0) == 0
    assert observe.lag_bucket(10**9) == observe.LAG_BUCKETS - 1


# --- Recording on the real Redis ----------------------------------------------------------

def test_a_delivery_before_planning_ends_does_not_close_the_fanout() -> None:
    tracking = observe.FanoutTracking(pin_id=10**15 + 1, created_us=now_us())
    tracking.register([0])
    observe.delivered("primary", tracking.pin_id, tracking.created_us, 3, chunk=0)
    assert _fanouts("primary") == 0
    tracking.close()
    assert _fanouts("primary") == 1 and _summary()["deliveries"]["primary"] == 3


def test_a_closed_fanout_keeps_its_set_only_for_minutes() -> None:
    tracking = observe.FanoutTracking(pin_id=10**15 + 2, created_us=now_us())
    tracking.register([0])
    key = observe.fanout_key(tracking.pin_id, "primary")

    def ttl() -> int:
        return int(cast(int, observations.client().ttl(key)))

    assert ttl() > observations.CLOSED_KEEP_SECONDS
    tracking.close()
    observe.delivered("primary", tracking.pin_id, tracking.created_us, 3, chunk=0)
    assert 0 < ttl() <= observations.CLOSED_KEEP_SECONDS


def test_recording_with_redis_down_neither_raises_nor_records(observations_down: None) -> None:
    observe.delivered("primary", 1, 1, 3, chunk=None)
    observe.standby_read()
    assert not observe.sample_depths(lambda: [])
    with pytest.raises(ObservationsUnavailable):
        observe.figures()


def test_redis_down_is_logged_once_a_minute_not_once_a_delivery(
        observations_down: None, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observe, "_warned", {})
    for _ in range(5):
        observe.delivered("primary", 1, 1, 3, chunk=None)
    warnings = [r for r in caplog.records if "not recorded" in r.getMessage()]
    assert len(warnings) == 1
    monkeypatch.setattr(observe, "WARN_SECONDS", 0.0)
    observe.delivered("primary", 1, 1, 3, chunk=None)
    last = [r for r in caplog.records if "not recorded" in r.getMessage()][-1].getMessage()
    assert "(4 more since the last warning)" in last


def test_depths_are_sampled_once_per_bucket_across_callers() -> None:
    depths = [QueueDepth("feed", 4, 1, 2)]
    assert observe.sample_depths(lambda: depths)
    assert not observe.sample_depths(lambda: [QueueDepth("feed", 99, 0, 0)])
    summary = _summary()
    assert summary["queue_depths"] == {"feed": 5} and summary["dead_letters"] == 2


def test_a_read_the_standby_answers_is_counted(settings: Settings) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "STANDBY_READ_SHARE": 1.0}
    assert speculative(lambda cluster: cluster) == "standby"
    assert _summary()["standby_reads"] == 1


def test_a_fanout_records_one_lag_per_cluster_when_its_last_chunk_lands(
        worker: dramatiq.Worker, small_feed: dict[str, Any]) -> None:
    owner, board, followers = board_with_followers(7)  # 3 chunks of 3 per cluster
    pin = new_pin(owner, board)
    assert wait_until(lambda: all(pin in feed_ids(f, "primary") and pin in feed_ids(f, "standby")
                                  for f in followers))
    assert wait_until(lambda: _fanouts("standby") == 1)
    summary = _summary()
    assert {c: lag["fanouts"] for c, lag in summary["lag_seconds"].items()} == {
        "primary": 1, "standby": 1}
    assert summary["deliveries"] == {"primary": 7, "standby": 7}
    assert 0 < summary["lag_seconds"]["primary"]["p99"] < 60


def test_a_delivery_run_twice_records_nothing_the_second_time(
        queue: CapturedQueue, small_feed: dict[str, Any]) -> None:
    owner, board, followers = board_with_followers(5)  # 2 chunks per cluster
    queue.run_all()  # the follows
    pin = new_pin(owner, board)
    for planner in [m for m in queue.pending if m.actor_name == "feed_fan_out_pin"]:
        queue.pending.remove(planner)
        queue.run(planner)
    deliveries = [m for m in queue.pending if m.actor_name.startswith("feed_deliver_pin")]
    assert len(deliveries) == 4
    for message in deliveries + deliveries:
        queue.run(message)
    summary = _summary()
    assert {c: lag["fanouts"] for c, lag in summary["lag_seconds"].items()} == {
        "primary": 1, "standby": 1}
    assert summary["deliveries"] == {"primary": 5, "standby": 5}
    assert pin in feed_ids(followers[0])


def test_duplicated_planners_and_deliveries_in_any_order_record_one_lag_per_cluster(
        queue: CapturedQueue, small_feed: dict[str, Any]) -> None:
    owner, board, _ = board_with_followers(8)
    queue.run_all()
    new_pin(owner, board)
    queue.run_all(random.Random(7), duplicates=0.5)
    summary = _summary()
    assert {c: lag["fanouts"] for c, lag in summary["lag_seconds"].items()} == {
        "primary": 1, "standby": 1}
    assert summary["deliveries"] == {"primary": 8, "standby": 8}


# --- manage.py feed lag -------------------------------------------------------------------

def _lag_json(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("feed", "lag", "--json", *args, stdout=out)
    return dict(json.loads(out.getvalue()))


def test_feed_lag_json_moves_after_a_fanout(
        worker: dramatiq.Worker, small_feed: dict[str, Any]) -> None:
    before = _lag_json("--minutes", "5")
    assert len(before["buckets"]) == 30 and before["summary"]["deliveries"]["primary"] == 0
    owner, board, _ = board_with_followers(4)
    new_pin(owner, board)
    assert wait_until(lambda: _lag_json()["summary"]["lag_seconds"]["standby"]["fanouts"] == 1)
    after = _lag_json()
    assert after["summary"]["deliveries"] == {"primary": 4, "standby": 4}
    assert sum(after["deliveries_per_second"]["primary"]) * observe.BUCKET_SECONDS == 4
    assert any(value is not None for value in after["lag_seconds"]["primary"]["p99"])


@pytest.mark.parametrize("minutes", ["0", "61", "-3"])
def test_feed_lag_refuses_a_window_outside_one_to_sixty_minutes(minutes: str) -> None:
    with pytest.raises(CommandError, match="--minutes"):
        call_command("feed", "lag", "--minutes", minutes, stdout=io.StringIO())


def test_feed_lag_says_so_when_redis_is_down(observations_down: None) -> None:
    with pytest.raises(CommandError, match="observations cannot be reached"):
        call_command("feed", "lag", stdout=io.StringIO())


def test_feed_lag_prints_a_summary_per_cluster() -> None:
    out = io.StringIO()
    call_command("feed", "lag", "--minutes", "10", stdout=out)
    assert "primary: 0 fanouts" in out.getvalue() and "standby reads: 0" in out.getvalue()


# --- Retries held by workers --------------------------------------------------------------

def test_held_retries_add_to_the_depths_summed_over_worker_processes() -> None:
    clear_of_a_bucket_edge()
    assert observe.sample_depths(lambda: [QueueDepth("feed", 4, 1, 2)])
    observe.record_held({"feed": 3})  # one worker process
    observe.record_held({"feed": 2, "graph": 0})  # another
    summary = _summary()
    assert summary["queue_depths"] == {"feed": 10}
    assert summary["held_retries"] == {"feed": 5}
    out = io.StringIO()
    call_command("feed", "lag", stdout=out)
    assert "feed: 10 waiting (5 of them retries held by workers)" in out.getvalue()


HELD_QUEUE = f"pinsite_test_held_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def failing_broker(settings: Settings) -> Iterator[tuple[RabbitmqBroker, dramatiq.Actor[Any, Any]]]:
    """A broker of its own on the real RabbitMQ (so its queue is not one of the site's), with
    an actor that always fails and retries a minute later."""
    broker = RabbitmqBroker(url=settings.AMQP_URL)

    def always_fails() -> None:
        raise RuntimeError("fails, to be retried")

    actor = dramatiq.actor(always_fails, broker=broker, queue_name=HELD_QUEUE, max_retries=5,
                           min_backoff=60_000, max_backoff=60_000)
    yield broker, actor
    for name in (HELD_QUEUE, dq_name(HELD_QUEUE), xq_name(HELD_QUEUE)):
        broker.channel.queue_delete(queue=name)
    broker.close()


def test_a_worker_counts_the_retries_it_holds(
        failing_broker: tuple[RabbitmqBroker, dramatiq.Actor[Any, Any]]) -> None:
    """RabbitMQ counts a retry nowhere once a worker took it off the delay queue to wait for
    its time; the worker's own count has it."""
    broker, actor = failing_broker
    running = dramatiq.Worker(broker, queues={HELD_QUEUE}, worker_threads=1)
    running.start()
    try:
        actor.send()
        assert wait_until(lambda: held_retries(running) == {HELD_QUEUE: 1}, timeout=15)
        ready, delayed, dead = broker.get_queue_message_counts(HELD_QUEUE)
        assert (ready, delayed, dead) == (0, 0, 0)
    finally:
        running.stop()
