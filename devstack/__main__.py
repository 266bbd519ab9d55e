"""Command line: ``python3 -m devstack [--profile NAME] COMMAND [SERVICE ...]``."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any

from devstack.errors import DevstackError
from devstack.hbase import admin as hbase_admin
from devstack.packages import install_packages
from devstack.report import failure_text, status_table
from devstack.service import FENCED
from devstack.stack import Stack, StackError


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; ``--profile`` is accepted before or after the command."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--profile", default=argparse.SUPPRESS,
                        help="stack profile (default: $PINSITE_PROFILE or dev)")
    parser = argparse.ArgumentParser(prog="python3 -m devstack", parents=[common],
                                     description="Start, stop and check pinsite's local services.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("packages", parents=[common], help="install missing Debian packages (root)")
    for name, text in (("up", "start services and wait until healthy"),
                       ("down", "stop services")):
        commands.add_parser(name, parents=[common], help=text).add_argument("services", nargs="*")
    status = commands.add_parser("status", parents=[common], help="show one row per service")
    status.add_argument("services", nargs="*")
    status.add_argument("--json", action="store_true", help="print JSON instead of a table")
    commands.add_parser("env", parents=[common], help="print the settings as export lines")
    kill = commands.add_parser("kill", parents=[common], help="signal one service (failover tests)")
    kill.add_argument("service")
    kill.add_argument("--signal", default="KILL", help="signal name or number (default KILL)")
    for name, text in (("start", "start one service"), ("stop", "stop one service")):
        commands.add_parser(name, parents=[common], help=text).add_argument("service")
    add_pair = commands.add_parser("add-pair", parents=[common],
                                   help="add a master/replica pair to the stack and start it")
    add_pair.add_argument("kind", choices=["mysql", "redis"])
    add_pair.add_argument("name", help="mysql003 … mysql009, redis003 … redis009")
    hbase = commands.add_parser("hbase", parents=[common],
                                help="flush, major-compact, list the regions of a table or turn "
                                     "its block cache on")
    hbase.add_argument("cluster", help="the cluster's gateway: hbase1, hbase2 or hbase3")
    hbase.add_argument("action", choices=hbase_admin.COMMANDS)
    hbase.add_argument("table", help="e.g. pinsite_feed")
    reclone = commands.add_parser("reclone", parents=[common],
                                  help="rebuild a MariaDB replica from a master")
    reclone.add_argument("replica")
    reclone.add_argument("master")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "packages":
            return run_packages()
        return run(Stack(getattr(args, "profile", None)), args)
    except StackError as error:
        for failure in error.failures.values():
            print(f"devstack: {failure_text(failure)}", file=sys.stderr)
        return 1
    except DevstackError as error:
        print(f"devstack: {failure_text(error)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def run_packages() -> int:
    installed = install_packages()
    print(f"installed: {' '.join(installed)}" if installed else "all Debian packages present")
    return 0


def run(stack: Stack, args: argparse.Namespace) -> int:
    command = args.command
    if command == "up":
        began = time.monotonic()
        started = stack.up(args.services)
        rows = stack.status(args.services or None)
        print("\n".join([*stack.promotions_seen, status_table(rows)]))
        print(f"profile {stack.profile.name}: started {', '.join(started) or 'nothing'} "
              f"in {time.monotonic() - began:.1f}s")
    elif command == "down":
        stopped = stack.down(args.services)
        print(f"profile {stack.profile.name}: stopped {', '.join(stopped) or 'nothing'}")
    elif command == "status":
        return show_status(stack, args.services, args.json)
    elif command == "env":
        print("\n".join(f"export {key}={shell_quote(value)}" for key, value in stack.env().items()))
    elif command == "kill":
        stack.kill(args.service, parse_signal(args.signal))
    elif command == "start":
        done = stack.start(args.service)
        print("\n".join([*stack.promotions_seen, f"profile {stack.profile.name}: {done}"]))
    elif command == "stop":
        stack.stop(args.service)
    elif command == "reclone":
        stack.reclone(args.replica, args.master)
    elif command == "hbase":
        print(hbase_admin.run(stack.service(args.cluster), args.action, args.table), end="")
    elif command == "add-pair":
        show_added_pair(stack, stack.add_pair(args.kind, args.name), args.kind)
    return 0


def show_added_pair(stack: Stack, pair: list[Any], kind: str) -> None:
    """The pair's status, and the commands that put it to use."""
    print(status_table(stack.status([service.name for service in pair])))
    command = "shards" if kind == "mysql" else "graph"
    print("register it with the running site (no restart needed):")
    for service in pair:
        print(f"  manage.py {command} hosts add {service.name} {service.host}:{service.port}")
    if kind == "mysql":
        print(f"then open shards on it: manage.py shards open FIRST-LAST {pair[0].name} "
              f"{pair[1].name}")
    else:
        print(f"then move vshards to it: manage.py graph vshards move FIRST-LAST {pair[0].name}"
              f"  (and attach {pair[1].name}: manage.py graph attach-replica {pair[0].name} "
              f"{pair[1].name})")


def show_status(stack: Stack, names: list[str], as_json: bool) -> int:
    """Print the status; exit code 0 only if every listed service is healthy (a fenced old
    master is left stopped on purpose). Promotions made meanwhile are taken on first."""
    with stack.exclusive():
        stack.follow_promotions()
    rows = stack.status(names)
    if not as_json:
        print("\n".join([*stack.promotions_seen, status_table(rows)]))
    else:
        print(json.dumps(rows, indent=2))
    return 0 if all(row["healthy"] or row["role"] == FENCED for row in rows) else 3


def parse_signal(text: str) -> int:
    """Turn ``KILL``, ``SIGKILL`` or ``9`` into a signal number."""
    if text.isdigit():
        return int(text)
    name = text.upper() if text.upper().startswith("SIG") else f"SIG{text.upper()}"
    try:
        return int(signal.Signals[name])
    except KeyError:
        raise DevstackError(f"unknown signal {text!r}") from None


def shell_quote(value: str) -> str:
    """Single-quote ``value`` for a POSIX shell."""
    return "'" + value.replace("'", "'\"'\"'") + "'"


if __name__ == "__main__":
    sys.exit(main())
