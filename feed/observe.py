"""Fanout you can watch: the last hour of fanout lag, deliveries, standby reads and queue
depths, shared by every process in Redis (:mod:`feed.store.observations`).

Time is cut into buckets of ``BUCKET_SECONDS`` (10 s); each bucket is one Redis hash kept
``KEEP_SECONDS`` (a bit over an hour) with the fields

* ``lag:<cluster>:<i>``: fanouts whose last delivery to ``cluster`` landed in the bucket, by
  lag bucket ``i`` (:func:`lag_bucket`: four per doubling from 1 ms, so a percentile read
  back is within ±9 % of the true lag);
* ``deliveries:<cluster>``: feed entries written;
* ``standby_reads``: feed reads the standby answered;
* ``ready:<queue>``, ``delayed:<queue>``, ``dead:<queue>``: queue depths, sampled once per
  bucket across all processes (``sampled`` claims the bucket);
* ``held:<queue>``: retries that workers took off the queue's delay queue and hold until
  their time (RabbitMQ counts them nowhere meanwhile), added by every worker process.

A fanout's lag runs from the pin's creation to its *last* delivery on a cluster. The planner
registers the chunks it sends, plus a planning token it removes when it has sent them all, in
one set per pin and cluster; each delivery removes its chunk, and whoever empties the set
records the lag (a Lua script, so a delivery run twice records nothing the second time).
Recording never fails or holds up a delivery or a read: errors are logged and skipped.

>>> tracking = FanoutTracking(pin_id, created_us)
>>> tracking.register([0, 1, 2]); tracking.close()
>>> delivered("primary", pin_id, created_us, 1000, chunk=2)
>>> figures(minutes=60)["summary"]["lag_seconds"]["primary"]["p99"]
0.42
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from feed.exceptions import FeedError
from feed.store import observations
from feed.store.pools import CLUSTERS, Cluster
from toolkit.clock import now_us
from toolkit.queue import QueueDepth, QueueUnavailable

log = logging.getLogger("pinsite.feed")
BUCKET_SECONDS = 10
KEEP_SECONDS = 3700
OUTSTANDING_KEEP_SECONDS = 24 * 3600
"""How long a fanout's outstanding chunks are tracked (its deliveries retry for hours)."""
STEPS_PER_DOUBLING = 4
LAG_BUCKETS = STEPS_PER_DOUBLING * 27  # 1 ms to 2^27 ms (about 37 hours)
LAG_RESOLUTION = 2 ** (1 / (2 * STEPS_PER_DOUBLING)) - 1
"""Largest relative error of a percentile read back from the lag buckets (about 9 %)."""
SUMMARY_MINUTES = 5
_standby_lock = threading.Lock()
_standby = [0, 0]
"""This process's standby reads not in Redis yet: their bucket's start and their number."""
WARN_SECONDS = 60.0
_warned: dict[str, tuple[float, int]] = {}
_warn_lock = threading.Lock()


# Lag buckets and percentiles (pure).

def lag_bucket(seconds: float) -> int:
    """The lag bucket of ``seconds``: ``floor(4·log2(ms))``, clamped to the buckets."""
    milliseconds = seconds * 1000
    if milliseconds <= 1:
        return 0
    return min(LAG_BUCKETS - 1, int(STEPS_PER_DOUBLING * math.log2(milliseconds)))


def lag_bounds(index: int) -> tuple[float, float]:
    """The lags (seconds) bucket ``index`` holds, lower bound included."""
    return (0.0 if index == 0 else 2 ** (index / STEPS_PER_DOUBLING) / 1000,
            2 ** ((index + 1) / STEPS_PER_DOUBLING) / 1000)


def percentile(counts: Mapping[int, int], q: float) -> float | None:
    """The ``q``-quantile (0 < q ≤ 1) of the samples counted by lag bucket, in seconds: the
    geometric middle of the bucket holding the sample of rank ``ceil(q·n)``; None without
    samples."""
    total = sum(counts.values())
    if total <= 0:
        return None
    rank, seen = max(1, math.ceil(q * total)), 0
    for index in sorted(counts):
        seen += counts[index]
        if seen >= rank:
            return _middle(index)
    return _middle(max(counts))


def _middle(index: int) -> float:
    low, high = lag_bounds(index)
    return math.sqrt(max(low, high / 2 ** (1 / STEPS_PER_DOUBLING)) * high)


# Recording.

def bucket_start(at: float) -> int:
    return int(at // BUCKET_SECONDS) * BUCKET_SECONDS


def bucket_key(start: int) -> str:
    return f"feed:obs:{start}"


def fanout_key(pin_id: int, cluster: str) -> str:
    return f"feed:fanout:{pin_id}:{cluster}"


class FanoutTracking:
    """The planner's side of a pin's lag: register chunks as they go out, close at the end.
    Nothing is registered for a fanout without chunks (no followers, no lag)."""

    def __init__(self, pin_id: int, created_us: int) -> None:
        self.pin_id, self.created_us = pin_id, created_us
        self.registered = False

    def register(self, chunks: Sequence[int]) -> None:
        members = [str(chunk) for chunk in chunks]
        if not self.registered:
            members.append(observations.PLAN)
        try:
            observations.register([fanout_key(self.pin_id, cluster) for cluster in CLUSTERS],
                                  members, OUTSTANDING_KEEP_SECONDS)
            self.registered = True
        except FeedError as exc:
            _warn("fanout chunks not registered", exc)

    def close(self) -> None:
        """Remove the planning token; the last delivery may already have landed."""
        if self.registered:
            for cluster in CLUSTERS:
                _finish(cluster, self.pin_id, self.created_us, observations.PLAN, 0, None)


def outstanding(pin_id: int, cluster: Cluster) -> list[str] | None:
    """What a pin's fanout to ``cluster`` still waits for: chunk numbers, and ``plan`` while
    the planner is sending them; ``[]`` once it closed, None when it is not tracked (no
    fanout, or it closed over ten minutes ago)."""
    found = observations.members(fanout_key(pin_id, cluster))
    if not found:
        return None
    return sorted(found - {observations.CLOSED})


def delivered(cluster: Cluster, pin_id: int, created_us: int, count: int,
              chunk: int | None, lag: float | None = None) -> None:
    """Record one delivery of ``count`` entries, ``lag`` seconds after the pin's creation
    (worked out here when not given); ``chunk`` None: not tracked for lag."""
    if chunk is None:
        _quietly(lambda: observations.increment(
            bucket_key(bucket_start(time.time())), {f"deliveries:{cluster}": count},
            KEEP_SECONDS), None)
    else:
        _finish(cluster, pin_id, created_us, str(chunk), count, lag)


def lag_of(created_us: int) -> float:
    """Seconds from ``created_us`` until now."""
    return max(0, now_us() - created_us) / 1e6


def _finish(cluster: Cluster, pin_id: int, created_us: int, member: str, count: int,
            lag: float | None) -> None:
    lag = lag_of(created_us) if lag is None else lag
    _quietly(lambda: observations.finish(
        fanout_key(pin_id, cluster), member, bucket_key(bucket_start(time.time())),
        f"deliveries:{cluster}", count, f"lag:{cluster}:{lag_bucket(lag)}", KEEP_SECONDS), 0)


def standby_read() -> None:
    """Count a feed read the standby answered: in the process, added to Redis by the first
    read of a later bucket (or by :func:`figures`), so a read waits on Redis at most once a
    bucket, and not at all while the standby answers within one bucket."""
    bucket = bucket_start(time.time())
    with _standby_lock:
        if _standby[0] == bucket:
            _standby[1] += 1
            return
        pending = tuple(_standby)
        _standby[:] = [bucket, 1]
    _add_standby_reads(*pending)


def flush_standby_reads() -> None:
    """Add this process's standby reads not counted in Redis yet."""
    with _standby_lock:
        pending = tuple(_standby)
        _standby[:] = [pending[0], 0]
    _add_standby_reads(*pending)


def _add_standby_reads(bucket: int, count: int) -> None:
    if count:
        _quietly(lambda: observations.increment(bucket_key(bucket), {"standby_reads": count},
                                                KEEP_SECONDS), None)


def sample_depths(read_depths: Callable[[], Sequence[QueueDepth]]) -> bool:
    """Record the queue depths into the current bucket unless a process already did; True
    when this call recorded them."""
    bucket = bucket_key(bucket_start(time.time()))
    try:
        if not observations.claim(bucket, "sampled", KEEP_SECONDS):
            return False
        values = {f"{kind}:{depth.name}": getattr(depth, kind)
                  for depth in read_depths() for kind in ("ready", "delayed", "dead")}
        observations.store(bucket, values, KEEP_SECONDS)
        return True
    except (FeedError, QueueUnavailable) as exc:
        _warn("queue depths not recorded", exc)
        return False


def record_held(held: Mapping[str, int]) -> None:
    """Add one worker process's held retries (queue → messages it took off the queue's delay
    queue and keeps until their time) to the current bucket; every worker adds its own."""
    amounts = {f"held:{queue}": count for queue, count in held.items() if count}
    if amounts:
        _quietly(lambda: observations.increment(bucket_key(bucket_start(time.time())), amounts,
                                                KEEP_SECONDS), None)


def _quietly(record: Callable[[], Any], failed: Any) -> Any:
    try:
        return record()
    except FeedError as exc:
        _warn("fanout observation not recorded", exc)
        return failed


def _warn(what: str, exc: Exception) -> None:
    """Log a failure to record at most once per ``WARN_SECONDS`` per kind, with the number
    left unlogged since (a Redis outage would otherwise log every delivery)."""
    now = time.monotonic()
    with _warn_lock:
        last, skipped = _warned.get(what, (-WARN_SECONDS, 0))
        if now - last < WARN_SECONDS:
            _warned[what] = (last, skipped + 1)
            return
        _warned[what] = (now, 0)
    log.warning("%s: %s%s", what, exc, f" ({skipped} more since the last warning)"
                if skipped else "")


# Reading.

def figures(minutes: int = 60, now: float | None = None) -> dict[str, Any]:
    """The last ``minutes`` per bucket (start times in Unix seconds, None where nothing was
    sampled) and a summary of the last ``SUMMARY_MINUTES``; raises
    :class:`~feed.exceptions.ObservationsUnavailable` when Redis cannot answer."""
    flush_standby_reads()
    end = bucket_start(time.time() if now is None else now)
    starts = [end - BUCKET_SECONDS * i for i in reversed(range(minutes * 60 // BUCKET_SECONDS))]
    rows = [_parse(row) for row in observations.read([bucket_key(s) for s in starts])]
    recent = rows[-SUMMARY_MINUTES * 60 // BUCKET_SECONDS:]
    queues = sorted({queue for row in rows for queue in row["depths"]})
    return {
        "bucket_seconds": BUCKET_SECONDS, "minutes": minutes, "buckets": starts,
        "lag_resolution": round(LAG_RESOLUTION, 3),
        "lag_seconds": {cluster: _lag_series(rows, cluster) for cluster in CLUSTERS},
        "deliveries_per_second": {
            cluster: [row["deliveries"].get(cluster, 0) / BUCKET_SECONDS for row in rows]
            for cluster in CLUSTERS},
        "standby_reads": [row["standby_reads"] for row in rows],
        "queue_depths": {queue: [row["depths"].get(queue) if row["sampled"] else None
                                 for row in rows] for queue in queues},
        "dead_letters": [row["dead"] if row["sampled"] else None for row in rows],
        "summary": _summary(recent, queues),
    }


def _parse(row: Mapping[str, str]) -> dict[str, Any]:
    parsed: dict[str, Any] = {"lag": {}, "deliveries": {}, "depths": {}, "held": {}, "dead": 0,
                              "standby_reads": int(row.get("standby_reads", 0)),
                              "sampled": any(field.startswith("ready:") for field in row)}
    for field, value in row.items():
        kind, _, rest = field.partition(":")
        if kind == "lag":
            cluster, _, index = rest.partition(":")
            parsed["lag"].setdefault(cluster, {})[int(index)] = int(value)
        elif kind == "deliveries":
            parsed["deliveries"][rest] = int(value)
        elif kind in ("ready", "delayed", "held"):
            parsed["depths"][rest] = parsed["depths"].get(rest, 0) + int(value)
            if kind == "held":
                parsed["held"][rest] = int(value)
        elif kind == "dead":
            parsed["dead"] += int(value)
    return parsed


def _lag_stats(counts: Mapping[int, int]) -> dict[str, Any]:
    """p50, p99 (seconds) and the number of fanouts of one set of lag bucket counts."""
    return {"p50": percentile(counts, 0.5), "p99": percentile(counts, 0.99),
            "fanouts": sum(counts.values())}


def _lag_series(rows: Sequence[dict[str, Any]], cluster: str) -> dict[str, list[Any]]:
    stats = [_lag_stats(row["lag"].get(cluster, {})) for row in rows]
    return {key: [item[key] for item in stats] for key in ("p50", "p99", "fanouts")}


def _summary(rows: Sequence[dict[str, Any]], queues: Sequence[str]) -> dict[str, Any]:
    seconds = len(rows) * BUCKET_SECONDS
    lag = {cluster: _lag_stats(sum((Counter(row["lag"].get(cluster, {})) for row in rows),
                                   Counter())) for cluster in CLUSTERS}
    deliveries = {cluster: sum(row["deliveries"].get(cluster, 0) for row in rows)
                  for cluster in CLUSTERS}
    latest = next((row for row in reversed(rows) if row["sampled"]), None)
    return {
        "minutes": seconds // 60, "lag_seconds": lag, "deliveries": deliveries,
        "deliveries_per_second": {cluster: round(count / seconds, 3)
                                  for cluster, count in deliveries.items()},
        "standby_reads": sum(row["standby_reads"] for row in rows),
        "queue_depths": {queue: latest["depths"].get(queue, 0) for queue in queues}
        if latest else {},
        "held_retries": dict(latest["held"]) if latest else {},
        "dead_letters": latest["dead"] if latest else None,
    }
