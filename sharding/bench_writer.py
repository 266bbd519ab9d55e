"""The writer of ``bench failover``: creates rows without pause until terminated.

Prints ``OK <t>`` for every acknowledged create, where ``t`` is ``time.monotonic()`` when the
acknowledgement arrived (one clock for every process on the machine), and ``ERR`` for every
failure. Run as ``python -m sharding.bench_writer`` with the pair's environment.
"""

from __future__ import annotations

import os
import time


def main() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.settings")
    django.setup()
    from pins.types import PIN
    from sharding import objects
    from sharding.exceptions import ShardingError
    from sharding.topology import current_map

    shards = current_map().open_shards()
    number = 0
    while True:
        number += 1
        try:
            objects.create(PIN, shards[number % len(shards)], {"n": number})
        except ShardingError:
            print("ERR", flush=True)
            time.sleep(0.05)
            continue
        print(f"OK {time.monotonic()}", flush=True)


if __name__ == "__main__":
    main()
