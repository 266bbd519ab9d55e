"""When Redis is down: the action fails clearly, the edge log keeps the change, and repair
applies it once Redis is back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pytest_django import Settings

from graph import actions, repair, selectors, topology
from graph.exceptions import GraphUnavailable
from graph.store.connections import pools
from graph.tables import USER_FOLLOWS_USER
from sharding import mappings
from tests.addresses import CLOSED
from tests.graph.helpers import new_user, user_on


class Outage:
    """Points one master's address at a closed port (this process only) until healed."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.healthy: dict[str, Any] = dict(settings.PINSITE_GRAPH)
        self.instance = topology.current_map().masters()[0]

    def start(self) -> None:
        hosts = {**self.healthy["REDIS_HOSTS"], self.instance: CLOSED}
        pools.close()
        self.settings.PINSITE_GRAPH = {**self.healthy, "REDIS_HOSTS": hosts,
                                       "WRITE_ATTEMPTS": 2, "RETRY_DELAY": 0.01}

    def heal(self) -> None:
        self.settings.PINSITE_GRAPH = self.healthy
        pools.close()



@pytest.fixture
def outage(settings: Settings) -> Iterator[Outage]:
    down = Outage(settings)
    yield down
    down.heal()


def test_a_follow_while_redis_is_down_is_logged_and_raises_unavailable(outage: Outage) -> None:
    ann, bob = user_on(outage.instance), new_user()
    outage.start()
    with pytest.raises(GraphUnavailable, match="edge log holds the change"):
        actions.follow_user(ann, bob)
    outage.heal()
    assert mappings.contains(USER_FOLLOWS_USER, ann, bob)
    assert not selectors.is_following_user(ann, bob)
    assert not repair.verify_user(ann).clean
    repair.rebuild_user(ann)


def test_rebuild_applies_what_the_log_kept_during_the_outage(outage: Outage) -> None:
    ann, bob = user_on(outage.instance), new_user()
    outage.start()
    with pytest.raises(GraphUnavailable):
        actions.follow_user(ann, bob)
    outage.heal()
    repair.rebuild_user(ann)
    assert selectors.is_following_user(ann, bob)
    assert selectors.followers_page(bob).ids == [ann]
    assert repair.verify_user(ann).clean and repair.verify_user(bob).clean


def test_a_read_while_redis_is_down_raises_unavailable(outage: Outage) -> None:
    ann = user_on(outage.instance)
    outage.start()
    with pytest.raises(GraphUnavailable, match=outage.instance):
        selectors.follower_count(ann)
