"""``manage.py orchestrator run|status|history``: automatic failover of the shard masters, and the
graph's Redis pairs followed through Redis Sentinel (when sentinels are configured)."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import CommandError, CommandParser

from coordination.exceptions import CoordinationError
from graph import failover as graph_failover
from sharding import orchestrator
from sharding.exceptions import ShardingError
from toolkit.commands import SubcommandCommand, require_counts


class Command(SubcommandCommand):
    help = ("Watch the shard masters and fail a dead one over to its replica, and follow Redis "
            "Sentinel's promotions of the graph's pairs (run two or more).")
    error_types = (ShardingError, CoordinationError)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        run = self.add_subparser(subparsers, parent, "run",
                                 "lead (or wait to lead) until SIGTERM or Ctrl-C")
        run.add_argument("--interval", type=float, default=1.0,
                         help="seconds between probe rounds (default 1)")
        run.add_argument("--failures", type=int, default=3,
                         help="failed probes in a row before a master counts as dead "
                              "(default 3)")
        self.add_subparser(subparsers, parent, "status",
                           "the running orchestrators and the leader's last round",
                           json_output=True)
        self.add_subparser(subparsers, parent, "history",
                           "the promotions and fences carried out, oldest first",
                           json_output=True)

    def handle_run(self, interval: float, failures: int, **_: Any) -> None:
        require_counts(("--failures", failures))
        if interval <= 0:
            raise CommandError("--interval must be more than 0 seconds")
        stop = threading.Event()
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda *_: stop.set())
        watching = graph_failover.watched_by_sentinel()
        followers = [graph_failover.stamp_masters,
                     *([graph_failover.follow_sentinel] if watching else [])]
        self.stdout.write(f"orchestrator: probing every {interval:g}s, failing over after "
                          f"{failures} failed probes in a row"
                          + ("; following Redis Sentinel for the graph" if watching else ""))
        self.stdout.flush()  # before the long run, also when stdout is a file
        orchestrator.run(orchestrator.Orchestrator(interval, failures, followers=followers),
                         stop)

    def handle_status(self, json: bool = False, **_: Any) -> None:
        status = orchestrator.status()
        if json:
            self.print_json(status)
            return
        self.stdout.write(f"running: {', '.join(status['contenders']) or 'none'}")
        if status["rounds"] is None:
            self.stdout.write("no round recorded yet")
            return
        when = orchestrator.ended_at(status).strftime("%Y-%m-%d %H:%M:%S")
        self.stdout.write(f"leader {status['leader']}: {status['rounds']} rounds, the last "
                          f"ended {when} UTC")
        for master, count in sorted(status["failing"].items()):
            self.stdout.write(f"failing: {master} ({count} of {status['failures']} probes)")
        for error in status["errors"]:
            self.stdout.write(f"error in the last round: {error}")

    def handle_history(self, json: bool = False, **_: Any) -> None:
        if json:
            self.print_json(orchestrator.history())
            return
        entries = list(reversed(orchestrator.recent()))  # oldest first, as --json
        if not entries:
            self.stdout.write("no failovers yet")
        for entry in entries:
            when = entry["when"].strftime("%Y-%m-%d %H:%M:%S")
            replica = f" -> {entry['replica']}" if entry.get("replica") else ""
            self.stdout.write(f"{when}  {entry.get('store', 'mysql'):<6} {entry['kind']:<16} "
                              f"{entry['master']}{replica}  {entry.get('detail', '')}")
