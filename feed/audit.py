"""The feed auditor: is each stored following feed what the records say it should be?

For each pinner audited, the feed that should be (:mod:`feed.truth`) is compared with the
part of the row that each cluster serves (:func:`feed.storage.served_length`: the newest
``CAP`` entries, cut at a trim's horizon). Per cluster it counts

* **recall**: required entries present. Required are the expected entries the served part
  should hold: all of the newest ``CAP`` when the row claims to be the whole feed, else those
  down to its oldest served entry (older ones are read from the boards, :mod:`feed.merge`);
* **precision**: served entries that belong there. An entry does not when its pin is gone,
  or its board is not followed (never, or unfollowed since);
* **order violations**: entries of a pin that belongs there, stored under another time than
  the pin's creation, so that the feed shows it out of place;
* **staleness**: how long each missing entry has been due (since its pin was created, or its
  board followed if that came later).

**The fanout window.** A change is not wrong while it is still on its way. A missing entry
due for less than :func:`window_us` is *pending*, not missing; so is an entry that should be
gone when the pinner's follows changed, or its pin was deleted, within the window (the events
journal, :mod:`events.journal`, lists those changes). The window is the larger of
``AUDIT_WINDOW_SECONDS`` and ``AUDIT_LAG_FACTOR`` times the highest fanout-lag p99 of the last
minutes on either cluster (:mod:`feed.observe`), plus the delay of the write counts: it
widens by itself while fanouts are slow, as during an outage's catch-up.

>>> report = audit_users([alice, bob])
>>> report.recall(), report.clusters["standby"].precision()
(1.0, 0.998)
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from events import journal
from feed import observe, sources, storage, truth
from feed.conf import cap, count_delay_ms, feed_settings
from feed.exceptions import FeedError
from feed.schema import Entry
from feed.storage import FeedRow
from feed.store.pools import CLUSTERS, Cluster
from feed.truth import Expected
from graph.events import FOLLOW_CHANGED
from pins.domain import Pin
from pins.events import PIN_DELETED
from toolkit.clock import iso_time, now_us

BATCH = 20
"""Pinners whose expected feeds are computed together (one read of their boards' pins)."""
SECOND_US = 1_000_000


@dataclass(frozen=True)
class Finding:
    """One wrong entry of one stored feed: ``missing`` (due since ``since_us``),
    ``unexpected`` or ``misordered`` (stored under ``created_us``, the pin's time being
    ``true_us``)."""

    user_id: int
    cluster: Cluster
    kind: str
    pin_id: int
    created_us: int
    reason: str
    since_us: int | None = None
    true_us: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {key: value for key, value in vars(self).items() if value is not None}


@dataclass
class Tally:
    """The audit's counts on one cluster."""

    feeds: int = 0
    unreadable: int = 0
    required: int = 0
    present: int = 0
    served: int = 0
    wrong: int = 0
    misordered: int = 0
    pending: int = 0
    staleness_us: list[int] = field(default_factory=list)

    def recall(self) -> float:
        return self.present / self.required if self.required else 1.0

    def precision(self) -> float:
        return 1 - self.wrong / self.served if self.served else 1.0

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            setattr(self, name, getattr(self, name) + value)

    def as_json(self) -> dict[str, Any]:
        stale = self.staleness_us
        return {"feeds": self.feeds, "unreadable": self.unreadable, "recall": self.recall(),
                "precision": self.precision(), "required": self.required,
                "present": self.present, "served": self.served, "wrong": self.wrong,
                "order_violations": self.misordered, "pending": self.pending,
                "missing": self.required - self.present,
                "staleness_seconds": {
                    "max": max(stale) / SECOND_US if stale else 0.0,
                    "median": statistics.median(stale) / SECOND_US if stale else 0.0}}


@dataclass
class Report:
    """An audit of some pinners' feeds on every cluster."""

    users: int
    window_us: int
    clusters: dict[Cluster, Tally]
    findings: list[Finding]
    at_us: int

    def total(self) -> Tally:
        every = Tally()
        for tally in self.clusters.values():
            every.add(tally)
        return every

    def recall(self) -> float:
        return self.total().recall()

    def precision(self) -> float:
        return self.total().precision()

    def as_json(self, findings: int = 100) -> dict[str, Any]:
        total = self.total()
        return {"users": self.users, "at_us": self.at_us,
                "window_seconds": self.window_us / SECOND_US, "recall": total.recall(),
                "precision": total.precision(), "order_violations": total.misordered,
                "pending": total.pending,
                "clusters": {name: tally.as_json() for name, tally in self.clusters.items()},
                "findings": [finding.as_json() for finding in self.findings[:findings]],
                "findings_total": len(self.findings)}


@dataclass(frozen=True)
class Recent:
    """What changed within the window: followers whose follows changed, pins deleted."""

    followers: frozenset[int]
    deleted_pins: frozenset[int]


def window_us() -> int:
    """How long a change may take to reach the feeds before the auditor counts it (see the
    module's docstring)."""
    floor = feed_settings.number("AUDIT_WINDOW_SECONDS")
    try:
        lag = observe.figures(minutes=observe.SUMMARY_MINUTES)["summary"]["lag_seconds"]
        slowest = max((stats["p99"] or 0.0) for stats in lag.values())
    except FeedError:
        slowest = 0.0
    seconds = max(floor, feed_settings.number("AUDIT_LAG_FACTOR") * slowest)
    return int(seconds * SECOND_US) + (count_delay_ms() or 0) * 1000


def recent_changes(since_us: int) -> Recent:
    """Follow changes and pin deletions recorded since ``since_us`` (the events journal)."""
    followers = {row.payload["follower_id"]
                 for row in journal.recorded_since(FOLLOW_CHANGED, since_us)}
    deleted = {row.payload["pin_id"] for row in journal.recorded_since(PIN_DELETED, since_us)}
    return Recent(frozenset(followers), frozenset(deleted))


def audit_users(user_ids: Iterable[int], clusters: Sequence[Cluster] = CLUSTERS,
                window: int | None = None,
                progress: Callable[[int], object] | None = None) -> Report:
    """Audit the feeds of ``user_ids`` on ``clusters``, with a fanout window of ``window`` µs
    (default :func:`window_us`); ``progress`` is told how many pinners each batch audited."""
    users = list(dict.fromkeys(user_ids))
    at = now_us()
    window = window_us() if window is None else window
    recent = recent_changes(at - window)
    report = Report(len(users), window, {cluster: Tally() for cluster in clusters}, [], at)
    down: set[Cluster] = set()
    for start in range(0, len(users), BATCH):
        batch = users[start:start + BATCH]
        expected = truth.expected_many(batch)
        for cluster in clusters:
            rows = _rows(cluster, batch, report.clusters[cluster], down)
            _compare(cluster, expected, rows, recent, report)
        if progress is not None:
            progress(len(batch))
    return report


def _rows(cluster: Cluster, users: list[int], tally: Tally, down: set[Cluster],
          ) -> dict[int, FeedRow]:
    """The stored feeds of ``users`` on ``cluster``; none when it cannot be read (counted as
    unreadable, not as wrong: the reads go to the other cluster meanwhile). A cluster that
    failed once in a run is in ``down`` and not asked again, so a run costs one timeout for
    it, not one a batch."""
    if cluster not in down:
        try:
            return storage.read_feeds(cluster, users)
        except FeedError:
            down.add(cluster)
    tally.unreadable += len(users)
    return {}


def _compare(cluster: Cluster, expected: dict[int, Expected], rows: dict[int, FeedRow],
             recent: Recent, report: Report) -> None:
    served = {user: row.served() for user, row in rows.items()}
    extra_pins = {entry.pin_id for user, (entries, _) in served.items() for entry in entries
                  if entry.pin_id not in expected[user].board_of}
    pins = sources.pins_by_id(extra_pins) if extra_pins else {}
    for user, (entries, boundary) in served.items():
        check = FeedCheck(user, cluster, expected[user], pins, recent, report)
        check.run(entries, boundary)
        report.clusters[cluster].add(check.tally)
        report.findings.extend(check.findings)


@dataclass
class FeedCheck:
    """The comparison of one stored feed with what it should be."""

    user: int
    cluster: Cluster
    truth: Expected
    pins: dict[int, Pin]
    recent: Recent
    report: Report
    tally: Tally = field(default_factory=Tally)
    findings: list[Finding] = field(default_factory=list)

    def run(self, entries: list[Entry], boundary: bytes | None) -> None:
        self.tally.feeds = 1
        stored = {entry.pin_id: entry for entry in entries}
        for entry in self.required(boundary):
            self.check_present(entry, stored.get(entry.pin_id))
        for entry in entries:
            self.check_belongs(entry)

    def required(self, boundary: bytes | None) -> list[Entry]:
        """The expected entries the served part should hold (the module's docstring)."""
        return [entry for entry in self.truth.entries[:cap()]
                if not storage.below_served(entry.qualifier, boundary)]

    def check_present(self, entry: Entry, stored: Entry | None) -> None:
        since = self.truth.since(entry.pin_id, entry.created_us)
        if stored is None and since > self.report.at_us - self.report.window_us:
            self.tally.pending += 1
            return
        self.tally.required += 1
        if stored is not None:
            self.tally.present += 1
            return
        self.tally.staleness_us.append(max(0, self.report.at_us - since))
        self.findings.append(Finding(self.user, self.cluster, "missing", entry.pin_id,
                                     entry.created_us, "not delivered", since_us=since))

    def check_belongs(self, entry: Entry) -> None:
        """Count a served entry: it belongs (at its pin's time, or misordered), it is wrong,
        or it is pending (the pinner's follows changed, or its pin was deleted, within the
        window)."""
        pin = self.pins.get(entry.pin_id)
        true_us = self.truth.created_us(entry.pin_id)
        if true_us is None and pin is not None and pin.board_id in self.truth.boards:
            true_us = pin.created_us  # followed: a pin older than the expected ones, or pulled
        if true_us is None and (self.user in self.recent.followers
                                or entry.pin_id in self.recent.deleted_pins):
            self.tally.pending += 1
            return
        self.tally.served += 1
        if true_us is None:
            self.tally.wrong += 1
            self.findings.append(Finding(self.user, self.cluster, "unexpected", entry.pin_id,
                                         entry.created_us, self.why_not(pin)))
        elif true_us != entry.created_us:
            self.tally.misordered += 1
            self.findings.append(Finding(
                self.user, self.cluster, "misordered", entry.pin_id, entry.created_us,
                "stored under another time than the pin's creation", true_us=true_us))

    def why_not(self, pin: Pin | None) -> str:
        if pin is None:
            return "pin deleted"
        unfollowed = self.truth.unfollowed.get(pin.board_id)
        if unfollowed is not None:
            return f"board {pin.board_id} unfollowed at {iso_time(unfollowed)}"
        return f"board {pin.board_id} not followed"
