"""``manage.py feed init|show|rebuild|deadletters``: operate the following feed."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.core.management.base import CommandError, CommandParser

from feed import rebuild, selectors, setup, tasks
from feed.deadletters import dead_letters
from feed.exceptions import FeedError, FeedUnavailable
from feed.schema import Entry
from feed.store.pools import CLUSTERS
from graph.exceptions import GraphError
from pins.exceptions import NotFound
from sharding.exceptions import ShardingError
from toolkit.commands import SubcommandCommand


class Command(SubcommandCommand):
    help = "Operate the following feed: create its tables, show or rebuild a feed, dead letters."

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        self.add_subparser(subparsers, parent, "init",
                           "create the feed table on both HBase clusters (idempotent)")
        show = self.add_subparser(subparsers, parent, "show", "the head of a user's feed",
                                  json_output=True)
        show.add_argument("user", metavar="USER")
        show.add_argument("--limit", type=int, default=20, help="entries to show (default 20)")
        show.add_argument("--cluster", choices=CLUSTERS,
                          help="read this cluster (default: speculative read)")
        rebuilding = self.add_subparser(subparsers, parent, "rebuild",
                                        "recompute a user's feed from the graph and the boards' "
                                        "pins, on both clusters", json_output=True)
        rebuilding.add_argument("user", metavar="USER")
        letters = self.add_subparser(subparsers, parent, "deadletters",
                                     "list the feed messages that exhausted their retries",
                                     json_output=True)
        letters.add_argument("--limit", type=int, default=1000, help="per queue (default 1000)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            super().handle(*args, **options)
        except (FeedError, GraphError, ShardingError) as exc:
            raise CommandError(str(exc)) from exc

    def handle_init(self, **_: Any) -> None:
        outcome = setup.init_tables()
        for cluster, status in outcome.items():
            self.stdout.write(f"{cluster}: {status}")
        failed = [cluster for cluster, status in outcome.items()
                  if status not in ("created", "exists")]
        if failed:
            raise CommandError(f"the feed table could not be set up on {', '.join(failed)}")

    def handle_show(self, user: str, limit: int, cluster: str | None = None,
                    json: bool = False, **_: Any) -> None:
        if limit < 1:
            raise CommandError("--limit must be at least 1")
        row = selectors.feed_head(_user_id(user), cluster)  # type: ignore[arg-type]
        head = row.entries[:limit]
        pins = {pin.id: pin for pin in selectors.hydrate(head)}
        entries = [_entry_json(entry, pins.get(entry.pin_id)) for entry in head]
        summary = {"user": user, "entries": len(row.entries), "writes_since_trim": row.writes,
                   "horizon": _horizon(row.horizon), "head": entries}
        if json:
            self.print_json(summary)
            return
        self.stdout.write(f"user {user}: {summary['entries']} entries, "
                          f"{row.writes} writes since the last trim, "
                          f"horizon {summary['horizon'] or 'none'}")
        for position, item in enumerate(entries, start=1):
            self.stdout.write(f"{position:4d}  {item['created']}  pin {item['pin_id']}  "
                              f"{item['title'] if item['exists'] else '(deleted)'}")

    def handle_rebuild(self, user: str, json: bool = False, **_: Any) -> None:
        user_id = _user_id(user)
        outcome: dict[str, Any] = {}
        for name in CLUSTERS:
            try:
                done = rebuild.rebuild(name, user_id)
                outcome[name] = {"entries": done.entries, "removed": done.removed}
            except FeedUnavailable as exc:
                tasks.rebuild_cluster_feed[name].send(user_id)
                outcome[name] = {"queued": True, "error": str(exc)}
        if json:
            self.print_json(outcome)
            return
        for cluster, result in outcome.items():
            if result.get("queued"):
                self.stdout.write(f"{cluster}: unavailable, rebuild queued ({result['error']})")
            else:
                self.stdout.write(f"{cluster}: {result['entries']} entries written, "
                                  f"{result['removed']} removed")

    def handle_deadletters(self, limit: int, json: bool = False, **_: Any) -> None:
        letters = dead_letters(tasks.queues(), limit=limit)
        if json:
            self.print_json([letter.to_json() for letter in letters])
            return
        if not letters:
            self.stdout.write("no dead letters")
        for letter in letters:
            self.stdout.write(f"{letter.queue}  {letter.actor}{tuple(letter.args)!r}  "
                              f"retries={letter.retries}  {letter.error}")


def _user_id(user: str) -> int:
    """A user ID as given, or the ID of the pinner called ``user`` (``feed show demo``)."""
    try:
        return selectors.resolve_user(user)
    except NotFound as exc:
        raise CommandError(str(exc)) from exc


def _entry_json(entry: Entry, pin: Any) -> dict[str, Any]:
    return {"pin_id": str(entry.pin_id), "created_us": entry.created_us,
            "created": _time(entry.created_us), "exists": pin is not None,
            "title": pin.title if pin is not None else None}


def _time(us: int) -> str:
    return datetime.fromtimestamp(us / 1_000_000, UTC).isoformat(timespec="seconds")


def _horizon(qualifier: bytes | None) -> dict[str, Any] | None:
    if qualifier is None:
        return None
    entry = Entry.from_qualifier(qualifier)
    return {"pin_id": str(entry.pin_id), "created": _time(entry.created_us)}
