"""A long-running follower for the graph failover test: follows until told enough.

Reads user IDs from ``--users`` and follows every ordered pair in turn, then again from the
first (a repeated follow is acknowledged too), so a slow move or failover never leaves it
without follows to make. Prints ``OK <a> <b>`` for every acknowledged follow and
``ERR <error>`` for every failure, flushing each line, so the test knows exactly which follows
were acknowledged. Exits after ``--after`` acknowledged
follows that come after the first failure (it recovered), or at ``--deadline``; on SIGTERM
it ends after the follow in hand, so that its events are published on the way out.
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import sys
import time

import django


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", required=True)
    parser.add_argument("--after", type=int, default=50)
    parser.add_argument("--deadline", type=float, default=90.0)
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between follows")
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.test_settings")
    django.setup()
    from graph.actions import follow_user
    from graph.exceptions import GraphError

    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda number, _: stopping.append(number))
    users = [int(text) for text in options.users.split(",")]
    pairs = itertools.cycle(list(itertools.permutations(users, 2)))  # never runs out
    failed, recovered = False, 0
    end = time.monotonic() + options.deadline
    pair = next(pairs)
    while time.monotonic() < end and recovered < options.after and not stopping:
        try:
            follow_user(*pair)
        except GraphError as exc:
            failed = True
            print(f"ERR {type(exc).__name__}: {exc}", flush=True)
            time.sleep(0.05)
            continue
        recovered += 1 if failed else 0
        print(f"OK {pair[0]} {pair[1]}", flush=True)
        pair = next(pairs)
        time.sleep(options.pause)
    return 0 if recovered >= options.after else 1


if __name__ == "__main__":
    sys.exit(main())
