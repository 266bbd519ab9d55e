"""``manage.py audit show [--since 1h|2026-11-28T10:00] [--action X] [--limit N] [--json]``:
the operator audit log, newest first."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import DatabaseError
from django.utils import timezone

from auditlog.models import AuditEntry
from auditlog.selectors import entry_json, newest
from toolkit.commands import Bounded, SubcommandCommand

DURATION = re.compile(r"(\d+)([smhd])")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


class Command(SubcommandCommand):
    help = "Show the operator audit log: promotions, splits, moves, hosts, rebuilds, imports."
    error_types = (DatabaseError,)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        show = self.add_subparser(subparsers, parent, "show", "the newest entries, newest first",
                                  json_output=True)
        show.add_argument("--since", metavar="WHEN",
                          help="a time ago (90s, 30m, 1h, 2d) or a UTC date and time "
                               "(2026-11-28T10:00)")
        show.add_argument("--action", metavar="ACTION",
                          help="one action (shards.promote) or a family of them (shards)")
        show.add_argument("--limit", type=int, default=50, action=Bounded, maximum=10_000,
                          help="at most this many entries (default 50)")

    def handle_show(self, since: str | None = None, action: str | None = None,
                    limit: int = 50, json: bool = False, **_: Any) -> None:
        start = None if since is None else parse_since(since, timezone.now())
        entries = newest(start, action, limit)
        if json:
            self.print_json([entry_json(entry) for entry in entries])
            return
        if not entries:
            self.stdout.write("no operations recorded" + (f" since {since}" if since else ""))
        for entry in entries:
            self.stdout.write(entry_line(entry))


def parse_since(text: str, now: datetime) -> datetime:
    """``1h`` before ``now``, or the time ``2026-11-28T10:00`` (UTC unless it names a zone);
    a :class:`CommandError` for anything else."""
    found = DURATION.fullmatch(text.strip())
    if found:
        return now - timedelta(**{UNITS[found[2]]: int(found[1])})
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise CommandError(f"--since takes a time ago (90s, 30m, 1h, 2d) or a date and time "
                           f"(2026-11-28T10:00), not {text!r}") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def entry_line(entry: AuditEntry) -> str:
    """``2026-11-28 10:00:01  shards.promote  mysql001a  ok 1.82s  command ops (manage.py …)``"""
    took = "" if entry.seconds is None else f" {entry.seconds:.2f}s"
    error = f": {entry.error}" if entry.error else ""
    detail = f" ({entry.actor_detail})" if entry.actor_detail else ""
    return (f"{entry.started.astimezone(UTC):%Y-%m-%d %H:%M:%S}  {entry.action}  "
            f"{entry.target or '-'}  {entry.outcome}{took}{error}  "
            f"{entry.actor_kind} {entry.actor}{detail}")
