"""Follow and unfollow actions: the model's rules, the edge log, events and bad input."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections
from MySQLdb.connections import Connection
from pytest_django import Settings

from events import publisher
from graph import actions, selectors
from graph.events import FOLLOW_CHANGED
from graph.exceptions import GraphNotFound, GraphUnavailable, InvalidGraphInput
from graph.tables import USER_FOLLOWS_BOARD, USER_FOLLOWS_USER, USER_UNFOLLOWS_BOARD
from pins.types import BOARD, USER
from sharding import mappings, outbox
from sharding.exceptions import MalformedObjectId
from sharding.hosts import alias_for_shard
from sharding.ids import compose, shard_of
from tests.events.helpers import recorded
from tests.graph.helpers import held_follower_lock, new_board, new_user
from tests.polling import wait_until


def test_following_a_user_records_the_edge_with_its_time() -> None:
    ann, bob = new_user(), new_user()
    change = actions.follow_user(ann, bob)
    assert change.changed
    assert mappings.sequence_of(USER_FOLLOWS_USER, ann, bob) == change.action_time_us
    assert selectors.is_following_user(ann, bob)
    assert not selectors.is_following_user(bob, ann)


def test_following_twice_keeps_one_edge_and_its_first_time() -> None:
    ann, bob = new_user(), new_user()
    first = actions.follow_user(ann, bob)
    second = actions.follow_user(ann, bob)
    assert not second.changed and second.action_time_us == first.action_time_us
    assert selectors.followers_page(bob).items[0].time_us == first.action_time_us
    assert selectors.follower_count(bob) == 1


def test_following_a_user_follows_their_boards_present_and_future() -> None:
    ann, bob = new_user(), new_user()
    before = new_board(bob)
    actions.follow_user(ann, bob)
    after = new_board(bob, "Later")
    assert selectors.which_boards_followed(ann, [before, after]) == [before, after]


def test_unfollowing_a_user_stops_following_their_boards() -> None:
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    actions.follow_user(ann, bob)
    actions.unfollow_user(ann, bob)
    assert not selectors.is_following_user(ann, bob)
    assert not selectors.is_following_board(ann, board)
    assert not mappings.contains(USER_FOLLOWS_USER, ann, bob)


def test_following_a_board_makes_an_implicit_follower_of_its_owner() -> None:
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    actions.follow_board(ann, board)
    assert selectors.is_following_board(ann, board)
    assert not selectors.is_following_user(ann, bob)
    assert selectors.follow_kind(ann, bob) == "implicit"
    assert [(f.user_id, f.explicit) for f in selectors.followers_page(bob).items] == \
        [(ann, False)]


def test_unfollowing_the_last_board_ends_the_implicit_follow() -> None:
    ann, bob = new_user(), new_user()
    first, second = new_board(bob), new_board(bob, "Second")
    actions.follow_board(ann, first)
    actions.follow_board(ann, second)
    actions.unfollow_board(ann, first)
    assert selectors.follow_kind(ann, bob) == "implicit"
    actions.unfollow_board(ann, second)
    assert selectors.follow_kind(ann, bob) is None
    assert selectors.follower_count(bob) == 0


def test_unfollowing_one_board_of_a_followed_user_keeps_the_others() -> None:
    ann, bob = new_user(), new_user()
    kept, dropped = new_board(bob), new_board(bob, "Dropped")
    actions.follow_user(ann, bob)
    change = actions.unfollow_board(ann, dropped)
    assert change.changed
    assert selectors.which_boards_followed(ann, [kept, dropped]) == [kept]
    assert selectors.is_following_user(ann, bob)
    assert mappings.contains(USER_UNFOLLOWS_BOARD, ann, dropped)
    assert selectors.board_follower_count(dropped) == 0


def test_unfollowing_a_user_keeps_boards_followed_explicitly() -> None:
    ann, bob = new_user(), new_user()
    explicit, other = new_board(bob), new_board(bob, "Other")
    actions.follow_user(ann, bob)
    actions.follow_board(ann, explicit)
    actions.unfollow_user(ann, bob)
    assert selectors.which_boards_followed(ann, [explicit, other]) == [explicit]
    assert selectors.follow_kind(ann, bob) == "implicit"


def test_unfollowing_a_user_forgets_the_boards_unfollowed_meanwhile() -> None:
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    actions.follow_user(ann, bob)
    actions.unfollow_board(ann, board)
    actions.unfollow_user(ann, bob)
    actions.follow_user(ann, bob)
    assert selectors.is_following_board(ann, board)
    assert not mappings.contains(USER_UNFOLLOWS_BOARD, ann, board)


def test_following_an_unfollowed_board_again_follows_it_explicitly() -> None:
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    actions.follow_user(ann, bob)
    actions.unfollow_board(ann, board)
    actions.follow_board(ann, board)
    assert selectors.is_following_board(ann, board)
    assert mappings.contains(USER_FOLLOWS_BOARD, ann, board)
    assert selectors.board_follower_count(board) == 1


def test_unfollowing_what_is_not_followed_changes_nothing() -> None:
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    assert not actions.unfollow_user(ann, bob).changed
    assert not actions.unfollow_board(ann, board).changed
    assert not mappings.contains(USER_UNFOLLOWS_BOARD, ann, board)


def test_the_edge_log_holds_one_direction_on_the_followers_shard() -> None:
    ann, bob = new_user(), new_user()
    actions.follow_user(ann, bob)
    assert [e.to_id for e in mappings.iterate(USER_FOLLOWS_USER, ann)] == [bob]
    assert list(mappings.iterate(USER_FOLLOWS_USER, bob)) == []


def test_each_change_sends_one_event_after_the_commit(
        follow_events: list[dict[str, Any]]) -> None:
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    follow = actions.follow_user(ann, bob)
    actions.follow_user(ann, bob)
    unfollow = actions.unfollow_board(ann, board)
    assert publisher.flush()  # a follow returns before its event is published
    assert follow_events == [
        {"follower_id": ann, "target_id": bob, "target_kind": "user", "action": "follow",
         "action_time_us": follow.action_time_us},
        {"follower_id": ann, "target_id": board, "target_kind": "board", "action": "unfollow",
         "action_time_us": unfollow.action_time_us}]


def test_the_event_finds_the_edge_already_logged() -> None:
    ann, bob = new_user(), new_user()
    seen: list[bool] = []

    def check(payload: dict[str, Any]) -> None:
        seen.append(mappings.contains(USER_FOLLOWS_USER, payload["follower_id"],
                                      payload["target_id"]))

    with recorded(FOLLOW_CHANGED, check):
        actions.follow_user(ann, bob)
    assert seen == [True]


def test_a_follow_waits_on_the_followers_host_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock, the edge, its event and the reads are sent together (one wait), then the
    commit (the second): the same whether the edge is new or already there."""
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    actions.follow_board(ann, board)
    alias = alias_for_shard(shard_of(ann))
    connections[alias].ensure_connection()
    watched, waits, state = connections[alias].connection, [0], ["read"]

    def counted(name: str, wait: bool) -> None:
        real = getattr(Connection, name)

        def call(self: Connection, *args: Any) -> Any:
            if self is watched:
                if name == "send_query":
                    state[0] = "sent"
                elif wait or state[0] == "sent":
                    waits[0], state[0] = waits[0] + 1, "read"
            return real(self, *args)
        monkeypatch.setattr(Connection, name, call)

    counted("send_query", False)
    counted("read_query_result", False)
    for name in ("query", "commit", "autocommit"):
        counted(name, True)
    first = actions.follow_user(ann, bob)
    assert (first.changed, waits[0]) == (True, 2)
    again = actions.follow_user(ann, bob)
    assert (again.changed, again.action_time_us, waits[0]) == (False, first.action_time_us, 4)
    assert selectors.is_following_board(ann, board)
    with connections[alias].cursor() as c:  # the repeated follow left no row in the outbox
        c.execute(f"SELECT COUNT(*) FROM {outbox.TABLE} WHERE name = %s AND payload LIKE %s",
                  [FOLLOW_CHANGED, f'%"follower_id":{ann},"target_id":{bob},%'])
        assert c.fetchone()[0] == 1


def test_following_yourself_is_rejected() -> None:
    ann = new_user()
    with pytest.raises(InvalidGraphInput, match="themselves"):
        actions.follow_user(ann, ann)


def test_following_your_own_board_is_rejected() -> None:
    ann = new_user()
    with pytest.raises(InvalidGraphInput, match="own board"):
        actions.follow_board(ann, new_board(ann))


def test_a_board_id_where_a_user_id_belongs_is_rejected() -> None:
    ann = new_user()
    with pytest.raises(MalformedObjectId, match="not a user ID"):
        actions.follow_user(ann, new_board(ann))


def test_a_malformed_id_is_rejected() -> None:
    with pytest.raises(MalformedObjectId, match="'alice' is not a user ID"):
        actions.follow_user("alice", new_user())


def test_an_unknown_user_is_not_found() -> None:
    ghost = compose(shard_of(new_user()), USER.type_id, 2**35)
    with pytest.raises(GraphNotFound, match="no user"):
        actions.follow_user(new_user(), ghost)


def test_an_unknown_board_is_not_found() -> None:
    ghost = compose(0, BOARD.type_id, 2**35)
    with pytest.raises(GraphNotFound, match="no board"):
        actions.follow_board(new_user(), ghost)


def test_rejected_input_writes_nothing() -> None:
    ann = new_user()
    with pytest.raises(InvalidGraphInput):
        actions.follow_user(ann, ann)
    assert list(mappings.iterate(USER_FOLLOWS_USER, ann)) == []


def test_a_follow_waits_for_the_followers_lock_and_goes_on_when_it_is_released(
        settings: Settings) -> None:
    ann, bob = new_user(), new_user()
    settings.PINSITE_GRAPH = {**settings.PINSITE_GRAPH, "LOCK_SECONDS": 60}
    outcome: list[object] = []

    def follow() -> None:
        try:
            outcome.append(actions.follow_user(ann, bob).changed)
        except Exception as exc:  # reported by the assertion below
            outcome.append(exc)
        finally:
            connections.close_all()

    following = threading.Thread(target=follow)
    try:
        with held_follower_lock(ann) as held:  # another writer holds ann's lock
            following.start()
            assert wait_until(held.awaited, timeout=30)
            assert outcome == [] and not mappings.contains(USER_FOLLOWS_USER, ann, bob)
            held.release()
            following.join(timeout=60)
        assert outcome == [True]
        assert selectors.is_following_user(ann, bob)
    finally:
        if following.is_alive():
            following.join(timeout=60)


def test_a_follow_waits_for_the_followers_lock_and_fails_cleanly_without_it(
        settings: Settings, follow_events: list[dict[str, Any]]) -> None:
    ann, bob, cat = new_user(), new_user(), new_user()
    with held_follower_lock(ann) as held:  # another writer holds ann's lock
        settings.PINSITE_GRAPH = {**settings.PINSITE_GRAPH, "LOCK_SECONDS": 1}
        with pytest.raises(GraphUnavailable, match="another graph write in progress"):
            actions.follow_user(ann, bob)
        assert not mappings.contains(USER_FOLLOWS_USER, ann, bob)  # rolled back
        assert not selectors.is_following_user(ann, bob)
        held.release()
        assert actions.follow_user(ann, cat).changed  # the same connection serves again
        publisher.flush()
        assert [event["target_id"] for event in follow_events] == [cat]


def test_pausing_follows_holds_every_users_lock_on_every_host_until_the_block_ends(
        settings: Settings) -> None:
    first = new_user()
    second = next(user for user in iter(new_user, None)
                  if alias_for_shard(shard_of(user)) != alias_for_shard(shard_of(first)))
    target = new_user()
    settings.PINSITE_GRAPH = {**settings.PINSITE_GRAPH, "LOCK_SECONDS": 1}
    outcomes: list[str] = []

    def follow_all() -> None:  # another writer: a session of its own on each host
        try:
            for follower in (first, second):
                try:
                    actions.follow_user(follower, target)
                    outcomes.append("followed")
                except GraphUnavailable:
                    outcomes.append("refused")
        finally:
            connections.close_all()

    with actions.follows_paused([second, first]):
        writer = threading.Thread(target=follow_all)
        writer.start()
        writer.join(timeout=60)
    assert outcomes == ["refused", "refused"]
    assert actions.follow_user(first, target).changed
    assert actions.follow_user(second, target).changed
