"""``manage.py bench COMPONENT [--json]``: each component's figures beside its raw store."""

from __future__ import annotations

import os
import signal
from typing import Any

from django.core.management.base import CommandError, CommandParser

from sharding.exceptions import ShardingError
from toolkit.commands import SubcommandCommand, require_counts

MAX_CELEBRITY_FOLLOWERS = 5_000_000


class Command(SubcommandCommand):
    help = "Benchmark a component against the raw ceiling of the store underneath it."
    error_types = (ShardingError,)

    def handle(self, *args: Any, **options: Any) -> None:
        # A bench starts servers, queue workers and writers of its own and stops them in its
        # ``finally`` blocks: SIGTERM unwinds through those as Ctrl-C does, instead of ending
        # the process on the spot and leaving them running.
        signal.signal(signal.SIGTERM, _interrupted)
        try:
            super().handle(*args, **options)
        except KeyboardInterrupt:
            raise CommandError("interrupted; what the bench had started is stopped") from None

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        shards = self.add_subparser(subparsers, parent, "shards",
                                    "sharded MySQL store vs raw MySQLdb", json_output=True)
        shards.add_argument("--creates", type=int, default=2000)
        shards.add_argument("--gets", type=int, default=2000)
        shards.add_argument("--batches", type=int, default=300)
        graph = self.add_subparser(subparsers, parent, "graph",
                                   "follower graph vs raw redis-py on the same instance",
                                   json_output=True)
        graph.add_argument("--edges", type=int, default=1_000_000)
        graph.add_argument("--samples", type=int, default=10_000)
        graph.add_argument("--writes", type=int, default=500)
        graph.add_argument("--keep", action="store_true",
                           help="leave the seeded bench keys in Redis")
        graph.add_argument("--clients", type=int, nargs="+", default=[4, 16],
                           help="concurrent follow clients, one figure per count (default 4 16)")
        graph.add_argument("--processes", type=int, default=1,
                           help="processes the concurrent clients (threads) are spread over "
                                "(default 1)")
        graph.add_argument("--per-client", type=int, default=100,
                           help="follows per concurrent client (default 100, at most 130)")
        feed = self.add_subparser(subparsers, parent, "feed",
                                  "feed fanout and pages vs raw happybase", json_output=True)
        feed.add_argument("--followers", type=int, default=10_000)
        feed.add_argument("--samples", type=int, default=300)
        feed.add_argument("--processes", type=int, default=2, help="worker processes")
        feed.add_argument("--threads", type=int, default=2, help="threads per worker process")
        feed.add_argument("--parts", nargs="+", metavar="PART",
                          help="what to measure: fanout, page, pulled (default: all)")
        feed.add_argument("--celebrity-followers", type=int, nargs="+", metavar="N",
                          help="follower counts of the pulled boards whose pins are planned "
                               "(default 200000 1000000)")
        events = self.add_subparser(subparsers, parent, "events",
                                    "the outbox's cost to pins and follows, relay vs raw pika",
                                    json_output=True)
        events.add_argument("--samples", type=int, default=1000,
                            help="actions timed per mode (with and without the outbox)")
        events.add_argument("--events", type=int, default=5000, help="events relayed")
        smart = self.add_subparser(subparsers, parent, "smartfeed",
                                   "smart feed pools, generator, pages and availability vs raw "
                                   "happybase", json_output=True)
        smart.add_argument("--inserts", type=int, default=20_000, help="pool entries written")
        smart.add_argument("--samples", type=int, default=300, help="timed calls per figure")
        smart.add_argument("--reads", type=int, default=20_000,
                           help="home-feed reads of the availability run (three phases)")
        failover = self.add_subparser(subparsers, parent, "failover",
                                      "SIGKILL a shard master, then a graph Redis master, with "
                                      "the orchestrator (and Sentinel) running: seconds to the "
                                      "next acknowledged write", json_output=True)
        failover.add_argument("--runs", type=int, default=5, help="kills of each kind, a new "
                                                                   "pair each (default 5)")
        failover.add_argument("--store", choices=["mysql", "redis", "both"], default="both",
                              help="which masters to kill (default both)")
        failover.add_argument("--edge-log-rows", type=int, default=None, metavar="ROWS",
                              help="first grow the graph's edge log to ROWS rows with follows "
                                   "among bench-only users (they stay, like demo data)")
        splitting = self.add_subparser(subparsers, parent, "split",
                                       "split a throwaway shard host under a writer: the "
                                       "fence and the writer's longest pause", json_output=True)
        splitting.add_argument("--runs", type=int, default=3, help="splits, new pairs each")
        splitting.add_argument("--shards", type=int, default=64, help="shards on the master")
        splitting.add_argument("--rows", type=int, default=20_000,
                               help="rows written before the split")
        importing = self.add_subparser(subparsers, parent, "import",
                                       "a legacy site copied by one pass, beside raw multi-row "
                                       "INSERTs", json_output=True)
        importing.add_argument("--users", type=int, default=100,
                               help="legacy users (with 2x boards, 4x pins, 2x follows)")
        importing.add_argument("--workers", type=int, default=4, help="queue worker threads")
        site = self.add_subparser(subparsers, parent, "site",
                                  "the whole site over HTTP under a mix of clients, beside the "
                                  "same requests in process", json_output=True)
        site.add_argument("--clients", type=int, default=16, help="concurrent clients")
        site.add_argument("--seconds", type=float, default=20.0, help="length of the load")
        site.add_argument("--samples", type=int, default=200,
                          help="requests of each kind timed one at a time")
        site.add_argument("--workers", type=int, default=(os.cpu_count() or 1) + 1,
                          help="web worker processes of the bench's site")
        site.add_argument("--threads", type=int, default=4, help="threads per web worker")
        feed.add_argument("--rounds", type=int, default=3,
                          help="fanouts (each followed by a raw put) whose medians are quoted")

    def handle_events(self, samples: int, events: int, json: bool = False, **_: Any) -> None:
        from events import bench

        require_counts(("--samples", samples), ("--events", events))
        figures = bench.run(samples=samples, events=events,
                            progress=(lambda _: None) if json else self.stderr.write)
        self.report(figures, json)

    def handle_graph(self, edges: int, samples: int, writes: int, clients: list[int],
                     processes: int, per_client: int, keep: bool = False, json: bool = False,
                     **_: Any) -> None:
        from graph import bench

        require_counts(("--edges", edges), ("--samples", samples), ("--writes", writes),
                       ("--processes", processes), ("--per-client", per_client),
                       *(("--clients", count) for count in clients))
        if per_client > 130:
            raise CommandError("--per-client must be at most 130")
        if max(clients) > 64:
            raise CommandError("--clients must be at most 64")
        figures = bench.run(edges=edges, samples=samples, writes=writes, keep=keep,
                            clients=tuple(clients), processes=processes,
                            per_client=per_client)
        self.report(figures, json)

    def handle_shards(self, creates: int, gets: int, batches: int, json: bool = False,
                      **_: Any) -> None:
        from sharding import bench

        figures = bench.run(creates=creates, gets=gets, batches=batches)
        self.report(figures, json)

    def handle_feed(self, followers: int, samples: int, processes: int, threads: int,
                    rounds: int, parts: list[str] | None, celebrity_followers: list[int] | None,
                    json: bool = False, **_: Any) -> None:
        from feed import bench

        require_counts(("--followers", followers), ("--samples", samples),
                       ("--processes", processes), ("--threads", threads),
                       ("--rounds", rounds),
                       *(("--celebrity-followers", count) for count in celebrity_followers or ()))
        unknown = sorted(set(parts or ()) - set(bench.PARTS))
        if unknown:
            raise CommandError(f"unknown --parts {', '.join(unknown)} (known: "
                               f"{', '.join(bench.PARTS)})")
        if celebrity_followers and max(celebrity_followers) > MAX_CELEBRITY_FOLLOWERS:
            raise CommandError(f"--celebrity-followers must be at most "
                               f"{MAX_CELEBRITY_FOLLOWERS:,}")
        figures = bench.run(followers=followers, samples=samples, processes=processes,
                            threads=threads, rounds=rounds,
                            parts=tuple(parts) if parts else bench.PARTS,
                            celebrity_followers=tuple(celebrity_followers or ()) or None,
                            progress=(lambda _: None) if json else self.stderr.write)
        self.report(figures, json)

    def handle_smartfeed(self, inserts: int, samples: int, reads: int, json: bool = False,
                         **_: Any) -> None:
        from feed.smart import bench

        require_counts(("--inserts", inserts), ("--samples", samples), ("--reads", reads))
        figures = bench.run_bench(inserts=inserts, samples=samples, reads=reads,
                                  progress=(lambda _: None) if json else self.stderr.write)
        self.report(figures, json)

    def handle_failover(self, runs: int, store: str = "both", json: bool = False,
                        edge_log_rows: int | None = None, **_: Any) -> None:
        from graph import bench_failover as graph_bench
        from sharding import bench_failover as shard_bench

        require_counts(("--runs", runs))
        if runs > 20:
            raise CommandError("--runs must be at most 20")
        if edge_log_rows is not None and not 0 < edge_log_rows <= 20_000_000:
            raise CommandError("--edge-log-rows must be between 1 and 20000000")
        progress = (lambda _: None) if json else self.stderr.write
        figures = {}
        if store in ("mysql", "both"):
            figures["mysql"] = shard_bench.run(runs=runs, progress=progress)
        if store in ("redis", "both"):
            figures["redis"] = graph_bench.run(runs=runs, progress=progress,
                                               edge_log_rows=edge_log_rows)
        self.report(figures, json)

    def handle_split(self, runs: int, shards: int, rows: int, json: bool = False,
                     **_: Any) -> None:
        from sharding import bench_split

        require_counts(("--runs", runs), ("--rows", rows), ("--shards", shards))
        if runs > 10 or shards < 2:
            raise CommandError("--runs must be at most 10 and --shards at least 2")
        figures = bench_split.run(runs=runs, shards=shards, rows=rows,
                                  progress=(lambda _: None) if json else self.stderr.write)
        self.report(figures, json)

    def handle_import(self, users: int, workers: int, json: bool = False, **_: Any) -> None:
        from legacy import bench

        require_counts(("--users", users), ("--workers", workers))
        figures = bench.run(users=users, workers=workers,
                            progress=(lambda _: None) if json else self.stderr.write)
        self.report(figures, json)

    def handle_site(self, clients: int, seconds: float, samples: int, workers: int,
                    threads: int, json: bool = False, **_: Any) -> None:
        from pinsite.serving import bench

        require_counts(("--clients", clients), ("--samples", samples),
                       ("--workers", workers), ("--threads", threads))
        if not 1 <= seconds <= 600:
            raise CommandError("--seconds must be between 1 and 600")
        if clients > 256:
            raise CommandError("--clients must be at most 256")
        figures = bench.run(clients=clients, seconds=seconds, samples=samples, workers=workers,
                            threads=threads,
                            progress=(lambda _: None) if json else self.stderr.write)
        self.report(figures, json)

    def report(self, figures: dict[str, Any], json: bool) -> None:
        """Print the figures as JSON or as ``name: value`` lines."""
        if json:
            self.print_json(figures)
            return
        for name, value in figures.items():
            self.stdout.write(f"{name}: {value}")


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
