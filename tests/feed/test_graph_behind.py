"""A follow or an unfollow that the edge log committed reaches the feed even when the graph's
Redis never took it: the follower's vshard was fenced (Redis refuses every write script
there), the action answered "unavailable", its event went out through the relay and a real
queue worker, and the worker acted on the log rather than on the Redis behind it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import dramatiq
import pytest

from graph import actions, repair, topology
from graph.exceptions import GraphUnavailable
from graph.store import admin
from graph.vshards import vshard_of
from tests.feed.helpers import feed_ids, new_board, new_pin, new_user
from tests.polling import wait_until


@contextmanager
def refusing_writes(user: int) -> Iterator[None]:
    """The user's vshard fenced on its master: Redis refuses the graph's write scripts there
    (reads go on) until the block ends."""
    instance, vshard = topology.master_for(vshard_of(user)), vshard_of(user)
    admin.set_fences(instance, [vshard], "fenced", 120)
    try:
        yield
    finally:
        admin.clear_fences(instance, [vshard])


def _pinner_with_pins(count: int) -> tuple[int, set[int]]:
    pinner = new_user()
    board = new_board(pinner)
    return pinner, {new_pin(pinner, board, f"Pin {n}") for n in range(count)}


def test_a_follow_and_an_unfollow_redis_never_took_still_reach_the_feed(
        worker: dramatiq.Worker) -> None:
    ann = new_user()
    bob, bobs_pins = _pinner_with_pins(2)
    carl, carls_pins = _pinner_with_pins(3)
    actions.follow_user(ann, carl)
    assert wait_until(lambda: carls_pins <= set(feed_ids(ann)))

    with refusing_writes(ann):
        with pytest.raises(GraphUnavailable):
            actions.follow_user(ann, bob)
        with pytest.raises(GraphUnavailable):
            actions.unfollow_user(ann, carl)
    # Redis takes writes again, still without either change

    assert wait_until(lambda: bobs_pins <= set(feed_ids(ann))
                      and not carls_pins & set(feed_ids(ann))), feed_ids(ann)
    # the retries find the log as it is, and bring Redis in line with it
    assert not actions.follow_user(ann, bob).changed
    assert not actions.unfollow_user(ann, carl).changed
    assert repair.verify_user(ann).clean
