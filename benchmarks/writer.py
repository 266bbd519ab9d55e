"""A writer that creates rows without pause (on every open shard in turn, or with ``--shard N``
on that one, once it is open), or with ``--follow USERS`` follows those users' ordered pairs
in turn: ``bench failover``'s (shard masters, graph Redis masters) and the
failover tests'.

Prints ``OK <id> <t>`` for every acknowledged write (the row's ID, or the follow's number),
where ``t`` is ``time.monotonic()`` when
the acknowledgement arrived (one clock for every process on the machine), and ``ERR <error>``
for every failure, flushing each line, so the caller knows exactly which writes were
acknowledged and when. Runs until terminated, or with ``--after N`` exits once ``N`` writes
were acknowledged after the first failure (status 0: it recovered), or at ``--deadline``
(status 1). SIGTERM ends it after the write in hand, so that a follow's event is published on
the way out. Run as ``python -m benchmarks.writer`` with the pair's environment.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--after", type=int, default=None)
    parser.add_argument("--deadline", type=float, default=None)
    parser.add_argument("--shard", type=int, default=None, help="create rows on this shard only")
    parser.add_argument("--follow", metavar="USERS", default=None,
                        help="comma-separated user IDs whose ordered pairs are followed in turn")
    options = parser.parse_args()
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.settings")
    django.setup()
    from graph.actions import follow_user
    from graph.exceptions import GraphError
    from pins.types import PIN
    from sharding import objects
    from sharding.exceptions import ShardingError
    from sharding.topology import current_map

    if options.follow:
        users = [int(text) for text in options.follow.split(",")]
        pairs = [(a, b) for a in users for b in users if a != b]

        def write(number: int) -> int:
            follow_user(*pairs[number % len(pairs)])
            return number
    else:
        shards = [options.shard] if options.shard is not None else current_map().open_shards()

        def write(number: int) -> int:
            return objects.create(PIN, shards[number % len(shards)], {"n": number})

    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda number, _: stopping.append(number))
    end = None if options.deadline is None else time.monotonic() + options.deadline
    failed, recovered, number = False, 0, 0
    while (end is None or time.monotonic() < end) and not stopping:
        if options.after is not None and recovered >= options.after:
            return 0
        number += 1
        try:
            row = write(number)
        except (ShardingError, GraphError) as exc:
            failed = True
            print(f"ERR {type(exc).__name__}: {exc}", flush=True)
            time.sleep(0.05)
            continue
        recovered += 1 if failed else 0
        print(f"OK {row} {time.monotonic()}", flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
