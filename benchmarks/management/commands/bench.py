"""``manage.py bench NAME [--json]``: each component's figures beside its raw store.

Every module of :data:`benchmarks.BENCHES` is a subcommand: its ``add_arguments`` declares the
options (checked as they are parsed) and its ``run`` takes them by name and returns the
figures.
"""

from __future__ import annotations

import inspect
import signal
from typing import Any

from django.core.management.base import CommandError, CommandParser

from benchmarks.suite import BENCHES
from sharding.exceptions import ShardingError
from toolkit.commands import SubcommandCommand
from toolkit.errors import StoreUnavailable


class Command(SubcommandCommand):
    help = "Benchmark a component against the raw ceiling of the store underneath it."
    error_types = (ShardingError, StoreUnavailable)  # a store down: its error, no traceback

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        for bench in BENCHES.values():
            bench.add_arguments(self.add_subparser(subparsers, parent, bench.NAME, bench.HELP,
                                                   json_output=True))

    def handle(self, *args: Any, **options: Any) -> None:
        # A bench starts servers, queue workers and writers of its own and stops them in its
        # ``finally`` blocks: SIGTERM unwinds through those as Ctrl-C does, instead of ending
        # the process on the spot and leaving them running.
        signal.signal(signal.SIGTERM, _interrupted)
        bench = BENCHES[options["subcommand"]]
        accepted = inspect.signature(bench.run).parameters
        arguments = {name: value for name, value in options.items() if name in accepted}
        quiet = options.get("json", False)
        try:
            figures = bench.run(**arguments,
                                progress=(lambda _: None) if quiet else self.stderr.write)
        except KeyboardInterrupt:
            raise CommandError("interrupted; what the bench had started is stopped") from None
        except self.error_types as exc:
            raise CommandError(str(exc)) from exc
        if quiet:
            self.print_json(figures)
            return
        for name, value in figures.items():
            self.stdout.write(f"{name}: {value}")


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
