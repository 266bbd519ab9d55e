"""A long-running writer for the failover test: creates pins until told to stop.

Prints ``OK <id>`` for every acknowledged create and ``ERR <error>`` for every failure, flushing
each line, so the test knows exactly which writes were acknowledged. Exits after ``--after``
acknowledged writes that follow the first failure (the writer recovered), or at ``--deadline``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import django


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--after", type=int, default=50)
    parser.add_argument("--deadline", type=float, default=90.0)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.test_settings")
    django.setup()
    from pins.types import PIN
    from sharding import objects
    from sharding.exceptions import ShardingError
    from sharding.topology import current_map

    shards = current_map().open_shards()
    failed, recovered, number = False, 0, 0
    end = time.monotonic() + options.deadline
    while time.monotonic() < end and recovered < options.after:
        number += 1
        try:
            pin_id = objects.create(PIN, shards[number % len(shards)], {"n": number})
        except ShardingError as exc:
            failed = True
            print(f"ERR {type(exc).__name__}: {exc}", flush=True)
            time.sleep(0.05)
            continue
        recovered += 1 if failed else 0
        print(f"OK {pin_id}", flush=True)
    return 0 if recovered >= options.after else 1


if __name__ == "__main__":
    sys.exit(main())
