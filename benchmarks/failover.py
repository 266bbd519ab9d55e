"""``manage.py bench failover``: SIGKILL a shard master, then a graph Redis master, with the
orchestrator (and Sentinel) running; the seconds to the next acknowledged write
(:mod:`benchmarks.failover_mysql`, :mod:`benchmarks.failover_redis`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.management.base import CommandParser

from benchmarks import failover_mysql, failover_redis
from toolkit.commands import Bounded

NAME = "failover"
HELP = ("SIGKILL a shard master, then a graph Redis master, with the orchestrator (and "
        "Sentinel) running: seconds to the next acknowledged write")
STORES = ("mysql", "redis", "both")


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--runs", type=int, action=Bounded, maximum=20, default=5,
                        help="kills of each kind, a new pair each (default 5)")
    parser.add_argument("--store", choices=STORES, default="both",
                        help="which masters to kill (default both)")
    parser.add_argument("--edge-log-rows", type=int, action=Bounded, maximum=20_000_000,
                        default=None, metavar="ROWS",
                        help="first grow the graph's edge log to ROWS rows with follows "
                             "among bench-only users (they stay, like demo data)")


def run(runs: int = 5, store: str = "both", edge_log_rows: int | None = None,
        progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    figures = {}
    if store in ("mysql", "both"):
        figures["mysql"] = failover_mysql.run(runs=runs, progress=progress)
    if store in ("redis", "both"):
        figures["redis"] = failover_redis.run(runs=runs, progress=progress,
                                              edge_log_rows=edge_log_rows)
    return figures
