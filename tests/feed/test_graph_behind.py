"""A follow or an unfollow that the edge log committed reaches the feed even when the graph's
Redis never took it: the action answered "unavailable", its event went out through the relay
and a real queue worker, and the worker acted on the log rather than on the Redis behind it."""

from __future__ import annotations

from collections.abc import Iterator

import dramatiq
import pytest
from pytest_django import Settings

from graph import actions, repair
from graph.exceptions import GraphUnavailable
from tests.feed.helpers import feed_ids, new_board, new_pin, new_user
from tests.graph.helpers import Outage, user_on
from tests.polling import wait_until


@pytest.fixture
def outage(settings: Settings) -> Iterator[Outage]:
    down = Outage(settings)
    yield down
    down.heal()


def _pinner_with_pins(count: int) -> tuple[int, set[int]]:
    pinner = new_user()
    board = new_board(pinner)
    return pinner, {new_pin(pinner, board, f"Pin {n}") for n in range(count)}


def test_a_follow_and_an_unfollow_redis_never_took_still_reach_the_feed(
        outage: Outage, worker: dramatiq.Worker) -> None:
    ann = user_on(outage.instance)
    bob, bobs_pins = _pinner_with_pins(2)
    carl, carls_pins = _pinner_with_pins(3)
    actions.follow_user(ann, carl)
    assert wait_until(lambda: carls_pins <= set(feed_ids(ann)))

    outage.start()
    with pytest.raises(GraphUnavailable):
        actions.follow_user(ann, bob)
    with pytest.raises(GraphUnavailable):
        actions.unfollow_user(ann, carl)
    outage.heal()  # Redis answers again, still without either change

    assert wait_until(lambda: bobs_pins <= set(feed_ids(ann))
                      and not carls_pins & set(feed_ids(ann))), feed_ids(ann)
    # the retries find the log as it is, and bring Redis in line with it
    assert not actions.follow_user(ann, bob).changed
    assert not actions.unfollow_user(ann, carl).changed
    assert repair.verify_user(ann).clean
