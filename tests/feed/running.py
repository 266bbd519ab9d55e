"""The real queue in feed tests: messages published to RabbitMQ and run by a Dramatiq worker in
this process, counted so that a test can wait until everything it caused has been handled.

>>> new_pin(owner, board)
>>> running.settle()          # the fanout, its deliveries, their delayed counts, the trims
>>> assert feed_ids(fan) == [pin]
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

import dramatiq
from dramatiq import Message, Middleware

from events import publisher
from feed.smart.service import flush_visits
from toolkit.waiting import until


class InFlight(Middleware):
    """Per message ID, how many times this process published a message minus how many times
    its worker acknowledged (or rejected) it. A delayed message counts once in its delay queue
    and once more when the worker moves it to its queue; a child is published before its
    parent is acknowledged, so the counts are all zero or below only once nothing is left.

    ``duplicates``: the share of handled messages published once more, after a random delay
    of up to ``max_delay_ms`` (through the delay queue), as RabbitMQ redelivers a message whose
    acknowledgement was lost; both drawn from ``rng``, which a test may replace to reseed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()
        self.rng = random.Random(0)
        self.duplicates = 0.0
        self.max_delay_ms = 50

    def after_enqueue(self, broker: dramatiq.Broker, message: Message[Any],
                      delay: int | None) -> None:
        with self._lock:
            self._open[message.message_id] += 1

    def after_ack(self, broker: dramatiq.Broker, message: Message[Any]) -> None:
        self._done(message)

    def after_nack(self, broker: dramatiq.Broker, message: Message[Any]) -> None:
        self._done(message)

    def after_process_message(self, broker: dramatiq.Broker, message: Message[Any], *,
                              result: Any = None, exception: BaseException | None = None) -> None:
        with self._lock:
            again = exception is None and self.rng.random() < self.duplicates
            delay = self.rng.randint(0, self.max_delay_ms)
        if again:
            broker.enqueue(message.copy(), delay=delay or None)

    def _done(self, message: Message[Any]) -> None:
        with self._lock:
            self._open[message.message_id] -= 1
            if self._open[message.message_id] == 0:
                del self._open[message.message_id]

    def unhandled(self) -> list[str]:
        """IDs of messages published more often than handled."""
        with self._lock:
            return [message_id for message_id, count in self._open.items() if count > 0]


@dataclass
class RunningQueue:
    """RabbitMQ and a running worker, with this process's messages counted."""

    in_flight: InFlight

    def settle(self, timeout: float = 60.0) -> None:
        """Wait until every message sent so far (and everything those sent) has been
        handled; the events the graph's follows handed to the publisher thread, and the Home
        visits handed to the visits thread, first."""
        def quiet() -> bool:
            publisher.flush()
            flush_visits()
            return not self.in_flight.unhandled()

        assert until(quiet, timeout), \
            f"messages not handled after {timeout} s: {self.in_flight.unhandled()}"
