"""The benches ``manage.py bench`` runs, by subcommand name."""

from __future__ import annotations

from types import ModuleType

from benchmarks import (
    events,
    failover,
    feed,
    feed_audit,
    graph,
    legacy_import,
    shards,
    site,
    smartfeed,
    split,
    web_worker,
)

BENCHES: dict[str, ModuleType] = {bench.NAME: bench for bench in (
    shards, graph, feed, feed_audit, events, smartfeed, failover, split, legacy_import, site,
    web_worker)}
