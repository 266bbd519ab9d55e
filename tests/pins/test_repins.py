"""Repins: the source is recorded and lists its repins, also across shards."""

from __future__ import annotations

import pytest

from pins.actions import delete_pin, repin
from pins.exceptions import NotFound, PermissionDenied
from pins.selectors import get_pin, pins_of_user, repin_count, repin_counts, repins_of
from pins.types import PIN_HAS_REPINS
from sharding import mappings
from sharding.ids import shard_of
from tests.pins.helpers import new_board, new_pin, new_pinner, pinner_off_shard


def _source_pin() -> tuple[int, int]:
    owner = new_pinner()
    return owner.user_id, new_pin(owner.user_id, new_board(owner.user_id).id).id


def test_a_repin_records_its_source_and_shares_its_image() -> None:
    _, source_id = _source_pin()
    saver = new_pinner()
    board = new_board(saver.user_id)
    copy = repin(saver.user_id, source_id, board.id)
    source = get_pin(source_id)
    assert copy.source_pin_id == source_id and copy.is_repin
    assert (copy.image, copy.thumbnail, copy.title, copy.link) == (
        source.image, source.thumbnail, source.title, source.link)
    assert (copy.board_id, copy.pinner_id) == (board.id, saver.user_id)
    assert shard_of(copy.id) == shard_of(board.id)


def test_a_repin_may_have_its_own_title() -> None:
    _, source_id = _source_pin()
    saver = new_pinner()
    assert repin(saver.user_id, source_id, new_board(saver.user_id).id,
                 title="My version").title == "My version"


def test_a_repin_on_another_shard_is_listed_in_the_sources_repins() -> None:
    _, source_id = _source_pin()
    saver = pinner_off_shard(shard_of(source_id))
    copy = repin(saver.user_id, source_id, new_board(saver.user_id).id)
    assert [pin.id for pin in repins_of(source_id).items] == [copy.id]
    assert repin_count(source_id) == 1
    assert repin_counts([source_id, copy.id, str(source_id)]) == {source_id: 1, copy.id: 0}
    assert mappings.sequence_of(PIN_HAS_REPINS, source_id, copy.id) == copy.created_us


def test_a_repin_is_listed_among_the_repinners_pins() -> None:
    _, source_id = _source_pin()
    saver = new_pinner()
    copy = repin(saver.user_id, source_id, new_board(saver.user_id).id)
    assert [pin.id for pin in pins_of_user(saver.user_id).items] == [copy.id]


def test_repinning_to_someone_elses_board_is_denied() -> None:
    owner_id, source_id = _source_pin()
    with pytest.raises(PermissionDenied):
        repin(new_pinner().user_id, source_id, new_board(owner_id).id)
    assert repin_count(source_id) == 0


def test_repinning_a_missing_pin_is_not_found() -> None:
    owner_id, source_id = _source_pin()
    delete_pin(owner_id, source_id)
    saver = new_pinner()
    with pytest.raises(NotFound):
        repin(saver.user_id, source_id, new_board(saver.user_id).id)


def test_deleting_a_repin_leaves_the_source_and_unlists_the_repin() -> None:
    _, source_id = _source_pin()
    saver = pinner_off_shard(shard_of(source_id))
    copy = repin(saver.user_id, source_id, new_board(saver.user_id).id)
    delete_pin(saver.user_id, copy.id)
    assert get_pin(source_id).id == source_id
    assert repins_of(source_id).items == [] and repin_count(source_id) == 0


def test_deleting_a_source_keeps_its_repins_and_forgets_its_repin_list() -> None:
    owner_id, source_id = _source_pin()
    saver = new_pinner()
    copy = repin(saver.user_id, source_id, new_board(saver.user_id).id)
    delete_pin(owner_id, source_id)
    assert get_pin(copy.id).source_pin_id == source_id
    assert repin_count(source_id) == 0
