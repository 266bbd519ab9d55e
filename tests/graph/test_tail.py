"""A promotion's reconcile of the edge log's tail: the follow events recorded since a moment
(:mod:`graph.tail`), replayed follower by follower (:func:`graph.repair.rebuild_followers`)
into the vshards a promoted replica serves, and nothing outside them."""

from __future__ import annotations

from graph import actions, keys, repair, selectors, tail, topology
from graph.store import admin
from graph.vshards import vshard_count, vshard_of
from tests.graph.helpers import new_board, new_user
from toolkit.clock import now_us


def _lose(name: str, member: int, value: int | bool | None) -> None:
    """What a replica that missed a write holds: ``member`` of key ``name`` set to ``value``."""
    key_vshard = keys.vshard_of_key(name)
    assert key_vshard is not None
    admin.set_member(topology.master_for(key_vshard), name, member, value)


def test_the_tail_names_the_followers_changed_since_a_moment_on_the_vshards_asked() -> None:
    ann, bob, cat = new_user(), new_user(), new_user()
    actions.follow_user(ann, bob)
    since = now_us()
    actions.follow_user(cat, bob)
    board = new_board(bob)
    actions.follow_board(ann, board)

    changes = tail.changes_since(since, {vshard_of(cat), vshard_of(ann)})

    assert changes[cat] == {("user", bob)}
    assert changes[ann] == {("board", board)}  # the follow of bob came before ``since``
    elsewhere = set(range(vshard_count())) - {vshard_of(u) for u in (ann, bob, cat)}
    assert not {ann, cat} & set(tail.changes_since(since, elsewhere))


def test_a_follow_and_an_unfollow_a_replica_missed_come_back_on_both_sides() -> None:
    ann, bob, cat = new_user(), new_user(), new_user()
    actions.follow_user(ann, cat)
    actions.follow_user(ann, bob)
    actions.unfollow_user(ann, cat)
    # the replica missed both: no bob on ann's side or in bob's followers, cat still there
    _lose(keys.user_key(ann, keys.FOLLOWING), bob, None)
    _lose(keys.user_key(bob, keys.FOLLOWERS), ann, None)
    _lose(keys.user_key(ann, keys.FOLLOWING), cat, 1)
    _lose(keys.user_key(cat, keys.FOLLOWERS), ann, 1)
    served = {vshard_of(ann), vshard_of(bob), vshard_of(cat)}

    report = repair.rebuild_followers({ann: {("user", bob), ("user", cat)}}, served)

    assert report.keys_rewritten + report.members_fixed >= 2
    assert selectors.which_users_followed(ann, [bob, cat]) == [bob]
    assert selectors.followers_page(bob).ids == [ann]
    assert selectors.followers_page(cat).ids == []
    assert repair.verify_user(ann).clean


def test_a_board_unfollow_the_replica_missed_is_undone_with_its_overlap() -> None:
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    actions.follow_user(ann, bob)
    actions.follow_board(ann, board)
    actions.unfollow_board(ann, board)  # ann still follows bob: the board is marked unfollowed
    _lose(keys.user_key(ann, keys.BOARDS_UNFOLLOWED), board, None)
    _lose(keys.board_key(board, keys.BOARD_UNFOLLOWERS), ann, None)
    served = {vshard_of(ann), vshard_of(bob)}

    repair.rebuild_followers({ann: {("board", board)}}, served)

    assert selectors.which_boards_followed(ann, [board]) == []
    assert repair.verify_user(ann).clean and repair.verify_user(bob).clean


def test_keys_outside_the_promoted_vshards_are_left_to_their_own_writers() -> None:
    ann, bob = new_user(), new_user()
    while vshard_of(bob) == vshard_of(ann):
        bob = new_user()
    actions.follow_user(ann, bob)
    _lose(keys.user_key(ann, keys.FOLLOWING), bob, None)   # ann's own key: not served
    _lose(keys.user_key(bob, keys.FOLLOWERS), ann, None)   # bob's key: served

    repair.rebuild_followers({ann: {("user", bob)}}, {vshard_of(bob)})

    assert selectors.followers_page(bob).ids == [ann]
    assert selectors.which_users_followed(ann, [bob]) == []
    repair.rebuild_user(ann)
