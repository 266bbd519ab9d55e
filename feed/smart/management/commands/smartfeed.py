"""``manage.py smartfeed init|show|rebuild|explain|health``: operate the smart home feed."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from django.core.management.base import CommandError, CommandParser

from auditlog.operations import operation
from feed.exceptions import FeedError
from feed.smart import health, intake, pools, setup
from feed.smart.explain import explain_home
from feed.smart.state import state_of
from graph.exceptions import GraphError
from pins.exceptions import ContentError
from pins.selectors import pinner_ids, resolve_user
from pins.types import PIN
from sharding.exceptions import ShardingError
from sharding.ids import parse_id
from toolkit.commands import SubcommandCommand, progress


class Command(SubcommandCommand):
    help = ("Operate the smart home feed: create its tables, show or rebuild a pinner's pools, "
            "explain a pin on their Home, the generator's health.")
    error_types = (FeedError, GraphError, ShardingError, ContentError)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        self.add_subparser(subparsers, parent, "init",
                           "create the pools table (pools cluster) and the materialized feed's "
                           "table (primary and standby), idempotent")
        show = self.add_subparser(subparsers, parent, "show",
                                  "a pinner's pools, last chunks and materialized feed",
                                  json_output=True)
        show.add_argument("user", metavar="USER", help="username or user ID")
        show.add_argument("--top", type=int, default=5, help="entries per list (default 5)")
        rebuild = self.add_subparser(subparsers, parent, "rebuild",
                                     "refill pools from the graph and recent pins",
                                     json_output=True)
        rebuild.add_argument("user", metavar="USER", nargs="?", help="username or user ID")
        rebuild.add_argument("--all", action="store_true", help="every pinner")
        rebuild.add_argument("--empty-only", action="store_true",
                             help="only pinners whose pools are all empty and were never rebuilt "
                                  "(make run)")
        rebuild.add_argument("--quiet", action="store_true",
                             help="no progress bar, and with --all no line per pinner")
        explaining = self.add_subparser(subparsers, parent, "explain",
                                        "why a pin is, or is not, on a pinner's Home: when it "
                                        "was shown, from which pool, with which score",
                                        json_output=True)
        explaining.add_argument("user", metavar="USER", help="username or user ID")
        explaining.add_argument("pin", metavar="PIN", help="pin ID")
        self.add_subparser(subparsers, parent, "health",
                           "generator latency, failures and fallbacks in the last hour",
                           json_output=True)

    def handle_init(self, **_: Any) -> None:
        outcome = setup.init_tables()
        for cluster, status in outcome.items():
            self.stdout.write(f"{cluster}: {status}")
        failed = [cluster for cluster, status in outcome.items()
                  if not status.startswith(("created", "exists"))]
        if failed:
            raise CommandError(f"the smart feed's tables could not be set up on "
                               f"{', '.join(failed)}")

    def handle_explain(self, user: str, pin: str, json: bool = False, **_: Any) -> None:
        found = explain_home(resolve_user(user), parse_id(pin, PIN))
        if json:
            self.print_json(found.as_json())
            return
        self.stdout.write("\n".join(found.lines("home feed")))

    def handle_show(self, user: str, top: int, json: bool = False, **_: Any) -> None:
        if top < 1:
            raise CommandError("--top must be at least 1")
        state = state_of(resolve_user(user), top)
        if json:
            self.print_json(state)
            return
        self._write_state(user, state)

    def handle_rebuild(self, user: str | None, all: bool, empty_only: bool, quiet: bool,
                       json: bool = False, **_: Any) -> None:
        if bool(user) == bool(all):
            raise CommandError("name one USER or give --all")
        users = [resolve_user(user)] if user else pinner_ids()
        outcome: dict[str, dict[str, int]] = {}
        every = "every pinner" + (" never filled" if empty_only else "")
        logged = (operation("smartfeed.rebuild", every, {"pinners": len(users)}) if all
                  else nullcontext())  # --all: one audit log entry for all of them
        with logged, progress(len(users), "pinners", enabled=not (quiet or json)) as bar:
            for user_id in users:
                if not empty_only or pools.never_filled(user_id):
                    outcome[str(user_id)] = intake.rebuild(user_id)
                bar.update(1)
        if json:
            self.print_json(outcome)
            return
        if not (all and quiet):  # --all --quiet: the count alone
            for who, sizes in outcome.items():
                pooled = ", ".join(f"{source} {size}" for source, size in sizes.items())
                self.stdout.write(f"{who}: {pooled}")
        if all or empty_only:
            self.stdout.write(f"{len(outcome)} of {len(users)} pinners rebuilt")

    def handle_health(self, json: bool = False, **_: Any) -> None:
        summary = health.summary()
        if json:
            self.print_json(summary)
            return
        times = summary["generator_ms"]
        self.stdout.write(f"last {summary['minutes']} min: {summary['visits']} visits, "
                          f"{summary['fallbacks']} fallbacks "
                          f"({summary['fallback_share']:.2%})")
        self.stdout.write("outcomes: " + ", ".join(f"{name} {count}" for name, count
                                                   in summary["outcomes"].items()))
        self.stdout.write("generator ms: " + ", ".join(f"{name} {value}" for name, value
                                                       in times.items()))

    def _write_state(self, user: str, state: dict[str, Any]) -> None:
        pools = state["pools"]
        if "error" in pools:
            self.stdout.write(f"pools: unavailable ({pools['error']})")
        else:
            self.stdout.write(f"{user}: pools " + ", ".join(
                f"{source} {size}" for source, size in pools["sizes"].items()))
            self.stdout.write(f"last visit {pools['last_visit'] or 'never'}, "
                              f"{pools['missed_visits']} missed since")
            for source, entries in pools["top"].items():
                for item in entries:
                    self.stdout.write(f"  {source:9s} {item['score']:8.4f}  pin {item['pin_id']}"
                                      f"  {item['title'] or '(deleted)'}")
            for chunk in pools["chunks"]:
                self.stdout.write(f"  chunk {chunk['at']}: asked {chunk['size']}, "
                                  + ", ".join(f"{s} {n}" for s, n in chunk["sources"].items()))
        home = state["materialized"]
        if "error" in home:
            self.stdout.write(f"materialized feed: unavailable ({home['error']})")
            return
        self.stdout.write(f"materialized feed: {home['entries']} entries")
        for item in home["head"]:
            self.stdout.write(f"  {item['shown']}  {item['source']:9s} pin {item['pin_id']}  "
                              f"{item['title'] or '(deleted)'}")
