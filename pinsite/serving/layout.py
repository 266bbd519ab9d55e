"""How many web worker processes, and threads in each, a machine runs: the one default behind
gunicorn's configuration, ``manage.py runsite`` and ``manage.py bench site``.

Two processes per core, of two threads each. Threads overlap a request's waits on its stores,
but every thread of a process shares one GIL: with four threads per process, handing the GIL
between busy threads cost about a third more CPU per request than with two, and served fewer
pages per second (BENCHMARKS.md, "The web's layout"). More processes use the cores without
that cost.

``PINSITE_WEB_WORKERS`` and ``PINSITE_WEB_THREADS`` override either.
"""

from __future__ import annotations

import os

from pinsite import env

WORKERS_PER_CORE = 2
THREADS = 2


def web_workers() -> int:
    """Web worker processes: ``PINSITE_WEB_WORKERS``, else two per core."""
    return env.number("PINSITE_WEB_WORKERS", WORKERS_PER_CORE * (os.cpu_count() or 1))


def web_threads() -> int:
    """Threads per web worker: ``PINSITE_WEB_THREADS``, else two."""
    return env.number("PINSITE_WEB_THREADS", THREADS)
