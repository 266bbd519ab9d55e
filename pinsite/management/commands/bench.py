"""``manage.py bench COMPONENT [--json]``: each component's figures beside its raw store."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from pinsite.commands import SubcommandCommand


class Command(SubcommandCommand):
    help = "Benchmark a component against the raw ceiling of the store underneath it."

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        shards = self.add_subparser(subparsers, parent, "shards",
                                    "sharded MySQL store vs raw MySQLdb", json_output=True)
        shards.add_argument("--creates", type=int, default=2000)
        shards.add_argument("--gets", type=int, default=2000)
        shards.add_argument("--batches", type=int, default=300)

    def handle_shards(self, creates: int, gets: int, batches: int, json: bool = False,
                      **_: Any) -> None:
        from sharding import bench

        figures = bench.run(creates=creates, gets=gets, batches=batches)
        if json:
            self.print_json(figures)
            return
        for name, value in figures.items():
            self.stdout.write(f"{name}: {value}")
