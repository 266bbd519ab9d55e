"""``manage.py graph init|verify|rebuild|vshards|promote|attach-replica|split|hosts``: operate
the graph."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from coordination import registry
from coordination.exceptions import CoordinationError
from graph import failover, moves, repair, topology
from graph.differences import VerifyReport
from graph.exceptions import GraphError
from graph.health import instance_health, unreachable
from graph.vshards import vshard_count
from pins.exceptions import ContentError
from pins.selectors import resolve_user
from sharding.exceptions import ShardingError
from sharding.management.hosts import HostKind, add_hosts_subcommand, run_hosts_subcommand
from toolkit.commands import SubcommandCommand, progress

SHOWN_DIFFERENCES = 50


class Command(SubcommandCommand):
    help = "Operate the follower graph: publish the vshard map, verify and rebuild Redis from " \
           "the edge log, show and move vshards, promote a Redis replica."
    error_types = (ShardingError, CoordinationError, GraphError, ContentError)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        self.add_subparser(subparsers, parent, "init",
                           "publish the vshard map unless one exists (idempotent)")
        for name, text in (("verify", "report every difference between Redis and the edge log"),
                           ("rebuild", "restore Redis from the edge log")):
            sub = self.add_subparser(subparsers, parent, name, text, json_output=True)
            _add_scope(sub)
            if name == "rebuild":
                sub.add_argument("--quiet", action="store_true", help="no progress bar")
        vshards = self.add_subparser(subparsers, parent, "vshards", "show or move vshards")
        actions = vshards.add_subparsers(dest="vshards_action", required=True,
                                         parser_class=type(parent), metavar="ACTION")
        self.add_subparser(actions, parent, "show", "ranges, instances, health", json_output=True)
        move = self.add_subparser(actions, parent, "move", "move FIRST-LAST to INSTANCE online",
                                  json_output=True)
        move.add_argument("range", metavar="FIRST-LAST")
        move.add_argument("instance", metavar="INSTANCE")
        move.add_argument("--grace", type=float, default=1.0,
                          help="seconds between the map switch and dropping the old keys")
        promote = self.add_subparser(subparsers, parent, "promote",
                                     "promote INSTANCE's replica (or the replica INSTANCE)",
                                     json_output=True)
        promote.add_argument("instance", metavar="INSTANCE")
        promote.add_argument("--wait", type=float, default=None,
                             help="seconds a reachable old master's replica may take to catch up")
        attach = self.add_subparser(subparsers, parent, "attach-replica",
                                    "make REPLICA replicate MASTER and name it in the map",
                                    json_output=True)
        attach.add_argument("master", metavar="MASTER")
        attach.add_argument("replica", metavar="REPLICA")
        splitting = self.add_subparser(subparsers, parent, "split",
                                       "move the upper half of INSTANCE's vshards to NEW online",
                                       json_output=True)
        splitting.add_argument("instance", metavar="INSTANCE")
        splitting.add_argument("new", metavar="NEW")
        splitting.add_argument("--replica", default=None,
                               help="make this instance NEW's replica and name it in the map")
        add_hosts_subcommand(self, subparsers, parent)

    def handle_split(self, instance: str, new: str, replica: str | None = None,
                     json: bool = False, **_: Any) -> None:
        topology.address_of(new)  # configured or registered, before anything moves
        reports = moves.split(instance, new,
                              progress=None if json else lambda phase: self.stderr.write(phase))
        if replica:
            failover.attach_replica(new, replica)
        if json:
            self.print_json({"moves": [report.to_json() for report in reports],
                             "replica": replica})
            return
        for report in reports:
            self.stdout.write(f"moved vshards {report.first}-{report.last} "
                              f"({report.vshards_moved}) from {instance} to {new}: "
                              f"{report.keys_copied} keys copied, {report.seconds}s")
        if replica:
            self.stdout.write(f"{replica} replicates {new}")

    def handle_hosts(self, **options: Any) -> None:
        run_hosts_subcommand(self, REDIS_INSTANCES, **options)

    def handle_attach_replica(self, master: str, replica: str, json: bool = False,
                              **_: Any) -> None:
        current = failover.attach_replica(master, replica)
        self.answer(json, {"master": master, "replica": replica, "version": current.version},
                    f"{replica} now replicates {master} (map version {current.version})")

    def handle_init(self, **_: Any) -> None:
        created = topology.publish_initial_map()
        current = topology.read_fresh()
        self.stdout.write(f"vshard map {'created' if created else 'exists'} (version "
                          f"{current.version}): {current.count} vshards on "
                          f"{', '.join(current.masters())}")
        seeded = registry.seed("redis", topology.configured_instances())
        self.stdout.write(f"host registry: {len(seeded)} configured instance(s) registered"
                          + (f" ({', '.join(seeded)})" if seeded else ""))

    def handle_verify(self, json: bool = False, **options: Any) -> None:
        """Print the report; exit with status 1 when Redis differs from the log (as ``diff``
        does), so scripts and monitors can rely on the status alone."""
        report = _verify(options)
        if json:
            self.print_json(report.to_json())
        else:
            self._print_report(report)
        if report.differences:
            raise CommandError(f"{len(report.differences)} differences between the edge log and "
                               "Redis (`manage.py graph rebuild` rewrites them)", returncode=1)

    def handle_rebuild(self, json: bool = False, quiet: bool = False, **options: Any) -> None:
        with progress(0, "keys rewritten", enabled=not (quiet or json)) as bar:
            def advance(done: int, total: int) -> None:
                bar.total = total
                bar.update(done)
            report = _rebuild(options, advance)
        self.answer(json, report.to_json(),
                    f"{report.verified.scope}: {len(report.verified.differences)} differences, "
                    f"{report.keys_rewritten} keys rewritten, {report.members_fixed} entries "
                    f"fixed, {report.overlaps_recounted} overlaps recounted")

    def handle_vshards(self, vshards_action: str, **options: Any) -> None:
        getattr(self, f"_vshards_{vshards_action}")(**options)

    def _vshards_show(self, json: bool = False, **_: Any) -> None:
        current = topology.current_map()
        health = {name: _health(name) for name in current.instances()}
        rows = [{**r.to_json(), "vshards": r.size} for r in current.ranges]
        if json:
            self.print_json({"version": current.version, "ranges": rows, "instances": health})
            return
        self.stdout.write(f"vshard map version {current.version}")
        self.stdout.write(f"{'range':<12} {'vshards':>7}  {'master':<12} {'replica':<12}")
        for r in current.ranges:
            self.stdout.write(f"{f'{r.first}-{r.last}':<12} {r.size:>7}  {r.master:<12} "
                              f"{r.replica or '-':<12}")
        for name, row in health.items():
            self.stdout.write(f"{name}: {'up' if row['up'] else 'DOWN'} {row['role'] or ''} "
                              f"{row['keys']} keys, {row['used_memory']} bytes")

    def _vshards_move(self, range: str, instance: str, grace: float, json: bool = False,
                      **_: Any) -> None:
        first, last = _range(range)
        report = moves.move(first, last, instance, grace_seconds=grace,
                            progress=None if json else lambda phase: self.stderr.write(phase))
        self.answer(json, report.to_json(),
                    f"moved {report.vshards_moved} vshards of {first}-{last} from "
                    f"{', '.join(report.sources) or 'nowhere'} to {instance}: "
                    f"{report.keys_copied} keys copied, {report.keys_recopied} re-copied, "
                    f"{report.keys_dropped} dropped, map version {report.map_version}, "
                    f"{report.seconds}s")

    def handle_promote(self, instance: str, wait: float | None = None, json: bool = False,
                       **_: Any) -> None:
        report = failover.promote(instance, wait)
        self.answer(
            json, report.to_json(),
            f"promoted {report.new_master} in place of {report.old_master} for "
            f"{report.vshards} vshards (map version {report.map_version}); old master "
            f"{'now replicates it' if report.old_master_reachable else 'unreachable'}; "
            f"{report.keys_reconciled} keys rewritten from the edge log ({report.reconciled}) "
            f"in {report.reconcile_seconds:.2f}s")

    def _print_report(self, report: VerifyReport) -> None:
        self.stdout.write(f"{report.scope}: {report.log_rows} log rows, {report.keys_checked} "
                          f"keys checked, {len(report.differences)} differences, "
                          f"{report.orphan_rows} rows of deleted boards")
        for difference in report.differences[:SHOWN_DIFFERENCES]:
            self.stdout.write(f"  {difference.key}: missing {list(difference.missing)} extra "
                              f"{list(difference.extra)} changed {list(difference.changed)}"
                              + (f" counter log/redis {difference.counter}"
                                 if difference.counter else ""))
        if len(report.differences) > SHOWN_DIFFERENCES:
            self.stdout.write(f"  ... {len(report.differences) - SHOWN_DIFFERENCES} more "
                              "(use --json)")


def _add_scope(parser: CommandParser) -> None:
    scope = parser.add_mutually_exclusive_group(required=True)
    scope.add_argument("--user", metavar="USER",
                       help="one user (ID or username), their boards and their edges")
    scope.add_argument("--vshard", metavar="N[-M]", help="one vshard or a range")
    scope.add_argument("--all", action="store_true", help="every vshard")


def _vshards_of(options: dict[str, Any]) -> set[int] | None:
    if options.get("all"):
        return None
    first, last = _range(options["vshard"])
    return set(range(first, last + 1))


def _verify(options: dict[str, Any]) -> VerifyReport:
    if options.get("user"):
        return repair.verify_user(resolve_user(options["user"]))
    return repair.verify(_vshards_of(options))


def _rebuild(options: dict[str, Any], advance: Any) -> repair.RebuildReport:
    if options.get("user"):
        return repair.rebuild_user(resolve_user(options["user"]), advance)
    return repair.rebuild(_vshards_of(options), advance)


def _range(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        low, high = int(first), int(last or first)
    except ValueError:
        raise CommandError(f"{text!r} is not a vshard or a FIRST-LAST range") from None
    if not 0 <= low <= high < vshard_count():
        raise CommandError(f"vshards {text} are out of 0..{vshard_count() - 1}")
    return low, high


def _health(instance: str) -> dict[str, Any]:
    health = instance_health(instance)
    row: dict[str, Any] = {"up": health.up, "role": health.role, "keys": health.keys,
                           "used_memory": health.used_memory}
    if health.up:
        row["master_link_status"] = health.link
    return row


REDIS_INSTANCES = HostKind("redis", topology.configured_instances,
                           lambda: topology.current_map().roles(),
                           unreachable, "vshard map")
