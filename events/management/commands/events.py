"""``manage.py events show|relay``: the event outbox of every shard host, and its relay."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import CommandError, CommandParser

from events.conf import events_settings
from events.relay import Relay
from events.status import HostBacklog, backlog
from sharding.exceptions import ShardingError
from toolkit.commands import SubcommandCommand
from toolkit.queue import BROKER_ERRORS


class Command(SubcommandCommand):
    help = "Domain events: the outbox backlog per shard host, or run a relay in the foreground."
    error_types = (ShardingError,)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        self.add_subparser(subparsers, parent, "show",
                           "unsent events per shard host, the oldest one's age, events sent "
                           "in the last minute", json_output=True)
        relay = self.add_subparser(subparsers, parent, "relay",
                                   "publish unsent events (queue workers already run a relay)")
        relay.add_argument("--once", action="store_true",
                           help="one pass over every host, then exit")

    def handle_show(self, json: bool = False, **_: Any) -> None:
        hosts = backlog()
        if json:
            self.print_json({"hosts": [host.as_json() for host in hosts],
                             "warning_seconds": events_settings.BACKLOG_WARNING_MS / 1000})
        else:
            self._print_table(hosts)
        if any(host.error for host in hosts):
            raise CommandError("some shard hosts did not answer: "
                               + "; ".join(f"{h.alias}: {h.error}" for h in hosts if h.error))

    def _print_table(self, hosts: list[HostBacklog]) -> None:
        self.stdout.write(f"{'host':<12} {'unsent':>8} {'oldest':>10} {'sent/min':>9}")
        for host in hosts:
            oldest = "-" if host.oldest_unsent_seconds is None else \
                f"{host.oldest_unsent_seconds:.1f}s"
            line = (f"{host.alias:<12} {_number(host.unsent):>8} {oldest:>10} "
                    f"{_number(host.sent_last_minute):>9}")
            if host.warning and not host.error:
                line += (f"  WARNING: unsent for over "
                         f"{events_settings.BACKLOG_WARNING_MS // 1000}s (is a relay running?)")
            self.stdout.write(self.style.WARNING(line) if host.warning else line)

    def handle_relay(self, once: bool = False, **_: Any) -> None:
        relay = Relay()
        if once:
            try:
                self.stdout.write(f"sent {relay.run_once()} event(s)")
            except BROKER_ERRORS as exc:
                raise CommandError(f"the broker did not take the events ({exc}); the outbox "
                                   "keeps them") from exc
            if relay.failed:
                raise CommandError("some shard hosts were not relayed: " + "; ".join(
                    f"{alias}: {error}" for alias, error in relay.failed.items()))
            return
        self.stdout.write("relaying events (Ctrl-C stops)")
        relay.start()
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            relay.stop()
            self.stdout.write(f"sent {relay.sent} event(s)")


def _number(value: int | None) -> str:
    return "?" if value is None else str(value)
