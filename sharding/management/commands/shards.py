"""``manage.py shards decode|init|show|promote|attach-replica|open|split|cleanup|hosts``:
operate the sharded MySQL layer."""

from __future__ import annotations

import threading
from dataclasses import asdict
from typing import Any

from django.core.management.base import CommandError, CommandParser

from coordination import registry
from coordination.exceptions import CoordinationError
from sharding import failover, ids, layout, replication, schema, split
from sharding.exceptions import ShardingError
from sharding.hosts import configured_hosts, schema_name
from sharding.management.hosts import HostKind, add_hosts_subcommand, run_hosts_subcommand
from sharding.shardmap import ShardRange
from sharding.topology import current_map, fresh_map, publish_initial_map
from toolkit.commands import SubcommandCommand, progress


class Command(SubcommandCommand):
    help = "Operate the logical shards: decode IDs, create shards, show the map, promote replicas."
    error_types = (ShardingError, CoordinationError)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        decode = self.add_subparser(subparsers, parent, "decode", "decode 64-bit object IDs",
                                    json_output=True)
        decode.add_argument("ids", nargs="+", metavar="ID")
        init = self.add_subparser(subparsers, parent, "init",
                                  "publish the shard map (if none) and create every shard's "
                                  "schema and tables on its master (idempotent)")
        init.add_argument("--quiet", action="store_true", help="no progress bar")
        self.add_subparser(subparsers, parent, "show", "list ranges, hosts, health and lag",
                           json_output=True)
        promote = self.add_subparser(subparsers, parent, "promote",
                                     "promote MASTER's replica and switch the map to it",
                                     json_output=True)
        promote.add_argument("master", metavar="MASTER")
        promote.add_argument("--wait", type=float, default=None,
                             help="seconds to wait for the replica to catch up")
        attach = self.add_subparser(subparsers, parent, "attach-replica",
                                    "record REPLICA as the hot standby of MASTER's ranges")
        attach.add_argument("master", metavar="MASTER")
        attach.add_argument("replica", metavar="REPLICA", nargs="?", default=None)
        splitting = self.add_subparser(subparsers, parent, "split",
                                   "move the upper half of MASTER's shards to NEW_MASTER "
                                   "(copied, replicated, fenced briefly, switched)",
                                   json_output=True)
        splitting.add_argument("master", metavar="MASTER")
        splitting.add_argument("new_master", metavar="NEW_MASTER")
        splitting.add_argument("--replica", default=None, help="NEW_MASTER's replica, recorded in "
                                                          "the map (it must replicate it)")
        cleanup = self.add_subparser(subparsers, parent, "cleanup",
                                     "drop the shard schemas a master no longer serves "
                                     "(after a split)", json_output=True)
        cleanup.add_argument("--dry-run", action="store_true", help="only list them")
        add_hosts_subcommand(self, subparsers, parent)
        opening = self.add_subparser(subparsers, parent, "open",
                                     "open shards FIRST-LAST on MASTER (creates them, then maps)")
        opening.add_argument("range", metavar="FIRST-LAST")
        opening.add_argument("master", metavar="MASTER")
        opening.add_argument("replica", metavar="REPLICA", nargs="?", default=None)

    def handle_decode(self, ids: list[str], json: bool = False, **_: Any) -> None:
        rows = [self._decoded(text) for text in ids]
        if json:
            self.print_json(rows)
            return
        for row in rows:
            self.stdout.write(f"{row['id']}: shard {row['shard']} ({row['schema']}), "
                              f"type {row['type_id']} ({row['type']}), local {row['local_id']}")

    @staticmethod
    def _decoded(text: str) -> dict[str, Any]:
        try:
            object_id = ids.parse_id(text)
            parts = ids.decompose(object_id)
        except ShardingError as exc:
            raise CommandError(str(exc)) from exc
        return {"id": str(object_id), "shard": parts.shard, "schema": schema_name(parts.shard),
                "type_id": parts.type_id, "type": ids.types.name_of(parts.type_id) or "unknown",
                "local_id": parts.local_id}

    def handle_init(self, quiet: bool = False, **_: Any) -> None:
        created = publish_initial_map()
        shard_map = fresh_map()
        self.stdout.write(f"shard map {'created' if created else 'exists'}: "
                          f"{shard_map.shard_count()} shards on {', '.join(shard_map.masters())}")
        seeded = registry.seed("mysql", configured_hosts())
        self.stdout.write(f"host registry: {len(seeded)} configured host(s) registered"
                          + (f" ({', '.join(seeded)})" if seeded else ""))
        lock = threading.Lock()
        with progress(shard_map.shard_count(), "shards", enabled=not quiet) as bar:
            def advance(_alias: str, step: int) -> None:
                with lock:
                    bar.update(step)
            reports = schema.init_shards(shard_map, advance)
        for report in reports:
            self.stdout.write(f"{report.alias}: {report.shards} shards, "
                              f"{report.created_schemas} schemas and "
                              f"{report.created_tables} tables created")

    def handle_show(self, json: bool = False, **_: Any) -> None:
        shard_map = current_map()
        health = {alias: replication.host_health(alias) for alias in shard_map.hosts()}
        rows = [{**r.to_json(), "shards": r.size,
                 "master_health": asdict(health[r.master]),
                 "replica_health": asdict(health[r.replica]) if r.replica else None}
                for r in shard_map.ranges]
        if json:
            self.print_json({"version": shard_map.version, "ranges": rows})
            return
        self.stdout.write(f"shard map version {shard_map.version}")
        header = f"{'range':<15} {'shards':>6}  {'master':<12} {'up':<4} {'replica':<12} " \
                 f"{'up':<4} {'replicating':<11} lag"
        self.stdout.write(header)
        for r in shard_map.ranges:
            master, replica = health[r.master], health.get(r.replica or "")
            self.stdout.write(
                f"{f'{r.first}-{r.last}':<15} {r.size:>6}  {r.master:<12} "
                f"{_yes(master.reachable):<4} {r.replica or '-':<12} "
                f"{_yes(replica.reachable) if replica else '-':<4} "
                f"{_yes(replica.replicating) if replica else '-':<11} "
                f"{'-' if replica is None or replica.lag_seconds is None else replica.lag_seconds}")

    def handle_promote(self, master: str, wait: float | None = None, json: bool = False,
                       **_: Any) -> None:
        report = failover.promote(master, wait)
        self.answer(
            json, asdict(report),
            f"promoted {report.new_master} in place of {report.old_master} for {report.shards} "
            f"shards (map version {report.map_version}, gtid {report.gtid}); old master "
            f"{'fenced read-only' if report.fenced else 'unreachable, not fenced'}")


    def handle_attach_replica(self, master: str, replica: str | None, **_: Any) -> None:
        shard_map = layout.attach_replica(master, replica)
        self.stdout.write(f"{master} now has replica {replica or 'none'} "
                          f"(map version {shard_map.version})")

    def handle_open(self, range: str, master: str, replica: str | None, **_: Any) -> None:
        first, _dash, last = range.partition("-")
        if not (first.isdigit() and last.isdigit()):
            raise CommandError(f"expected FIRST-LAST, got {range!r}")
        new = ShardRange(int(first), int(last), master, replica)
        shard_map, report = layout.open_range(new)
        self.stdout.write(f"opened shards {new.first}-{new.last} on {master} "
                          f"({report.created_schemas} schemas created; map version "
                          f"{shard_map.version})")

    def handle_split(self, master: str, new_master: str, replica: str | None = None,
                     json: bool = False, **_: Any) -> None:
        report = split.split(master, new_master, replica,
                             progress=(lambda _: None) if json else self.stderr.write)
        if json:
            self.print_json(report.to_json())
            return
        self.stdout.write(f"moved shards {report.first_shard}-{report.last_shard} "
                          f"({report.shards_moved}) from {master} to {new_master}: copied and "
                          f"caught up in {report.copy_seconds:.2f}s, writes fenced for "
                          f"{report.fence_seconds:.2f}s, map version {report.map_version}; "
                          "`shards cleanup` drops the copies left behind")

    def handle_cleanup(self, dry_run: bool = False, json: bool = False, **_: Any) -> None:
        dropped = split.cleanup(dry_run)
        if json:
            self.print_json(dropped)
            return
        verb = "would drop" if dry_run else "dropped"
        for host, schemas in dropped.items():
            self.stdout.write(f"{host}: {verb} {len(schemas)} schema(s)"
                              + (f" ({schemas[0]} … {schemas[-1]})" if schemas else ""))

    def handle_hosts(self, **options: Any) -> None:
        run_hosts_subcommand(self, SHARD_HOSTS, **options)


def _yes(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


SHARD_HOSTS = HostKind("mysql", configured_hosts, lambda: current_map().roles(),
                       replication.unreachable, "shard map")
