"""Many follows at once (an import): each as the single action makes it, in the edge log and
in Redis with its event, input errors reported in place, a held lock refused whole."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pytest_django import Settings

from events import publisher
from graph import actions, selectors
from graph.actions import FollowChange
from graph.events import FOLLOW_CHANGED
from graph.exceptions import GraphNotFound, GraphUnavailable, InvalidGraphInput
from graph.tables import USER_FOLLOWS_BOARD, USER_FOLLOWS_USER
from pins.types import USER
from sharding import mappings
from sharding.ids import compose, shard_of
from tests.events.helpers import recorded
from tests.graph.helpers import held_follower_lock, new_board, new_user


@pytest.fixture
def follow_events() -> Iterator[list[dict[str, Any]]]:
    with recorded(FOLLOW_CHANGED) as received:
        yield received


def test_follows_of_users_are_made_as_one_by_one(follow_events: list[dict[str, Any]]) -> None:
    users = [new_user() for _ in range(6)]
    missing = compose(shard_of(users[0]), USER.type_id, 2**30)
    pairs = [(users[0], users[1]), (users[2], users[2]), (users[3], users[4]),
             (users[0], users[5]), (users[5], missing), (users[0], users[1])]
    made = actions.follow_users(pairs)
    assert isinstance(made[1], InvalidGraphInput) and isinstance(made[4], GraphNotFound)
    first, again = made[0], made[5]
    assert isinstance(first, FollowChange) and isinstance(again, FollowChange)
    assert first.changed and not again.changed  # twice in one call: made once
    assert again.action_time_us == first.action_time_us
    for follower, target in (pairs[0], pairs[2], pairs[3]):
        assert selectors.is_following_user(follower, target)
        assert mappings.contains(USER_FOLLOWS_USER, follower, target)
    assert selectors.follower_count(users[1]) == 1
    publisher.flush()
    assert sorted((e["follower_id"], e["target_id"]) for e in follow_events) == sorted(
        [pairs[0], pairs[2], pairs[3]])


def test_follows_of_boards_follow_them_and_refuse_ones_own() -> None:
    ann, bob = new_user(), new_user()
    recipes, travel, own = new_board(bob), new_board(bob, "Travel"), new_board(ann, "Mine")
    made = actions.follow_boards([(ann, recipes), (ann, own), (ann, travel)])
    assert isinstance(made[1], InvalidGraphInput)
    assert all(isinstance(change, FollowChange) and change.changed
               for change in (made[0], made[2]))
    assert selectors.which_boards_followed(ann, [recipes, travel, own]) == [recipes, travel]
    assert mappings.contains(USER_FOLLOWS_BOARD, ann, travel)
    assert not selectors.is_following_user(ann, bob)  # boards, not their owner


def test_a_held_lock_refuses_its_hosts_follows_whole(settings: Settings) -> None:
    ann, bob, cat = new_user(), new_user(), new_user()
    settings.PINSITE_GRAPH = {**settings.PINSITE_GRAPH, "LOCK_SECONDS": 1}
    with held_follower_lock(ann), pytest.raises(GraphUnavailable):
        actions.follow_users([(ann, bob), (ann, cat)])
    assert not mappings.contains(USER_FOLLOWS_USER, ann, bob)
    assert not selectors.is_following_user(ann, cat)
    [change] = actions.follow_users([(ann, bob)])  # the lock released: made
    assert isinstance(change, FollowChange) and change.changed
    assert selectors.is_following_user(ann, bob)
