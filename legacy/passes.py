"""Passes over the legacy database: each cuts every table into batches of IDs, puts them on
the queue (``legacy_import_batch``; any number of workers take them) and waits for them, a
table at a time in the order of :data:`legacy.source.KINDS`, so every row finds the rows it
refers to copied already. Then the following feeds of every user whose follows it copied are
rebuilt, once each, by batches of kind ``feeds`` on the same queue (also those a stopped pass
left). A pass copies what is new or changed since the last one; passes repeat until one
copies nothing (``--until-converged``), as the sharding post's scripting farm did "over and
over again until the new things being written … are tiny or zero". Each run (one pass, or the
passes until converged) is one ``legacy.import`` in the operator audit log.

>>> run_pass("mysql://legacy:secret@10.0.0.9:3306/site", batch_size=200).copied
{'users': 1200, 'boards': 3400, ...}
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Sum

from auditlog.operations import operation
from legacy import source
from legacy.copying import FOLLOWS, copy_batch, rebuild_followers
from legacy.errors import LegacyError
from legacy.models import LegacyBatch
from toolkit.commands import progress
from toolkit.queue import send_all

PASSES_AT_MOST = 50
STALL_SECONDS = 15.0
POLL_SECONDS = 0.02  # how often a pass looks for finished batches (one indexed query)
FEEDS = "feeds"
"""The kind of a pass's last batches: following feeds rebuilt."""


@dataclass
class PassReport:
    pass_id: str
    copied: dict[str, int] = field(default_factory=dict)
    waiting: dict[str, int] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)
    rows: int = 0
    rebuilt: int = 0  # following feeds rebuilt
    seconds: float = 0.0

    @property
    def changed(self) -> int:
        return sum(self.copied.values()) + sum(self.waiting.values())

    def to_json(self) -> dict[str, Any]:
        return {"pass": self.pass_id, "copied": self.copied, "waiting": self.waiting,
                "rejected": self.rejected, "rows_read": self.rows,
                "feeds_rebuilt": self.rebuilt, "seconds": round(self.seconds, 2)}


def run_pass(url: str, batch_size: int = 200, inline: bool = False, bars: bool = False,
             warn: Callable[[str], object] = lambda _: None) -> PassReport:
    """One pass over every legacy table (see the module)."""
    arguments = {"batch_size": batch_size, "inline": inline}
    with operation("legacy.import", source.key(url), arguments) as done:
        report = _pass(url, batch_size, inline, bars, warn)
        done.result = report.to_json()
        return report


def _pass(url: str, batch_size: int, inline: bool, bars: bool,
          warn: Callable[[str], object]) -> PassReport:
    report, began = PassReport(uuid.uuid4().hex[:12]), time.monotonic()
    connection = source.connect(url)
    try:
        for kind in source.KINDS:
            batches = _batches(connection, report.pass_id, source.key(url), kind.name,
                               batch_size)
            report.rows += source.count(connection, kind.name)
            _run_batches(batches, f"{kind.name} batches", url, inline, bars, warn)
            totals = LegacyBatch.objects.filter(pass_id=report.pass_id, kind=kind.name) \
                .aggregate(copied=Sum("copied"), waiting=Sum("waiting"), rejected=Sum("rejected"))
            report.copied[kind.name] = totals["copied"] or 0
            report.waiting[kind.name] = totals["waiting"] or 0
            report.rejected[kind.name] = totals["rejected"] or 0
    finally:
        connection.close()
    report.rebuilt = _rebuild_feeds(report.pass_id, url, batch_size, inline, bars, warn)
    report.seconds = time.monotonic() - began
    return report


def _batches(connection: Any, pass_id: str, site: str, kind: str,
             size: int) -> list[LegacyBatch]:
    """``kind``'s ID range cut into batches of ``size`` IDs, recorded for this pass (one
    statement)."""
    bounds = source.id_bounds(connection, kind)
    if bounds is None:
        return []
    return LegacyBatch.objects.bulk_create([
        LegacyBatch(pass_id=pass_id, source=site, kind=kind, first_id=first,
                    last_id=min(first + size - 1, bounds[1]))
        for first in range(bounds[0], bounds[1] + 1, size)])


def _run_batches(batches: list[LegacyBatch], label: str, url: str, inline: bool, bars: bool,
                 warn: Callable[[str], object]) -> None:
    with progress(len(batches), label, enabled=bars) as bar:
        if inline:
            for batch in batches:
                run_batch(batch.id, url)
                bar.update(1)
        else:
            _queue_and_wait(batches, url, bar, warn)


def _rebuild_feeds(pass_id: str, url: str, size: int, inline: bool, bars: bool,
                   warn: Callable[[str], object]) -> int:
    """Rebuild the feeds of every user whose follows were copied and whose feed was not
    rebuilt since (this pass's, and those of a pass that stopped before its rebuilds); the
    follow batches are then cleared of them. Returns how many feeds were rebuilt."""
    site = source.key(url)
    waiting = list(LegacyBatch.objects.filter(source=site, kind__in=FOLLOWS, done=True)
                   .exclude(followers=[]).values_list("pk", "followers"))
    batch_ids = [pk for pk, _ in waiting]
    followers = sorted({int(user) for _, users in waiting for user in users})
    _run_batches(_feed_batches(pass_id, site, followers, size), "feeds batches", url, inline,
                 bars, warn)
    LegacyBatch.objects.filter(pk__in=batch_ids).update(followers=[])
    return len(followers)


def _feed_batches(pass_id: str, site: str, followers: list[int],
                  size: int) -> list[LegacyBatch]:
    """The rebuild of ``followers``' feeds cut into batches of ``size`` users."""
    return LegacyBatch.objects.bulk_create([
        LegacyBatch(pass_id=pass_id, source=site, kind=FEEDS, first_id=first,
                    last_id=first + len(chunk) - 1, followers=chunk)
        for first in range(0, len(followers), size) for chunk in [followers[first:first + size]]])


def until_converged(url: str, batch_size: int = 200, inline: bool = False,
                    bars: bool = False, warn: Callable[[str], object] = lambda _: None,
                    after_pass: Callable[[PassReport], object] = lambda _: None
                    ) -> list[PassReport]:
    """Passes until one copies nothing and leaves nothing waiting."""
    reports: list[PassReport] = []
    arguments = {"batch_size": batch_size, "inline": inline, "until_converged": True}
    with operation("legacy.import", source.key(url), arguments) as done:
        for _ in range(PASSES_AT_MOST):
            reports.append(run_pass(url, batch_size, inline, bars, warn))
            after_pass(reports[-1])
            done.result = {"passes": [report.to_json() for report in reports]}
            if reports[-1].changed == 0:
                return reports
        raise LegacyError(f"{PASSES_AT_MOST} passes did not converge: the legacy site changes "
                          "faster than a pass copies; run again when it is quieter")


def run_batch(batch_id: int, url: str) -> None:
    """Copy one batch and mark it done (a worker's job, or inline). The legacy site's URL,
    with its credentials, travels with the job and is stored nowhere."""
    batch = LegacyBatch.objects.get(pk=batch_id)
    if batch.done:
        return
    if batch.kind == FEEDS:
        rebuild_followers([int(user) for user in batch.followers])
        LegacyBatch.objects.filter(pk=batch_id).update(done=True)
        return
    connection = source.connect(url)
    try:
        copied = copy_batch(connection, batch.source, batch.kind, batch.first_id,
                            batch.last_id)
    finally:
        connection.close()
    LegacyBatch.objects.filter(pk=batch_id).update(done=True, copied=copied.copied,
                                                   waiting=copied.waiting,
                                                   rejected=copied.rejected,
                                                   followers=list(copied.followers))


def _queue_and_wait(batches: list[LegacyBatch], url: str, progress: Any,
                    warn: Callable[[str], object]) -> None:
    from legacy.tasks import import_batch

    send_all(import_batch.message(batch.id, url) for batch in batches)
    pending = {batch.id for batch in batches}
    moved = time.monotonic()
    while pending:
        time.sleep(POLL_SECONDS)
        finished = set(LegacyBatch.objects.filter(pk__in=pending, done=True)
                       .values_list("pk", flat=True))
        if finished:
            progress.update(len(finished))
            pending -= finished
            moved = time.monotonic()
        elif time.monotonic() - moved > STALL_SECONDS:
            warn(f"no batch finished for {STALL_SECONDS:.0f}s: is a queue worker running "
                 "(`dramatiq pinsite.worker`, or `runsite`)? `--inline` copies here instead")
            moved = time.monotonic()

