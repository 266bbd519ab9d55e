"""``graph verify`` and ``graph rebuild``: differences found, Redis restored from the edge log."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from graph import actions, keys, repair, selectors, topology
from graph.store import admin
from graph.vshards import vshard_of
from tests.graph.helpers import masters, new_board, new_user, snapshot, user_on


def _graph_of(users: list[int]) -> None:
    """A little of everything between ``users`` (and boards of theirs)."""
    ann, bob, cat, dan = users
    recipes, travel = new_board(bob), new_board(bob, "Travel")
    actions.follow_user(ann, bob)
    actions.follow_user(cat, ann)
    actions.follow_board(cat, recipes)
    actions.follow_board(dan, travel)
    actions.follow_user(dan, bob)
    actions.unfollow_board(ann, travel)


@pytest.mark.alone
def test_verify_reports_a_lost_key_and_rebuild_restores_it() -> None:
    ann, bob = new_user(), new_user()
    actions.follow_user(ann, bob)
    lost = keys.user_key(bob, keys.FOLLOWERS)
    already = repair.verify({vshard_of(bob)}).differences
    admin.delete_keys(topology.master_for(vshard_of(bob)), [lost])
    report = repair.verify({vshard_of(bob)})
    assert [(d.key, d.missing) for d in report.differences if d not in already] == \
        [(lost, (ann,))]
    repair.rebuild({vshard_of(bob)})
    assert selectors.followers_page(bob).ids == [ann]
    assert repair.verify({vshard_of(bob)}).clean


def test_verify_reports_an_entry_the_log_does_not_have() -> None:
    ann, bob, ghost = new_user(), new_user(), new_user()
    actions.follow_user(ann, bob)
    key = keys.user_key(ann, keys.FOLLOWING)
    admin.set_member(topology.master_for(vshard_of(ann)), key, ghost, 1)
    differences = repair.verify_user(ann).differences
    assert [(d.key, d.extra) for d in differences] == [(key, (ghost,))]
    repair.rebuild_user(ann)
    assert selectors.which_users_followed(ann, [bob, ghost]) == [bob]


def test_verify_user_checks_the_users_entries_in_others_keys() -> None:
    ann, bob = new_user(), new_user()
    actions.follow_user(ann, bob)
    key = keys.user_key(bob, keys.FOLLOWERS)
    admin.set_member(topology.master_for(vshard_of(bob)), key, ann, None)
    assert [(d.key, d.missing) for d in repair.verify_user(ann).differences] == [(key, (ann,))]
    repair.rebuild_user(ann)
    assert repair.verify_user(ann).clean and repair.verify_user(bob).clean


def test_rebuild_user_recounts_the_overlap_of_boards_it_touched() -> None:
    ann, bob = new_user(), new_user()
    board = new_board(bob)
    actions.follow_user(ann, bob)
    actions.follow_board(ann, board)
    overlap = keys.board_key(board, keys.BOARD_OVERLAP)
    admin.delete_keys(topology.master_for(vshard_of(board)), [overlap])
    assert selectors.board_follower_count(board) == 2
    repair.rebuild_user(bob)
    assert selectors.board_follower_count(board) == 1


@pytest.mark.alone
def test_flushing_a_master_and_rebuilding_restores_the_graph_exactly() -> None:
    call_command("graph", "rebuild", "--all", "--quiet")
    first, second = masters()[:2]
    _graph_of([user_on(first), user_on(second), user_on(first), user_on(second)])
    before = {instance: snapshot(instance) for instance in masters()}
    admin.flush(first)
    assert snapshot(first) == {}
    call_command("graph", "rebuild", "--all", "--quiet")
    assert {instance: snapshot(instance) for instance in masters()} == before


def test_verify_command_prints_json_for_scripts() -> None:
    ann, bob = new_user(), new_user()
    actions.follow_user(ann, bob)
    out = StringIO()
    call_command("graph", "verify", "--user", str(ann), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["difference_count"] == 0 and report["log_rows"] == 1


def test_verify_command_exits_1_when_redis_differs_from_the_log() -> None:
    ann, bob = new_user(), new_user()
    actions.follow_user(ann, bob)
    admin.delete_keys(topology.master_for(vshard_of(ann)), [keys.user_key(ann, keys.FOLLOWING)])
    out = StringIO()
    with pytest.raises(CommandError, match="1 differences") as raised:
        call_command("graph", "verify", "--user", str(ann), "--json", stdout=out)
    assert raised.value.returncode == 1
    assert json.loads(out.getvalue())["difference_count"] == 1  # the report is printed first
    repair.rebuild_user(ann)
    call_command("graph", "verify", "--user", str(ann), stdout=StringIO())  # clean: status 0


@pytest.mark.alone
def test_rebuild_command_reports_what_it_rewrote() -> None:
    ann, bob = new_user(), new_user()
    actions.follow_user(ann, bob)
    admin.delete_keys(topology.master_for(vshard_of(ann)), [keys.user_key(ann, keys.FOLLOWING)])
    out = StringIO()
    call_command("graph", "rebuild", "--vshard", str(vshard_of(ann)), "--json", stdout=out)
    assert json.loads(out.getvalue())["keys_rewritten"] == 1
