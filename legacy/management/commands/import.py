"""``manage.py import legacy SOURCE`` and ``manage.py import verify SOURCE``: copy a legacy
one-database site into pinsite, pass after pass, and compare the two."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from graph.exceptions import GraphError
from legacy import passes
from legacy.errors import LegacyError
from legacy.verify import verify
from pins.exceptions import ContentError
from sharding.exceptions import ShardingError
from toolkit.commands import SubcommandCommand, require_counts
from toolkit.errors import StoreUnavailable


class Command(SubcommandCommand):
    help = ("Import a legacy one-database site (users, boards, pins, follows) into pinsite, "
            "or compare the two.")
    error_types = (LegacyError, ShardingError, ContentError, GraphError, StoreUnavailable)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        legacy = self.add_subparser(subparsers, parent, "legacy",
                                    "copy what is new or changed since the last pass",
                                    json_output=True)
        legacy.add_argument("source", metavar="SOURCE",
                            help="mysql://USER:PASSWORD@HOST:PORT/DATABASE")
        legacy.add_argument("--until-converged", action="store_true",
                            help="repeat passes until one copies nothing")
        legacy.add_argument("--batch", type=int, default=200, help="legacy rows per job")
        legacy.add_argument("--inline", action="store_true",
                            help="copy in this process instead of through the queue workers")
        legacy.add_argument("--quiet", action="store_true", help="no progress bars")
        check = self.add_subparser(subparsers, parent, "verify",
                                   "counts, checksums and every difference, table by table",
                                   json_output=True)
        check.add_argument("source", metavar="SOURCE")

    def handle_legacy(self, source: str, until_converged: bool = False, batch: int = 200,
                      inline: bool = False, quiet: bool = False, json: bool = False,
                      **_: Any) -> None:
        require_counts(("--batch", batch))
        bars = not (quiet or json)
        warn = self.stderr.write

        def after(report: passes.PassReport) -> None:
            if not json:
                self.stdout.write(
                    f"pass {report.pass_id}: {report.rows} legacy rows in "
                    f"{report.seconds:.1f}s; copied " + ", ".join(
                        f"{kind} {count}" for kind, count in report.copied.items())
                    + (f"; waiting {sum(report.waiting.values())}"
                       if sum(report.waiting.values()) else "")
                    + (f"; refused {sum(report.rejected.values())} (see `import verify`)"
                       if sum(report.rejected.values()) else "")
                    + (f"; feeds rebuilt {report.rebuilt}" if report.rebuilt else ""))

        if until_converged:
            reports = passes.until_converged(source, batch, inline, bars, warn, after)
        else:
            reports = [passes.run_pass(source, batch, inline, bars, warn)]
            after(reports[0])
        if json:
            self.print_json({"passes": [report.to_json() for report in reports],
                             "converged": reports[-1].changed == 0})

    def handle_verify(self, source: str, json: bool = False, **_: Any) -> None:
        """Print the report; exit with status 1 when anything differs (as ``diff`` does)."""
        report = verify(source)
        if json:
            self.print_json(report.to_json())
        else:
            for table in report.tables:
                same = "same" if table.legacy_checksum == table.copy_checksum else "DIFFERENT"
                self.stdout.write(f"{table.kind:<14} legacy {table.legacy_rows:>7}  copied "
                                  f"{table.copied_rows:>7}  checksums {same}")
                for difference in table.differences:
                    self.stdout.write(f"  {difference}")
        if report.difference_count:
            raise CommandError(f"{report.difference_count} differences between the legacy "
                               "database and pinsite (`import legacy` copies them)",
                               returncode=1)
