"""Key names and vshards: pure functions, no servers."""

from __future__ import annotations

from graph import keys
from graph.vshards import vshard_of
from pins.types import BOARD, USER
from sharding.ids import compose


def test_the_vshard_of_an_id_is_its_mysql_shard() -> None:
    assert vshard_of(241294492511762325) == 3429


def test_a_user_and_their_boards_share_a_vshard() -> None:
    user, board = compose(3429, USER.type_id, 5), compose(3429, BOARD.type_id, 77)
    assert vshard_of(user) == vshard_of(board) == 3429


def test_shards_beyond_the_vshard_count_wrap_around() -> None:
    assert vshard_of(compose(8192 + 17, USER.type_id, 1)) == 17


def test_keys_carry_their_vshard_in_a_hash_tag() -> None:
    user = compose(17, USER.type_id, 5)
    assert keys.user_key(user, keys.FOLLOWING) == f"g:{{17}}:u:{user}:fwe"
    assert keys.board_key(compose(17, BOARD.type_id, 9), keys.BOARD_OVERLAP).startswith("g:{17}:b:")


def test_parse_reads_back_the_parts_and_the_type() -> None:
    user = compose(17, USER.type_id, 5)
    parsed = keys.parse(keys.user_key(user, keys.BOARDS_FOLLOWED))
    assert parsed == keys.GraphKey(17, "u", user, "bfe") and parsed.type == "set"


def test_fences_and_foreign_keys_are_not_data_keys() -> None:
    assert keys.parse(keys.fence_key(17)) is None
    assert keys.parse("session:abc") is None
    assert keys.parse("g:{17}:u:5:zzz") is None
    assert keys.vshard_of_key(keys.fence_key(17)) == 17
