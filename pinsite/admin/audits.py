"""The feed audit page: the auditor's rounds of the last day (:mod:`feed.audit_rounds`) as
plots of recall and staleness per cluster, a warning when the newest round's recall is below
99.99 %, and the wrong entries the newest rounds found."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.safestring import SafeString, mark_safe

from feed import audit_rounds
from feed.store.pools import CLUSTERS
from pinsite.admin.pages import attempt, render_page
from toolkit.svgplot import Series, line_chart

HOURS = 24
BUCKETS = 144
"""Points per plot: ten minutes each over the day."""
SHOWN_ROUNDS = 20


def audits(request: HttpRequest) -> HttpResponse:
    """Recall and staleness over the last day, the newest rounds and their findings."""
    rounds, error = attempt(lambda: audit_rounds.history(HOURS))
    rounds = rounds or []
    newest = rounds[-1] if rounds else None
    return render_page(request, "audits.html", "Feed audit", {
        "charts": charts(rounds, time.time()), "error": error, "newest": newest,
        "warning": newest is not None and newest["recall"] < audit_rounds.RECALL_WARNING,
        "mark": f"{audit_rounds.RECALL_WARNING:.2%}",
        "rounds": [_row(point) for point in reversed(rounds[-SHOWN_ROUNDS:])],
        "findings": [finding for point in reversed(rounds[-SHOWN_ROUNDS:])
                     for finding in point["findings"]][:SHOWN_ROUNDS],
        "every_seconds": audit_rounds.every_seconds(), "clusters": CLUSTERS})


def charts(rounds: list[dict[str, Any]], now: float) -> list[SafeString]:
    """Recall (%, the lowest of each ten minutes) and staleness (s, the highest) per
    cluster, over the last day."""
    start = now - HOURS * 3600
    width = HOURS * 3600 / BUCKETS
    slots: list[list[dict[str, Any]]] = [[] for _ in range(BUCKETS)]
    for point in rounds:
        index = int((point["at_us"] / 1e6 - start) // width)
        if 0 <= index < BUCKETS:
            slots[index].append(point)
    span = (_clock(start), _clock(now) + " UTC")

    def series(pick: Any, combine: Any) -> list[Series]:
        return [Series(cluster, [combine(pick(p["clusters"][cluster]) for p in slot)
                                 if slot else None for slot in slots])
                for cluster in CLUSTERS]

    recall = series(lambda figures: figures["recall"] * 100, min)
    stale = series(lambda figures: figures["staleness_seconds"]["max"], max)
    return [mark_safe(chart) for chart in (  # svgplot escapes every text it draws
        line_chart("Recall (lowest per 10 min)", span, recall, "%"),
        line_chart("Staleness of missing entries (highest per 10 min)", span, stale, "s"))]


def _row(point: dict[str, Any]) -> dict[str, Any]:
    return {"at": _clock(point["at_us"] / 1e6, with_seconds=True), "source": point["source"],
            "users": point["users"], "window": point["window_seconds"],
            "clusters": [{"name": cluster, **point["clusters"][cluster]}
                         for cluster in CLUSTERS if cluster in point["clusters"]]}


def _clock(at: float, with_seconds: bool = False) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S" if with_seconds else "%H:%M")
