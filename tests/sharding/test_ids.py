"""ID arithmetic: pure functions, no servers."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pins.types import BOARD, PIN
from sharding import ids
from sharding.exceptions import InvalidObjectId, MalformedObjectId, UnknownObjectType

GOLDEN = 241294492511762325

shards = st.integers(0, ids.MAX_SHARD)
type_ids = st.integers(1, ids.MAX_TYPE)
local_ids = st.integers(1, ids.MAX_LOCAL)


def test_golden_id_decomposes_to_shard_3429_pin_7075733() -> None:
    assert ids.decompose(GOLDEN) == ids.ObjectId(shard=3429, type_id=1, local_id=7075733)
    assert ids.type_of(GOLDEN) is PIN


def test_golden_id_composes_from_its_parts() -> None:
    assert ids.compose(3429, 1, 7075733) == GOLDEN


@given(shards, type_ids, local_ids)
def test_compose_then_decompose_returns_the_parts(shard: int, type_id: int, local: int) -> None:
    object_id = ids.compose(shard, type_id, local)
    assert ids.decompose(object_id) == ids.ObjectId(shard, type_id, local)
    assert ids.shard_of(object_id) == shard
    assert 0 < object_id < 2**62


parts = st.tuples(shards, type_ids, local_ids)


@given(parts, parts)
def test_distinct_parts_give_distinct_ids(first: tuple[int, int, int],
                                          second: tuple[int, int, int]) -> None:
    assert (ids.compose(*first) == ids.compose(*second)) == (first == second)


@pytest.mark.parametrize("shard,type_id,local", [
    (-1, 1, 1), (ids.MAX_SHARD + 1, 1, 1), (0, 0, 1), (0, ids.MAX_TYPE + 1, 1),
    (0, 1, 0), (0, 1, ids.MAX_LOCAL + 1),
])
def test_compose_rejects_out_of_range_parts(shard: int, type_id: int, local: int) -> None:
    with pytest.raises(InvalidObjectId):
        ids.compose(shard, type_id, local)


@pytest.mark.parametrize("bad", [0, -5, 2**62, 2**64, 1 << 36, 3429 << 46])
def test_decompose_rejects_ids_no_object_can_have(bad: int) -> None:
    with pytest.raises(InvalidObjectId):
        ids.decompose(bad)
    with pytest.raises(InvalidObjectId):
        ids.shard_of(bad)


@pytest.mark.parametrize("bad", [True, 3.0, "241294492511762325", None])
def test_shard_of_rejects_what_is_not_an_integer(bad: object) -> None:
    with pytest.raises(InvalidObjectId, match="must be an integer"):
        ids.shard_of(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["abc", "", "1.5", "-3", " ", "0x10", "²", "١٢", "0",
                                  "9" * 19, "1" + "0" * 19, "7" * 5000, True])
def test_parse_id_rejects_what_is_not_an_id(text: str | bool) -> None:
    with pytest.raises(MalformedObjectId):
        ids.parse_id(text)


def test_parse_id_accepts_an_id_as_text_or_int() -> None:
    assert ids.parse_id(f" {GOLDEN} ") == GOLDEN == ids.parse_id(GOLDEN)


@pytest.mark.parametrize("value", [GOLDEN, str(GOLDEN)])
def test_parse_id_rejects_an_id_of_another_type(value: int | str) -> None:
    with pytest.raises(MalformedObjectId, match="not a board ID"):
        ids.parse_id(value, BOARD)


@pytest.mark.parametrize("value", [0, -1, ids.MAX_ID + 1,
                                   (3 << ids.SHARD_SHIFT) | 1,  # no type
                                   (3 << ids.SHARD_SHIFT) | (2 << ids.TYPE_SHIFT)])  # no local ID
def test_parse_id_rejects_ints_no_object_can_have(value: int) -> None:
    with pytest.raises(MalformedObjectId):
        ids.parse_id(value)


def test_expect_type_rejects_an_id_of_another_type() -> None:
    with pytest.raises(InvalidObjectId, match="not a board id"):
        ids.expect_type(GOLDEN, BOARD)


def test_unknown_type_number_is_a_clear_error() -> None:
    with pytest.raises(UnknownObjectType):
        ids.types.by_id(999)


def test_registering_a_clashing_type_fails() -> None:
    with pytest.raises(ValueError):
        ids.types.register(ids.ObjectType(1, "photo", "photos"))
