"""Shared pieces of pinsite's ``manage.py`` commands: subcommands, JSON output, progress bars,
and the command line as the actor of what a command does (:mod:`toolkit.acting`).

>>> class Command(SubcommandCommand):
...     subcommands = {"show": "handle_show"}
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import InterfaceError, OperationalError
from tqdm import tqdm

from toolkit.acting import acting_as, command_line


class SubcommandCommand(BaseCommand):
    """A command with subcommands (``manage.py shards init``); store errors become
    :class:`CommandError` with a clear message instead of a traceback. It runs on behalf of
    its command line: the OS user and ``argv`` (under ``call_command``, ``manage.py NAME
    SUBCOMMAND``), which the operator audit log records as who did what it does."""

    argv: list[str] | None = None

    def run_from_argv(self, argv: list[str]) -> None:
        self.argv = list(argv)
        super().run_from_argv(argv)

    def execute(self, *args: Any, **options: Any) -> Any:
        name = type(self).__module__.rsplit(".", 1)[-1]
        argv = self.argv or ["manage.py", name, str(options.get("subcommand", ""))]
        with acting_as(command_line(argv)):
            return super().execute(*args, **options)

    def add_arguments(self, parser: CommandParser) -> None:
        subparsers = parser.add_subparsers(dest="subcommand", required=True,
                                           parser_class=type(parser), metavar="SUBCOMMAND")
        self.add_subcommands(subparsers, parser)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        raise NotImplementedError

    @staticmethod
    def add_subparser(subparsers: Any, parent: CommandParser, name: str, help: str,
                      json_output: bool = False) -> CommandParser:
        from_command_line = getattr(parent, "called_from_command_line", False)
        sub: CommandParser = subparsers.add_parser(
            name, help=help, called_from_command_line=from_command_line)
        if json_output:
            sub.add_argument("--json", action="store_true", help="print JSON for scripts")
        return sub

    error_types: tuple[type[Exception], ...] = ()
    """Domain errors shown as a one-line :class:`CommandError` instead of a traceback (each
    app's commands name their store's errors)."""

    def handle(self, *args: Any, **options: Any) -> None:
        method = getattr(self, f"handle_{options['subcommand'].replace('-', '_')}")
        with one_line_errors(self.error_types):
            method(**options)

    def print_json(self, value: Any) -> None:
        self.stdout.write(json.dumps(value, indent=2, sort_keys=True))

    def answer(self, as_json: bool, value: Any, text: str) -> None:
        """A command's one answer: ``value`` as JSON under ``--json``, else the line ``text``."""
        if as_json:
            self.print_json(value)
        else:
            self.stdout.write(text)


@contextmanager
def one_line_errors(error_types: tuple[type[Exception], ...]) -> Iterator[None]:
    """``error_types`` (a command's store and domain errors), and a failure of the site's own
    database (the accounts and the pinner index, through Django's ORM), as a one-line
    :class:`CommandError` instead of a traceback."""
    try:
        yield
    except error_types as exc:
        raise CommandError(str(exc)) from exc
    except (OperationalError, InterfaceError) as exc:
        raise CommandError(f"the site's database failed: {exc}") from exc


@contextmanager
def progress(total: int, description: str, enabled: bool = True) -> Iterator[tqdm]:
    """A progress bar on stderr when stderr is a terminal; elsewhere (``make run``'s log, a
    pipe) one summary line when the work is done, ``shards: 4,096 of 4,096 in 9.1s``,
    instead of a redrawn line every tenth of a second. Nothing at all when ``enabled`` is
    False (e.g. under ``--json``). ``total`` 0 is an unknown total."""
    terminal = sys.stderr.isatty()
    started = time.monotonic()
    with ExitStack() as stack:
        out = sys.stderr if terminal else stack.enter_context(open(os.devnull, "w"))
        bar = stack.enter_context(tqdm(total=total, desc=description, unit="", file=out,
                                       disable=not enabled, leave=False, dynamic_ncols=True))
        yield bar
    if enabled and not terminal:
        of_total = f" of {total:,}" if total else ""
        print(f"{description}: {bar.n:,}{of_total} in {time.monotonic() - started:.1f}s",
              file=sys.stderr, flush=True)


class Bounded(argparse.Action):
    """An option whose values must lie between ``minimum`` and ``maximum``, checked as the
    command line is parsed: ``parser.add_argument("--runs", type=int, action=Bounded,
    maximum=20)``. A value out of range is a usage error naming the option (a
    :class:`CommandError` under ``call_command``): ``--runs must be at most 20``."""

    def __init__(self, *args: Any, minimum: float = 1, maximum: float | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.minimum, self.maximum = minimum, maximum

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        name = option_string or self.dest
        for value in values if isinstance(values, list) else [values]:
            if value < self.minimum:
                parser.error(f"{name} must be at least {self.minimum:,}")
            if self.maximum is not None and value > self.maximum:
                parser.error(f"{name} must be at most {self.maximum:,}")
        setattr(namespace, self.dest, values)


def require_counts(*counts: tuple[str, int], minimum: int = 1) -> None:
    """A :class:`CommandError` naming the first option below ``minimum``:
    ``require_counts(("--samples", samples), ("--reads", reads))``."""
    for name, value in counts:
        if value < minimum:
            raise CommandError(f"{name} must be at least {minimum}")
