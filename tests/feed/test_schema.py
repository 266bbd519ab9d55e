"""The row and column encoding of the feed (pure, no servers)."""

from __future__ import annotations

import pytest

from feed.exceptions import InvalidFeedInput
from feed.schema import Entry, decode_cursor, encode_cursor, newest_first, row_key, user_of


def test_qualifiers_sort_newest_first() -> None:
    old, new = Entry(1_000, 9), Entry(2_000, 1)
    assert new.qualifier < old.qualifier
    assert newest_first([old, new]) == [new, old]


def test_entries_of_the_same_time_sort_by_pin_id() -> None:
    assert newest_first([Entry(5, 2), Entry(5, 1)]) == [Entry(5, 1), Entry(5, 2)]


def test_a_qualifier_is_reverse_time_then_pin_id_in_16_bytes() -> None:
    entry = Entry(created_us=1_718_000_000_000_000, pin_id=241294492511762325)
    assert len(entry.qualifier) == 16
    assert entry.qualifier[8:] == (241294492511762325).to_bytes(8, "big")
    assert Entry.from_qualifier(entry.qualifier) == entry
    assert Entry.from_column(entry.column) == entry and entry.column.startswith(b"feed:")


def test_a_row_key_is_the_user_id_in_8_big_endian_bytes() -> None:
    assert row_key(258) == b"\x00" * 6 + b"\x01\x02"
    assert user_of(row_key(2814955925536769)) == 2814955925536769


def test_a_cursor_round_trips_and_rejects_anything_else() -> None:
    qualifier = Entry(7, 8).qualifier
    assert decode_cursor(encode_cursor(qualifier)) == qualifier
    for bad in ("", "!!", encode_cursor(b"short")):
        with pytest.raises(InvalidFeedInput):
            decode_cursor(bad)
