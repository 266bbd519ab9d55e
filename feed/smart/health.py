"""Generator health: every home-feed visit's outcome and generator time, per minute, in the
cache Redis beside the fanout observations (:mod:`feed.store.observations`, kept two hours),
for the admin's health page and the command.

Outcomes: ``chunk`` (a chunk was shown), ``failed`` (the generator raised: pools down, say),
``timeout`` (past its budget) and ``unavailable`` (the materialized feed could not be read
either). Recording never fails a visit: a cache error is logged and skipped.

>>> record("chunk", 4.2)
>>> summary()["outcomes"]["chunk"]
1
"""

from __future__ import annotations

import logging
import time
from typing import Any

from feed.exceptions import FeedUnavailable, ObservationsUnavailable
from feed.store import observations
from feed.store.observations import Sample

log = logging.getLogger("pinsite.smartfeed")
OUTCOMES = ("chunk", "failed", "timeout", "unavailable")
KEEP_SECONDS = 2 * 3600
WINDOW_MINUTES = 60
LATENCY_KEEP = 5000


def record(outcome: str, generator_ms: float | None) -> None:
    """Count a visit's outcome and, if the generator finished, its time."""
    minute = int(time.time() // 60)
    sample = (None if generator_ms is None
              else Sample(_latency_key(minute), f"{generator_ms:.3f}", LATENCY_KEEP))
    try:
        observations.increment(_outcomes_key(minute), {outcome: 1}, KEEP_SECONDS, sample=sample)
    except ObservationsUnavailable as exc:
        log.warning("smart feed health not recorded: %s", exc)


def summary(minutes: int = WINDOW_MINUTES) -> dict[str, Any]:
    """Outcomes and generator latency percentiles (ms) over the last ``minutes``;
    :class:`~feed.exceptions.FeedUnavailable` when the cache cannot answer."""
    now = int(time.time() // 60)
    window = range(now - minutes + 1, now + 1)
    try:
        counted, sampled = observations.read_with_samples(
            [_outcomes_key(minute) for minute in window],
            [_latency_key(minute) for minute in window])
    except ObservationsUnavailable as exc:
        raise FeedUnavailable(f"the health figures cannot be read from the cache: "
                              f"{exc}") from exc
    outcomes = {outcome: 0 for outcome in OUTCOMES}
    latencies: list[float] = []
    for counts, times in zip(counted, sampled, strict=True):
        for name, value in counts.items():
            outcomes[name] = outcomes.get(name, 0) + int(value)
        latencies.extend(float(value) for value in times)
    visits = sum(outcomes.values())
    fallbacks = visits - outcomes["chunk"]
    return {"minutes": minutes, "visits": visits, "outcomes": outcomes,
            "fallbacks": fallbacks, "fallback_share": fallbacks / visits if visits else 0.0,
            "generator_ms": percentiles(latencies)}


def percentiles(values: list[float]) -> dict[str, float | None]:
    """p50, p90, p99 and max of ``values`` (None when there are none)."""
    if not values:
        return {"p50": None, "p90": None, "p99": None, "max": None}
    ordered = sorted(values)

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3)

    return {"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": round(ordered[-1], 3)}


def _outcomes_key(minute: int) -> str:
    return f"pinsite:smartfeed:outcomes:{minute}"


def _latency_key(minute: int) -> str:
    return f"pinsite:smartfeed:generator_ms:{minute}"
