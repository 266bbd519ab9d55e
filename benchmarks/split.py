"""``manage.py bench split``: the longest pause a writer sees while half of a master's shards
move to a new host (``shards split``).

Each run starts two throwaway MariaDB pairs (``devstack.pairs``) and a shard map of its own
(a fresh ZooKeeper root) with ``shards`` shards on the first pair, fills them with ``rows``
rows, registers the second pair and starts a writer that creates rows on every shard in turn
without pause and prints the time of each acknowledged one. Once the writer is going, the
split runs. The figures: the fence the split reports, the writer's longest gap between two
acknowledged rows (its longest pause), its gap at the median (its pace), the copy time, and
the writes refused (one under way on the old host when the fence came is not acknowledged).

Loopback only; each run removes its pairs, processes and ZooKeeper root.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from benchmarks.failover_mysql import manage, start
from coordination.zookeeper import delete_tree
from devstack.ports import free_loopback_ports
from toolkit.commands import Bounded
from toolkit.waiting import until

OLD, OLD_REPLICA, NEW, NEW_REPLICA = "mysqlp1a", "mysqlp1b", "mysqlp2a", "mysqlp2b"


NAME = "split"
HELP = "split a throwaway shard host under a writer: the fence and the writer's longest pause"


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--runs", type=int, action=Bounded, maximum=10, default=3,
                        help="splits, new pairs each")
    parser.add_argument("--shards", type=int, action=Bounded, minimum=2, default=64,
                        help="shards on the master")
    parser.add_argument("--rows", type=int, action=Bounded, default=20_000,
                        help="rows written before the split")


def run(runs: int = 3, shards: int = 64, rows: int = 20_000,
        progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    figures = []
    for number in range(1, runs + 1):
        figure = _one_run(shards, rows)
        progress(f"run {number}: fenced {figure['fence_seconds']:.2f}s, longest pause "
                 f"{figure['longest_pause_seconds']:.2f}s\n")
        figures.append(figure)
    return {"runs": runs, "shards": shards, "rows_before": rows, "each": figures,
            **{f"median_{name}": round(statistics.median(f[name] for f in figures), 3)
               for name in ("fence_seconds", "longest_pause_seconds", "writer_gap_p50_ms",
                            "copy_seconds")}}


def _one_run(shards: int, rows: int) -> dict[str, Any]:
    from devstack.pairs import destroy, mysql_pair

    ports = free_loopback_ports(4)
    with tempfile.TemporaryDirectory(prefix="pinsite-bench-split-") as folder:
        root = Path(folder)
        old = mysql_pair(OLD, OLD_REPLICA, ports[0], ports[1], root)
        new = mysql_pair(NEW, NEW_REPLICA, ports[2], ports[3], root)
        zk_root = f"/pinsite-bench-split-{uuid.uuid4().hex[:8]}"
        environment = {
            **os.environ,
            "PINSITE_SHARD_HOSTS": f"{OLD}=127.0.0.1:{ports[0]},{OLD_REPLICA}=127.0.0.1:"
                                   f"{ports[1]}",
            "PINSITE_SHARD_PAIRS": f"{OLD}:{OLD_REPLICA}", "PINSITE_SHARD_COUNT": str(shards),
            "PINSITE_ZK_ROOT": zk_root, "PINSITE_VAR": str(root / "var"),
        }
        writer = None
        try:
            manage(environment, "shards", "init", "--quiet", timeout=600)
            _fill(environment, rows)
            for name, port in ((NEW, ports[2]), (NEW_REPLICA, ports[3])):
                manage(environment, "shards", "hosts", "add", name, f"127.0.0.1:{port}",
                       timeout=600)
            writer = start(environment, ["-m", "benchmarks.writer"], None)
            lines = _collect(writer)
            _wait_for(lambda: len(lines) >= 200)
            report = json.loads(manage(environment, "shards", "split", OLD, NEW,
                                        "--replica", NEW_REPLICA, "--json", timeout=600))
            written = len(lines)
            _wait_for(lambda: len(lines) >= written + 200)
            writer.terminate()
            writer.wait(timeout=30)
            times = [float(line.split()[2]) for line in lines if line.startswith("OK ")]
            refused = sum(line.startswith("ERR") for line in lines)
            gaps = sorted(later - earlier for earlier, later in itertools.pairwise(times))
            return {"fence_seconds": report["fence_seconds"],
                    "longest_pause_seconds": round(gaps[-1], 3),
                    "writer_gap_p50_ms": round(statistics.median(gaps) * 1000, 3),
                    "copy_seconds": report["copy_seconds"],
                    "shards_moved": report["shards_moved"],
                    "writes_refused": refused}
        finally:
            if writer is not None and writer.poll() is None:
                writer.terminate()
                writer.wait(timeout=30)
            destroy(*old, *new)
            delete_tree(zk_root)


def _collect(writer: subprocess.Popen[str]) -> list[str]:
    """The writer's lines, read as they come (a full pipe would stall the writer)."""
    lines: list[str] = []
    output = writer.stdout
    assert output is not None
    threading.Thread(target=lambda: lines.extend(output), daemon=True).start()
    return lines


def _wait_for(condition: Callable[[], bool], limit: float = 60.0) -> None:
    if not until(condition, limit):
        raise RuntimeError("the bench writer stalled")


def _fill(environment: dict[str, str], rows: int) -> None:
    """``rows`` rows over every shard, so that the copy has something to copy."""
    script = ("from pins.types import PIN\nfrom sharding import objects\n"
              "from sharding.topology import current_map\n"
              "shards = current_map().open_shards()\n"
              f"for n in range({rows}):\n"
              "    objects.create(PIN, shards[n % len(shards)], {'n': n, 'pad': 'x' * 200})\n")
    manage(environment, "shell", "-c", script, timeout=600)

