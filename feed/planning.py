"""The feed's planning: what a new pin, a deleted pin or board, or a drained celebrity board
means for the followers' feeds, sent as writes per chunk of followers and per cluster
(:mod:`feed.writers`). The planning actors (:mod:`feed.tasks`) are one call each into here.

>>> fan_out_pin(pin_id, board_id, created_us, drain=drain_board.send)
>>> forget_board(board_id, owner_id, deleted_us)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

from feed import delivery, fanout, observe, pulled, sources
from feed.conf import cap
from feed.queues import ClusterActors
from feed.store.pools import CLUSTERS
from feed.writers import (
    apply_unfollow,
    cluster_messages,
    deliver_pin,
    retract_pin,
    trim_feed,
)
from toolkit.queue import BATCH, send_all


def fan_out_pin(pin_id: int, board_id: int, created_us: int,
                drain: Callable[[int], object]) -> None:
    """Send a new pin (or repin) to every follower of its board, a chunk per message and
    cluster; nothing for a pulled (celebrity) board, whose pins readers pull. A board that
    just went back to push is handed to ``drain`` (the drain job)."""
    decision = pulled.decide(board_id, created_us)
    if decision.drain:
        drain(board_id)
    if decision.push:
        _send_chunks(deliver_pin, fanout.follower_chunks(board_id), pin_id, board_id,
                     created_us, tracking=observe.FanoutTracking(pin_id, created_us))


def drain_board(board_id: int) -> None:
    """A pulled board is pushed again: write its newest pins into every follower's feed on
    both clusters, then take it off the pulled boards (readers merge it until then)."""
    entries = sources.board_entries(board_id, cap())
    for chunk in fanout.follower_chunks(board_id):
        backlog = delivery.check_backlog(board_id, entries, chunk)
        for cluster in CLUSTERS:
            send_all(trim_feed[cluster].message(user)
                     for user in delivery.write_backlog(cluster, backlog))
    pulled.finish_drain(board_id)


def fan_out_removal(pin_id: int, board_id: int, created_us: int, deleted_us: int) -> None:
    """Take a deleted pin out of the feeds of its board's followers."""
    _send_chunks(retract_pin, fanout.follower_chunks(board_id), pin_id, created_us, deleted_us)


def forget_board(board_id: int, owner_id: int, deleted_us: int) -> None:
    """Sweep a deleted board's pins out of the feeds of its owner's followers (its explicit
    followers are swept by the unfollows the graph announces as it drops their follows); a
    pulled board leaves the pulled boards."""
    pulled.forget(board_id)
    for chunk in fanout.owner_follower_chunks(owner_id):
        send_all(message for follower in chunk
                 for message in cluster_messages(apply_unfollow, follower, "board", board_id,
                                                 deleted_us))


def _send_chunks(actors: ClusterActors, chunks: Iterator[list[int]], *args: Any,
                 tracking: observe.FanoutTracking | None = None) -> None:
    """``actors[cluster](*args, chunk)`` for every chunk and cluster, ``BATCH`` chunks at a
    time: the primary's messages of a batch first (it serves the reads), then the standby's
    (whose actors a worker takes after the primary's), in as few transactions as
    :func:`~toolkit.queue.send_all` allows (one for a fanout of up to half ``BATCH`` chunks: a
    pin of a board with fewer followers than that many chunks hold); the followers are read
    once for both. With ``tracking`` (a pin's deliveries), each message also carries its
    chunk's number, registered for the fanout's lag (:mod:`feed.observe`) before it is sent."""
    numbered = enumerate(chunks)
    while batch := list(islice(numbered, BATCH)):
        if tracking is not None:
            tracking.register([number for number, _ in batch])
        send_all(actors[cluster].message(*args, chunk, *(() if tracking is None else (n,)))
                 for cluster in CLUSTERS for n, chunk in batch)
    if tracking is not None:
        tracking.close()
