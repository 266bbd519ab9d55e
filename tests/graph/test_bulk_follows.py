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
from graph.tables import USER_FOLLOWS_BOARD, USER_FOLLOWS_USER, USER_UNFOLLOWS_BOARD
from pins.types import USER
from sharding import mappings
from sharding.hosts import alias_for_shard
from sharding.ids import compose, shard_of
from tests.events.helpers import recorded
from tests.graph.helpers import held_follower_lock, new_board, new_user
from tests.sharding.helpers import queries_per_host


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


def test_follows_of_boards_in_one_call_log_and_apply_what_one_by_one_would() -> None:
    bob = new_user()
    first, second, third = (new_board(bob, name) for name in ("First", "Second", "Third"))
    together, alone = new_user(), new_user()  # both once followed bob and dropped one board
    for who in (together, alone):
        actions.follow_user(who, bob)
        actions.unfollow_board(who, first)
    implicit_together, implicit_alone = new_user(), new_user()
    asked = [(first, True), (second, True), (second, False)]  # board, changed
    results = actions.follow_boards([(together, board) for board, _ in asked]
                                    + [(implicit_together, third), (implicit_together, second)])
    made = [change for change in results if isinstance(change, FollowChange)]
    one_by_one = [actions.follow_board(alone, board) for board, _ in asked]
    one_by_one += [actions.follow_board(implicit_alone, board) for board in (third, second)]
    assert len(made) == len(results) == 5
    assert [change.changed for change in made[:3]] == [changed for _, changed in asked]
    assert [change.changed for change in made] == [change.changed for change in one_by_one]
    assert made[2].action_time_us == made[1].action_time_us  # twice: the first one's time
    for bulk, single in ((together, alone), (implicit_together, implicit_alone)):
        boards = [first, second, third]
        assert selectors.which_boards_followed(bulk, boards) == selectors.which_boards_followed(
            single, boards)
        assert selectors.follow_kind(bulk, bob) == selectors.follow_kind(single, bob)
        assert mappings.find_edges([mappings.Edges(USER_UNFOLLOWS_BOARD, bulk, between=(
            first, third))]) == [{}]  # the mark of ``first`` went with its follow
    assert selectors.which_boards_followed(together, [first, second, third]) == [
        first, second, third]
    assert selectors.follow_kind(implicit_together, bob) == "implicit"
    since = {follow.user_id: follow.time_us
             for follow in selectors.followers_page(bob, limit=10).items}
    assert since[implicit_together] == made[3].action_time_us  # the earliest board's time
    assert since[implicit_alone] == one_by_one[3].action_time_us


def test_a_bulk_follow_reads_and_writes_a_hosts_log_with_two_queries() -> None:
    users = [new_user() for _ in range(9)]
    pairs = [(follower, target) for follower in users[:3] for target in users[3:]]
    with queries_per_host() as queries:
        made = actions.follow_users(pairs)
    assert all(isinstance(change, FollowChange) and change.changed for change in made)
    hosts = {alias_for_shard(shard_of(follower)) for follower, _ in pairs}
    for alias in hosts:  # the locks and the edge inserts go unanswered, with no query each
        sent = [query["sql"] for query in queries[alias].captured_queries
                if ".users " not in query["sql"]]  # the users looked up, as one follow does
        assert [sql.split(" FROM ")[0].split(" (")[0] for sql in sent] == [
            "SELECT 0, to_id, sequence", "INSERT INTO pinsite_events.outbox", "COMMIT"], sent
