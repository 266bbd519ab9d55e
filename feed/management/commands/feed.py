"""``manage.py feed init|show|rebuild|explain|audit|deadletters|pulled|lag``: operate the
following feed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from auditlog.operations import operation
from coordination.exceptions import CoordinationError
from feed import (
    audit,
    audit_rounds,
    explain,
    observe,
    pulled,
    queues,
    selectors,
    setup,
    sources,
    writers,
)
from feed.conf import pull_above
from feed.exceptions import FeedError
from feed.schema import Entry
from feed.store.pools import CLUSTERS
from graph.exceptions import GraphError
from pins.exceptions import ContentError
from pins.selectors import pinner_ids, resolve_user
from pins.types import PIN
from sharding.exceptions import ShardingError
from sharding.ids import parse_id
from toolkit.clock import iso_time
from toolkit.commands import Bounded, SubcommandCommand, progress
from toolkit.queue import QueueUnavailable, dead_letters

MAX_LAG_MINUTES = 60
DEFAULT_AUDIT_USERS = 100


class Command(SubcommandCommand):
    help = ("Operate the following feed: create its tables, show, rebuild, explain or audit "
            "feeds, dead letters, pulled (celebrity) boards, fanout lag.")
    error_types = (FeedError, GraphError, ShardingError, CoordinationError, ContentError,
                   QueueUnavailable)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        explaining = self.add_subparser(
            subparsers, parent, "explain", "why a pin is, or is not, in a pinner's following "
            "feed, from the records (smartfeed explain: on their Home)", json_output=True)
        explaining.add_argument("user", metavar="USER")
        explaining.add_argument("pin", metavar="PIN")
        auditing = self.add_subparser(
            subparsers, parent, "audit", "compare pinners' stored feeds with what the edge log "
            "and the boards' pins say they should hold: recall, precision, order and staleness "
            "per cluster", json_output=True)
        chosen = auditing.add_mutually_exclusive_group()
        chosen.add_argument("--users", type=int, action=Bounded, maximum=100_000,
                            help=f"audit N pinners drawn at random (default "
                                 f"{DEFAULT_AUDIT_USERS})")
        chosen.add_argument("--user", metavar="NAME", help="audit one pinner (ID or username)")
        auditing.add_argument("--window", type=float, action=Bounded, minimum=0,
                              help="the fanout window in seconds (default: from the recent "
                                   "fanout lag, see feed/audit.py)")
        auditing.add_argument("--findings", type=int, default=20, action=Bounded, minimum=0,
                              help="wrong entries to list (default 20)")
        self.add_subparser(subparsers, parent, "init",
                           "create the feed table on both HBase clusters (idempotent)")
        show = self.add_subparser(subparsers, parent, "show", "the head of a user's feed",
                                  json_output=True)
        show.add_argument("user", metavar="USER")
        show.add_argument("--limit", type=int, default=20, help="entries to show (default 20)")
        show.add_argument("--cluster", choices=CLUSTERS,
                          help="read this cluster (default: speculative read)")
        rebuilding = self.add_subparser(subparsers, parent, "rebuild",
                                        "recompute a user's feed (or every pinner's) from the "
                                        "graph and the boards' pins, on both clusters",
                                        json_output=True)
        rebuilding.add_argument("user", metavar="USER", nargs="?")
        rebuilding.add_argument("--all", action="store_true",
                                help="every pinner, with a progress bar (a cluster that was "
                                     "reset or replaced)")
        letters = self.add_subparser(subparsers, parent, "deadletters",
                                     "list the feed messages that exhausted their retries",
                                     json_output=True)
        letters.add_argument("--limit", type=int, default=1000, help="per queue (default 1000)")
        self.add_subparser(subparsers, parent, "pulled",
                           "the celebrity boards whose pins readers pull (not fanned out)",
                           json_output=True)
        lag = self.add_subparser(subparsers, parent, "lag",
                                 "fanout lag, deliveries, queue depths, standby reads and dead "
                                 "letters of the last minutes (the admin's queues dashboard)",
                                 json_output=True)
        lag.add_argument("--minutes", type=int, default=MAX_LAG_MINUTES,
                         help=f"the window, 1 to {MAX_LAG_MINUTES} (default {MAX_LAG_MINUTES})")

    def handle_explain(self, user: str, pin: str, json: bool = False, **_: Any) -> None:
        found = explain.explain(resolve_user(user), parse_id(pin, PIN))
        if json:
            self.print_json(found.as_json())
            return
        self.stdout.write("\n".join(found.lines("following feed")))

    def handle_audit(self, users: int | None, user: str | None, window: float | None,
                     findings: int, json: bool = False, **_: Any) -> None:
        if user is not None:
            chosen = [resolve_user(user)]
        else:
            chosen = sources.sample_pinner_ids(
                DEFAULT_AUDIT_USERS if users is None else users)
        with progress(len(chosen), "pinners audited", enabled=not json) as bar:
            report = audit.audit_users(chosen, window=None if window is None
                                       else int(window * 1_000_000), progress=bar.update)
        try:
            audit_rounds.record(report, "command")
        except FeedError as exc:
            self.stderr.write(f"the round is not kept for the admin's plot: {exc}")
        warning = report.recall() < audit_rounds.RECALL_WARNING
        if json:
            self.print_json({**report.as_json(findings=findings), "warning": warning})
            return
        self.stdout.write(f"{report.users} pinners audited, fanout window "
                          f"{report.window_us / 1e6:.1f} s")
        for cluster, tally in report.clusters.items():
            figures = tally.as_json()
            self.stdout.write(
                f"{cluster}: recall {figures['recall']:.4%} ({figures['present']} of "
                f"{figures['required']}), precision {figures['precision']:.4%} "
                f"({figures['wrong']} wrong of {figures['served']}), "
                f"{figures['order_violations']} out of order, {figures['pending']} pending, "
                f"staleness max {figures['staleness_seconds']['max']:.1f} s"
                + (f", {figures['unreadable']} feeds unreadable" if figures["unreadable"]
                   else ""))
        if warning:
            self.stdout.write(self.style.WARNING(
                f"warning: recall {report.recall():.4%} is below "
                f"{audit_rounds.RECALL_WARNING:.2%}"))
        for finding in report.findings[:findings]:
            self.stdout.write(f"  {finding.cluster}  user {finding.user_id}  {finding.kind:<10}"
                              f"  pin {finding.pin_id}  {_time(finding.created_us)}  "
                              f"{finding.reason}")
        if len(report.findings) > findings:
            self.stdout.write(f"  ... {len(report.findings) - findings} more")

    def handle_init(self, **_: Any) -> None:
        outcome = setup.init_tables()
        for cluster, status in outcome.items():
            self.stdout.write(f"{cluster}: {status}")
        self.stdout.write(f"pulled boards: {'created' if pulled.init() else 'exists'}")
        failed = [cluster for cluster, status in outcome.items()
                  if not status.startswith(("created", "exists"))]
        if failed:
            raise CommandError(f"the feed table could not be set up on {', '.join(failed)}")

    def handle_show(self, user: str, limit: int, cluster: str | None = None,
                    json: bool = False, **_: Any) -> None:
        if limit < 1:
            raise CommandError("--limit must be at least 1")
        row = selectors.feed_head(resolve_user(user), cluster)  # type: ignore[arg-type]
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

    def handle_rebuild(self, user: str | None, all: bool, json: bool = False,
                       **_: Any) -> None:
        if bool(user) == bool(all):
            raise CommandError("name one USER or give --all")
        if user:
            outcome = writers.rebuild_everywhere(resolve_user(user))
            if json:
                self.print_json(outcome)
                return
            for cluster, result in outcome.items():
                self.stdout.write(_rebuilt_line(cluster, result))
            return
        users = pinner_ids()
        outcomes: dict[str, dict[str, Any]] = {}
        with operation("feed.rebuild", "every pinner", {"pinners": len(users)}), \
                progress(len(users), "pinners", enabled=not json) as bar:
            for user_id in users:  # one audit log entry for all of them
                outcomes[str(user_id)] = writers.rebuild_everywhere(user_id)
                bar.update(1)
        if json:
            self.print_json(outcomes)
            return
        for cluster in CLUSTERS:
            done = [found[cluster] for found in outcomes.values()]
            queued = sum(1 for result in done if result.get("queued"))
            entries = sum(result.get("entries", 0) for result in done)
            self.stdout.write(f"{cluster}: {len(done) - queued} of {len(users)} feeds rebuilt, "
                              f"{entries} entries written"
                              + (f", {queued} queued (unavailable)" if queued else ""))

    def handle_deadletters(self, limit: int, json: bool = False, **_: Any) -> None:
        letters = dead_letters(queues.names(), limit=limit)
        if json:
            self.print_json([letter.to_json() for letter in letters])
            return
        if not letters:
            self.stdout.write("no dead letters")
        for letter in letters:
            self.stdout.write(f"{letter.queue}  {letter.actor}{tuple(letter.args)!r}  "
                              f"retries={letter.retries}  {letter.error}")

    def handle_pulled(self, json: bool = False, **_: Any) -> None:
        boards = [{"board_id": board, "state": entry.state,
                   "since": iso_time(entry.since_us, "auto"),
                   "followers": sources.board_follower_count(board)}
                  for board, entry in sorted(pulled.fresh().items())]
        if json:
            self.print_json({"pull_above": pull_above(), "boards": boards})
            return
        threshold = pull_above()
        self.stdout.write("boards are never pulled (PULL_ABOVE is None)" if threshold is None
                          else f"boards with more than {threshold} followers are pulled")
        if not boards:
            self.stdout.write("no pulled boards")
        for board in boards:
            self.stdout.write(f"{board['board_id']}  {board['state']:<5}  since {board['since']}"
                              f"  {board['followers']} followers")

    def handle_lag(self, minutes: int, json: bool = False, **_: Any) -> None:
        if not 1 <= minutes <= MAX_LAG_MINUTES:
            raise CommandError(f"--minutes must be from 1 to {MAX_LAG_MINUTES}")
        observe.sample_depths(queues.every_queue_depth)
        figures = observe.figures(minutes)
        if json:
            self.print_json(figures)
            return
        summary = figures["summary"]
        self.stdout.write(f"the last {summary['minutes']} minutes "
                          f"(lag resolution ±{figures['lag_resolution']:.0%}):")
        for cluster, lag in summary["lag_seconds"].items():
            self.stdout.write(f"{cluster}: {lag['fanouts']} fanouts, lag p50 "
                              f"{_seconds(lag['p50'])} p99 {_seconds(lag['p99'])}, "
                              f"{summary['deliveries'][cluster]} entries written "
                              f"({summary['deliveries_per_second'][cluster]}/s)")
        self.stdout.write(f"standby reads: {summary['standby_reads']}, dead letters: "
                          f"{_or_dash(summary['dead_letters'])}")
        for queue, depth in summary["queue_depths"].items():
            held = summary["held_retries"].get(queue, 0)
            self.stdout.write(f"  {queue}: {depth} waiting"
                              + (f" ({held} of them retries held by workers)" if held else ""))


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


def _or_dash(value: Any) -> str:
    return "-" if value is None else str(value)


def _rebuilt_line(cluster: str, result: dict[str, Any]) -> str:
    if result.get("queued"):
        return f"{cluster}: unavailable, rebuild queued ({result['error']})"
    return f"{cluster}: {result['entries']} entries written, {result['removed']} removed"


def _entry_json(entry: Entry, pin: Any) -> dict[str, Any]:
    return {"pin_id": str(entry.pin_id), "created_us": entry.created_us,
            "created": _time(entry.created_us), "exists": pin is not None,
            "title": pin.title if pin is not None else None}


def _time(us: int) -> str:
    return iso_time(us)


def _horizon(qualifier: bytes | None) -> dict[str, Any] | None:
    if qualifier is None:
        return None
    entry = Entry.from_qualifier(qualifier)
    return {"pin_id": str(entry.pin_id), "created": _time(entry.created_us)}
