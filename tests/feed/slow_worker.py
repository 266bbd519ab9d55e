"""A queue worker for the SIGKILL tests: ``dramatiq tests.feed.slow_worker``.

The real worker (``pinsite.worker``) with the feed's chunks made small and each delivery slowed
down (by ``PINSITE_TEST_DELIVERY_DELAY`` seconds, 0.15 unless set), so that a fanout takes a
few seconds and can be killed halfway (the worker, or the primary cluster under it); a delivery
that failed is retried within a second or two.
"""

import os
import time

from django.conf import settings

import pinsite.worker  # noqa: F401  (sets Django up and declares the actors)
from feed import delivery, writers

settings.PINSITE_FEED = {**settings.PINSITE_FEED, "FANOUT_CHUNK": 10}
_deliver = delivery.deliver
DELAY = float(os.environ.get("PINSITE_TEST_DELIVERY_DELAY", "0.15"))


def _slow_deliver(*args, **kwargs):  # type: ignore[no-untyped-def]
    """A delivery that holds its thread once it has written: an attempt that fails (its
    cluster is down) fails at once and leaves the thread to the other cluster's deliveries."""
    written = _deliver(*args, **kwargs)
    time.sleep(DELAY)
    return written


delivery.deliver = _slow_deliver

for actors in (writers.deliver_pin, writers.count_writes):
    for actor in actors.values():
        actor.options["max_backoff"] = 2000
