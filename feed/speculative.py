"""Speculative reads across the two HBase clusters.

A read goes to the primary; if it has not answered within the cutoff (about the primary's
p99.9), the same read also goes to the standby and whichever answers first wins. A read that
fails at once (connection refused) moves on to the standby at once, and a cluster that just
failed is asked second for a short while, so a dead primary costs no cutoff per request. A
small share of reads goes to the standby first to keep its caches warm.

>>> read = speculative(lambda cluster: cells.read_row(cluster, row, [FEED]))
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from feed import observe
from feed.conf import feed_settings
from feed.exceptions import FeedUnavailable
from feed.store.pools import Cluster
from toolkit.metrics import FEED_READS
from toolkit.processes import ProcessLocal

T = TypeVar("T")
SUSPECT_SECONDS = 1.0

_coin = random.Random()  # its own generator: reads on other threads leave the global one alone
_executor = ProcessLocal(lambda: ThreadPoolExecutor(
    max_workers=feed_settings.number("READ_THREADS"), thread_name_prefix="feed-read"))


@dataclass
class Answers:
    """How many reads each cluster answered, and when each last failed (for ordering)."""

    answered: dict[str, int] = field(default_factory=lambda: {"primary": 0, "standby": 0})
    failed_at: dict[str, float] = field(default_factory=dict)

    def suspect(self, cluster: Cluster) -> bool:
        return time.monotonic() - self.failed_at.get(cluster, -SUSPECT_SECONDS) < SUSPECT_SECONDS


answers = Answers()


def speculative(read: Callable[[Cluster], T]) -> T:
    """Run ``read(cluster)`` speculatively and return the first successful answer; raise
    :class:`FeedUnavailable` only when both clusters fail."""
    first, second = _order()
    race: Race[T] = Race(read)
    race.start(first)
    answer = race.next_answer(timeout=feed_settings.number("SPECULATIVE_CUTOFF_MS") / 1000)
    if answer is not None:
        FEED_READS.labels(answer[1], "first").inc()
        return answer[0]
    race.start(second)
    while race.pending:
        answer = race.next_answer(timeout=None)
        if answer is not None:
            FEED_READS.labels(answer[1], "first" if answer[1] == first else "second").inc()
            return answer[0]
    raise FeedUnavailable("neither HBase cluster answered the read") from race.error


class Race(Generic[T]):
    """The reads of one speculative call, by cluster; ``error`` is the last failure seen."""

    def __init__(self, read: Callable[[Cluster], T]) -> None:
        self.read = read
        self.pending: dict[Future[T], Cluster] = {}
        self.error: FeedUnavailable | None = None

    def start(self, cluster: Cluster) -> None:
        self.pending[_submit(self.read, cluster)] = cluster

    def next_answer(self, timeout: float | None) -> tuple[T, Cluster] | None:
        """Wait up to ``timeout`` for a read to finish; the first success with the cluster
        that gave it, or None. Errors other than :class:`FeedUnavailable` are bugs and
        propagate."""
        done, _ = wait(self.pending, timeout=timeout, return_when=FIRST_COMPLETED)
        answer: tuple[T, Cluster] | None = None
        for future in done:
            cluster = self.pending.pop(future)
            error = future.exception()
            if error is None:
                if answer is None:
                    answers.answered[cluster] += 1
                    if cluster == "standby":
                        observe.standby_read()
                    answer = (future.result(), cluster)
            elif isinstance(error, FeedUnavailable):
                answers.failed_at[cluster] = time.monotonic()
                self.error = error
            else:
                raise error
        return answer


def _order() -> tuple[Cluster, Cluster]:
    share = feed_settings.decimal("STANDBY_READ_SHARE")
    standby_first = _coin.random() < share or (answers.suspect("primary")
                                                and not answers.suspect("standby"))
    return ("standby", "primary") if standby_first else ("primary", "standby")


def _submit(read: Callable[[Cluster], T], cluster: Cluster) -> Future[T]:
    return _pool().submit(read, cluster)


def _pool() -> ThreadPoolExecutor:
    return _executor.get()
