"""Merging newest-first feed entries from several streams into one exact page.

A page of the following feed can draw on three streams: the pushed entries of the feed's row,
the pins of the pulled (celebrity) boards the reader follows (:mod:`feed.pulled`), and, past
the newest ``CAP`` entries the row serves, the pins of every followed board (a k-way merge
across shards). Each stream is *exact* for qualifiers below its ``below`` (it holds every entry
there); the merge takes entries in qualifier order, drops duplicates (an entry is its
qualifier: creation time and pin ID), and stops at the lowest ``below``, so a page never skips
an entry that a stream has not read yet. The cursor of the next page is the qualifier of the
last entry shown, the same cursor whichever streams the page drew on.

>>> merge([Stream(pushed, None), board_stream([board], None, 11)], after=None, count=11)
([Entry(...), ...], False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from feed import sources
from feed.schema import Entry


@dataclass(frozen=True)
class Stream:
    """Entries of one source (any order), and the qualifier below which it holds every entry
    of its source after the cursor; ``below`` None: it holds them all."""

    entries: list[Entry]
    below: bytes | None


def just_after(qualifier: bytes) -> bytes:
    """The least key above ``qualifier``: a stream exact through ``qualifier`` has this
    ``below`` (a 17-byte key sorts between ``qualifier`` and every greater 16-byte one)."""
    return qualifier + b"\x00"


def merge(streams: Sequence[Stream], after: bytes | None, count: int,
          ) -> tuple[list[Entry], bool]:
    """The first ``count`` entries after ``after`` over all streams, in feed order, each
    once; and whether fewer came back only because some stream was not read deep enough (the
    caller reads the streams deeper and merges again)."""
    bound = min((stream.below for stream in streams if stream.below is not None), default=None)
    found: dict[bytes, Entry] = {}
    for stream in streams:
        for entry in stream.entries:
            qualifier = entry.qualifier
            if (after is None or qualifier > after) and (bound is None or qualifier < bound):
                found[qualifier] = entry
    ordered = [found[qualifier] for qualifier in sorted(found)[:count]]
    return ordered, len(ordered) < count and bound is not None


def board_stream(board_ids: Sequence[int], after: bytes | None, per_board: int) -> Stream:
    """The pins of ``board_ids`` after the cursor ``after``: ``per_board`` of each board at
    most (one query per host, or the list cache), exact down to the oldest creation time
    that every board still had more of.

    A board's list runs newest first with ties by descending pin ID, the feed ties by
    ascending pin ID: of a board read to its ``per_board`` limit, the entries sharing the
    oldest creation time read may be incomplete, so they are left out and the board is exact
    only above that time."""
    if not board_ids:
        return Stream([], None)
    at_or_before = None if after is None else Entry.from_qualifier(after).created_us
    found = sources.board_heads(board_ids, per_board, at_or_before)
    entries: list[Entry] = []
    below: bytes | None = None
    for board in board_ids:
        pins = found.get(board, [])
        if len(pins) < per_board:  # the board's whole list from the cursor on
            entries += pins
            continue
        oldest = pins[-1].created_us
        entries += [entry for entry in pins if entry.created_us > oldest]
        edge = Entry(created_us=oldest, pin_id=0).qualifier
        below = edge if below is None else min(below, edge)
    if after is not None:
        entries = [entry for entry in entries if entry.qualifier > after]
    return Stream(entries, below)
