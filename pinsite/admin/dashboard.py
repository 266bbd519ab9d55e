"""The fanout dashboard at the top of the queues page: the last hour of fanout lag,
deliveries, queue depths, standby reads and dead letters (:mod:`feed.observe`), drawn as
inline SVG (:mod:`toolkit.svgplot`), and the last minutes' summary."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from toolkit.svgplot import Series, line_chart

REFRESH_SECONDS = 10
SHOWN_QUEUES = 8


def charts(figures: dict[str, Any]) -> list[SafeString]:
    """The dashboard's plots of ``figures`` (as :func:`feed.observe.figures` returns them)."""
    span = (_clock(figures["buckets"][0]), _clock(figures["buckets"][-1] +
                                                  figures["bucket_seconds"]) + " UTC")
    lag = [Series(f"{cluster} {q}", values)
           for cluster, series in figures["lag_seconds"].items()
           for q, values in series.items() if q in ("p50", "p99")]
    deliveries = [Series(cluster, values)
                  for cluster, values in figures["deliveries_per_second"].items()]
    return [mark_safe(chart) for chart in (  # svgplot escapes every text it draws
        line_chart("Fanout lag (creation → last delivery)", span, lag, "s"),
        line_chart("Deliveries per second", span, deliveries, "/s"),
        line_chart("Queue depths (ready + delayed + held)", span, _depth_series(figures), ""),
        line_chart(f"Standby reads per {figures['bucket_seconds']} s", span,
                   [Series("standby reads", figures["standby_reads"])]),
        line_chart("Dead letters", span, [Series("dead letters", figures["dead_letters"])]),
    )]


def lag_rows(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """Per cluster: the summary's fanouts, lag p50 and p99 (ms) and deliveries per second."""
    summary = figures["summary"]
    return [{"cluster": cluster, "fanouts": lag["fanouts"], "p50_ms": _ms(lag["p50"]),
             "p99_ms": _ms(lag["p99"]), "deliveries": summary["deliveries"][cluster],
             "per_second": summary["deliveries_per_second"][cluster]}
            for cluster, lag in summary["lag_seconds"].items()]


def _depth_series(figures: dict[str, Any]) -> list[Series]:
    """The queues that held messages in the window, deepest first (the total if none did)."""
    depths = figures["queue_depths"]
    busy = sorted((queue for queue, values in depths.items() if any(values)),
                  key=lambda queue: -max(v or 0 for v in depths[queue]))
    if busy:
        return [Series(queue, depths[queue]) for queue in busy[:SHOWN_QUEUES]]
    totals = [None if all(v is None for v in column) else sum(v or 0 for v in column)
              for column in zip(*depths.values(), strict=True)] if depths else []
    return [Series("all queues", totals)]


def _clock(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%H:%M")


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)
