"""Fanout planning: who gets a pin, in chunks, and what the feed does with each domain event.

Planning reads the graph once per event; the writes it leads to go out as one message per
cluster and chunk (:mod:`feed.tasks`), so each HBase cluster is written from its own queue.

>>> for chunk in follower_chunks(board_id):
...     deliver_everywhere(pin_id, board_id, created_us, chunk)
"""

from __future__ import annotations

from collections.abc import Iterator

from feed import sources
from feed.conf import feed_settings


def follower_chunks(board_id: int) -> Iterator[list[int]]:
    """The board's followers, ``FANOUT_CHUNK`` at a time (each chunk is one delivery)."""
    chunk = max(1, feed_settings.number("FANOUT_CHUNK"))
    buffer: list[int] = []
    for followers in sources.board_followers(board_id, chunk):
        buffer.extend(followers)
        while len(buffer) >= chunk:
            yield buffer[:chunk]
            buffer = buffer[chunk:]
    if buffer:
        yield buffer


def owner_follower_chunks(owner_id: int) -> Iterator[list[int]]:
    """A user's followers (explicit and implicit), ``FANOUT_CHUNK`` at a time."""
    yield from sources.user_followers(owner_id, max(1, feed_settings.number("FANOUT_CHUNK")))
