"""The merge of feed streams (pure): order, duplicates, cursors and exactness bounds."""

from __future__ import annotations

import random

from feed.merge import Stream, just_after, merge
from feed.schema import Entry, newest_first


def entries(*pairs: tuple[int, int]) -> list[Entry]:
    return [Entry(created_us=created, pin_id=pin) for created, pin in pairs]


def test_streams_merge_in_feed_order_each_entry_once() -> None:
    pushed = entries((90, 1), (70, 2), (50, 3))
    pulled = entries((80, 4), (70, 2), (60, 5))
    found, short = merge([Stream(pushed, None), Stream(pulled, None)], None, 10)
    assert [entry.pin_id for entry in found] == [1, 4, 2, 5, 3] and not short


def test_ties_of_one_time_order_by_ascending_pin() -> None:
    found, _ = merge([Stream(entries((50, 9), (50, 3)), None),
                      Stream(entries((50, 5)), None)], None, 10)
    assert [entry.pin_id for entry in found] == [3, 5, 9]


def test_the_cursor_excludes_itself_and_everything_newer() -> None:
    stream = Stream(entries((90, 1), (80, 2), (70, 3)), None)
    after = Entry(80, 2).qualifier
    found, _ = merge([stream], after, 10)
    assert [entry.pin_id for entry in found] == [3]


def test_nothing_is_taken_below_a_streams_exact_bound() -> None:
    full = Stream(entries((90, 1), (60, 2), (30, 3)), None)
    partial = Stream(entries((80, 4)), Entry(created_us=70, pin_id=0).qualifier)
    found, short = merge([full, partial], None, 10)
    assert [entry.pin_id for entry in found] == [1, 4]  # (60, 2) waits for a deeper read
    assert short


def test_a_full_page_within_the_bounds_is_not_short() -> None:
    pushed = entries((90, 1), (80, 2))
    found, short = merge([Stream(pushed, just_after(pushed[-1].qualifier))], None, 2)
    assert [entry.pin_id for entry in found] == [1, 2] and not short


def test_just_after_sorts_between_a_qualifier_and_the_next() -> None:
    older, newer = Entry(10, 1).qualifier, Entry(10, 2).qualifier
    assert older < just_after(older) < newer


def test_paging_random_streams_by_cursor_gives_the_sorted_union() -> None:
    rng = random.Random(5)
    pool = entries(*{(rng.randrange(50), rng.randrange(1, 40)) for _ in range(120)})
    streams = [Stream([e for e in pool if rng.random() < 0.5], None) for _ in range(3)]
    union = newest_first(list({e for s in streams for e in s.entries}))
    shown: list[Entry] = []
    after = None
    while True:
        page, _ = merge(streams, after, 7)
        if not page:
            break
        shown += page
        after = page[-1].qualifier
    assert shown == union
