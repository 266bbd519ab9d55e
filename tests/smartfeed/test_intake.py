"""The smart feed's worker role called in process on the real stack: what a new pin's chunk
and a follow cost the pools cluster, and what they write."""

from __future__ import annotations

import pytest

from feed.smart import intake, pools
from feed.smart.schema import affinity_column
from feed.smart.scoring import POINTS
from graph.actions import follow_user
from tests.feed.helpers import new_board, new_pin, new_user
from tests.smartfeed.test_pools import _thrift_calls

READ_AND_PUT = {"getRowsWithColumns": 1, "mutateRows": 1}
"""A read of the meta rows (affinities and pool sizes), one batch put of the entries and the
pools' new sizes."""


def test_a_new_pins_chunk_is_two_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = new_user("sio")
    board = new_board(owner)
    readers = [new_user("sir") for _ in range(3)]
    pools.add_affinity(readers[0], {("b", board): 7})
    pin = new_pin(owner, board)
    calls = _thrift_calls(monkeypatch)
    assert intake.insert_pin(pin, "following", readers) == []
    assert calls == READ_AND_PUT
    found = {reader: pools.best(reader, "following", 5) for reader in readers}
    assert [[c.pin_id for c in found[reader]] for reader in readers] == [[pin]] * 3
    assert found[readers[0]][0].quality > found[readers[1]][0].quality  # its affinity counts
    assert pools.sizes(readers[0])["following"] == 1


def test_a_follows_backfill_and_points_are_three_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pinner's pins, originals and repins, go into their pools scored with the follow's
    points, which the same increment adds; an unfollow takes them back out."""
    owner, reader, other = new_user("sio"), new_user("sir"), new_user("sio")
    board = new_board(owner)
    pins = [new_pin(owner, board, f"pin {n}") for n in range(3)]
    follow_user(owner, other)  # nothing of this follow's reaches the reader's pools
    column = affinity_column("p", owner)
    calls = _thrift_calls(monkeypatch)
    assert intake.follow(reader, "user", owner, "follow") == []
    assert calls == {**READ_AND_PUT, "incrementRows": 1}
    pooled = pools.best(reader, "following", 10)
    assert {c.pin_id for c in pooled} == set(pins)
    assert pools.affinity_points(reader, [column]) == {column: POINTS["follow"]}
    assert pools.sizes(reader)["following"] == 3
    unscored = intake.score_for_user(new_user("sir"), "following", pins)
    assert min(c.quality for c in pooled) > max(e.quality for e in unscored)
    intake.follow(reader, "user", owner, "unfollow")
    assert pools.best(reader, "following", 10) == []
    assert pools.affinity_points(reader, [column]) == {column: 0}


def test_a_follow_of_a_pinner_without_pins_adds_its_points_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    owner, reader = new_user("sio"), new_user("sir")
    calls = _thrift_calls(monkeypatch)
    assert intake.follow(reader, "user", owner, "follow") == []
    assert calls == {"incrementRows": 1}
    assert pools.all_affinities(reader) == {f"p:{owner}": POINTS["follow"]}
