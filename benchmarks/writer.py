"""A writer that creates rows without pause (on every open shard in turn, or with ``--shard N``
on that one, once it is open), or with ``--follow USERS`` follows those users' ordered pairs
in turn, again from the first once all are made (a repeated follow is acknowledged too):
``bench failover``'s (shard masters, graph Redis masters) and the failover tests'.

Prints ``OK <id> <t>`` for every acknowledged write (the row's ID, or the follow's number
followed by the follower and the followee), where ``t`` is ``time.monotonic()`` when the
acknowledgement arrived (one clock for every process on the machine), and ``ERR <error>``
for every failure, flushing each line, so the caller knows exactly which writes were
acknowledged and when. Runs until terminated, or with ``--after N`` exits once ``N`` writes
were acknowledged after the first failure (status 0: it recovered), or at ``--deadline``
(status 1); ``--pause`` waits that long between writes. SIGTERM ends it after the write in
hand, so that a follow's event is published on the way out. Run as
``python -m benchmarks.writer`` with the pair's environment.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Callable


def _writes(follow: str | None, shard: int | None) -> Callable[[int], tuple[int, ...]]:
    """A function making write number ``n``: a follow of the next pair of ``follow``'s users
    (it answers the number, the follower and the followee), or a row created on the next shard
    (it answers the row's ID)."""
    from graph.actions import follow_user
    from pins.types import PIN
    from sharding import objects
    from sharding.topology import current_map

    if follow:
        users = [int(text) for text in follow.split(",")]
        pairs = [(a, b) for a in users for b in users if a != b]

        def write_follow(number: int) -> tuple[int, ...]:
            follower, followee = pairs[number % len(pairs)]
            follow_user(follower, followee)
            return number, follower, followee

        return write_follow
    shards = [shard] if shard is not None else current_map().open_shards()
    return lambda number: (objects.create(PIN, shards[number % len(shards)], {"n": number}),)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--after", type=int, default=None)
    parser.add_argument("--deadline", type=float, default=None)
    parser.add_argument("--shard", type=int, default=None, help="create rows on this shard only")
    parser.add_argument("--follow", metavar="USERS", default=None,
                        help="comma-separated user IDs whose ordered pairs are followed in turn")
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between writes")
    options = parser.parse_args()
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.settings")
    django.setup()
    from graph.exceptions import GraphError
    from sharding.exceptions import ShardingError

    write = _writes(options.follow, options.shard)
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda number, _: stopping.append(number))
    end = None if options.deadline is None else time.monotonic() + options.deadline
    failed, recovered, number = False, 0, 0
    while (end is None or time.monotonic() < end) and not stopping:
        if options.after is not None and recovered >= options.after:
            return 0
        number += 1
        try:
            written, *more = write(number)
        except (ShardingError, GraphError) as exc:
            failed = True
            print(f"ERR {type(exc).__name__}: {exc}", flush=True)
            time.sleep(0.05)
            continue
        recovered += 1 if failed else 0
        print("OK", written, time.monotonic(), *more, flush=True)
        if options.pause:
            time.sleep(options.pause)
    return 1


if __name__ == "__main__":
    sys.exit(main())
