"""Audit rounds: the auditor run on a schedule in the queue workers, and a day of its results.

Every ``AUDIT_EVERY_SECONDS`` one process of the site (the one that claims the round in the
observations' Redis) audits ``AUDIT_SAMPLE`` pinners drawn at random: a few row reads per
pinner and minute, whatever the size of the site. ``manage.py feed audit`` records its rounds
too. Each round is kept ``AUDIT_KEEP_HOURS`` (a sorted set scored by time, without the pinners'
findings beyond the first few), for the admin's plot (:mod:`pinsite.admin.audits`) and the
gauges of ``/metrics``; its counts go to the ``pinsite_feed_audit_*`` counters.

>>> run_round()             # in a worker: False when another process has this round
True
>>> history(hours=1)[-1]["recall"]
1.0
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from feed import audit, sources
from feed.audit import Report
from feed.conf import feed_settings
from feed.store import observations
from toolkit.metrics import FEED_AUDIT_ENTRIES, FEED_AUDIT_ROUNDS

log = logging.getLogger("pinsite.feed")
KEY = "audit:rounds"
CLAIMS = "audit:claim"
FINDINGS_KEPT = 20
IDLE_SECONDS = 5.0
"""How often a worker looks again at ``AUDIT_EVERY_SECONDS`` while it is 0 (off)."""
RECALL_WARNING = 0.9999
"""Recall below this is shown as a warning (the admin, ``feed audit``)."""


def every_seconds() -> float:
    return float(feed_settings.number("AUDIT_EVERY_SECONDS"))


def run_round(now: float | None = None) -> bool:
    """Audit a sample if this process claims the current round; True if it ran."""
    period = every_seconds()
    if period <= 0:
        return False
    at = time.time() if now is None else now
    if not observations.claim(f"{CLAIMS}:{int(at // period)}", "claimed", int(period * 3)):
        return False
    users = sources.sample_pinner_ids(feed_settings.number("AUDIT_SAMPLE"))
    if users:
        record(audit.audit_users(users), "schedule")
    return True


def record(report: Report, source: str) -> dict[str, Any]:
    """Keep a round's figures (and count its entries); returns what was kept."""
    point = {**report.as_json(findings=FINDINGS_KEPT), "source": source}
    for cluster, tally in report.clusters.items():
        for outcome, count in (("present", tally.present),
                               ("missing", tally.required - tally.present),
                               ("wrong", tally.wrong), ("misordered", tally.misordered),
                               ("pending", tally.pending)):
            if count:
                FEED_AUDIT_ENTRIES.labels(cluster, outcome).inc(count)
    FEED_AUDIT_ROUNDS.labels(source).inc()
    keep = feed_settings.number("AUDIT_KEEP_HOURS") * 3600
    observations.add_point(KEY, report.at_us / 1e6, json.dumps(point, sort_keys=True), keep)
    return point


def history(hours: float = 24) -> list[dict[str, Any]]:
    """The rounds of the last ``hours``, oldest first."""
    return _decoded(observations.points(KEY, time.time() - hours * 3600))


def latest() -> dict[str, Any] | None:
    """The newest round kept, if any."""
    found = _decoded(observations.points(KEY, 0, newest=1))
    return found[-1] if found else None


def _decoded(values: list[Any]) -> list[dict[str, Any]]:
    return [json.loads(value) for value in values]


def run_forever(stop: Any) -> None:
    """Run a round whenever one is due until ``stop`` (a :class:`threading.Event`) is set;
    a round that fails is logged and the next one runs on time."""
    while not stop.is_set():
        try:
            run_round()
        except Exception as exc:  # the auditor never takes its worker down
            log.warning("feed audit round failed: %s: %s", type(exc).__name__, exc)
        period = every_seconds() or IDLE_SECONDS
        stop.wait(period - time.time() % period + 0.1)
