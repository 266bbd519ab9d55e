"""Feed rows in terms of entries: the encoding layer over :mod:`feed.store.cells`.

Every call names the cluster it works on; the actors write each cluster on its own queue, and
reads pick a cluster through :mod:`feed.speculative`.

>>> add_entries("primary", {alice: [Entry(created_us, pin_id)]}, timestamp=created_us)
>>> read_feed("primary", alice).entries[0].pin_id == pin_id
True
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from feed.conf import cap
from feed.schema import (
    COUNTER,
    FEED,
    FEED_PREFIX,
    HORIZON_PREFIX,
    META,
    Entry,
    decode_count,
    horizon_column,
    horizon_of,
    row_key,
    user_of,
)
from feed.store import cells
from feed.store.pools import Cluster


@dataclass(frozen=True)
class FeedRow:
    """One stored feed: entries newest first, the newest horizon (qualifier) if any, every
    horizon column, and the writes counted since the last trim."""

    entries: list[Entry]
    horizon: bytes | None
    horizon_columns: list[bytes]
    writes: int

    def complete_count(self) -> int:
        """Entries newer than the horizon: the part of the feed known to be complete."""
        if self.horizon is None:
            return len(self.entries)
        return sum(1 for entry in self.entries if entry.qualifier < self.horizon)

    def served(self) -> tuple[list[Entry], bytes | None]:
        """The entries reads take from this row (:func:`served_length`) and, when it is
        truncated, the oldest of them (``b""`` if none): the feed goes on from the boards
        below it. None when the row holds the whole feed."""
        length, truncated = served_length([entry.qualifier for entry in self.entries],
                                          self.horizon)
        served = self.entries[:length]
        if not truncated:
            return served, None
        return served, served[-1].qualifier if served else b""

    def is_short(self) -> bool:
        """A trimmed feed whose complete part fell below the cap (removals): due a rebuild."""
        return self.horizon is not None and self.complete_count() < cap()


def read_feed(cluster: Cluster, user_id: int) -> FeedRow:
    """The whole stored feed of a user on ``cluster`` (one row read)."""
    cells_found = cells.read_row(cluster, row_key(user_id), [FEED, META])
    return _feed_row(cells_found)


def read_feeds(cluster: Cluster, user_ids: Sequence[int]) -> dict[int, FeedRow]:
    """The whole stored feeds of several users on ``cluster`` (one multi-row read); a user
    without a row has an empty one."""
    found = cells.read_rows(cluster, [row_key(user) for user in user_ids], [FEED, META])
    return {user: _feed_row(found.get(row_key(user), {})) for user in user_ids}


def read_entries(cluster: Cluster, user_id: int) -> list[Entry]:
    """Only the entries of a user's feed, newest first (one row read of family ``feed``)."""
    found = cells.read_row(cluster, row_key(user_id), [FEED])
    return [Entry.from_column(column) for column in sorted(found)]


@dataclass(frozen=True)
class Window:
    """Entries a page may take from a stored feed and, when it holds fewer than it was asked
    for, where the row stops being the whole feed: ``boundary`` is the oldest entry served
    (``b""`` when none is) if older entries of the feed may be missing from the row, None when
    the row holds all of it. A full window has no boundary: nothing below it is read."""

    entries: list[Entry]
    boundary: bytes | None


def read_window(cluster: Cluster, user_id: int, after: bytes | None, count: int) -> Window:
    """Up to ``count`` served entries after the qualifier ``after``, newest first. Served: the
    newest ``CAP`` entries, and of a trimmed row only those newer than its horizon (the
    complete part).

    One row read. A first page of a row known to be long (:func:`reads_head`) reads only the
    row's newest ``count`` entries and its ``meta`` cells (:func:`cells.read_head`): they are
    all it can serve, whatever the row's length. Other reads take the whole row, and note
    whether it is long: a later page needs it whole (the ``CAP`` rule counts from the row's
    newest entry), and a short row costs less read whole than by its head."""
    row, most = row_key(user_id), cap()
    head = after is None and count <= most and reads_head(user_id)
    if head:
        found = cells.read_head(cluster, row, FEED, count, also=[META])
    else:
        found = cells.read_row(cluster, row, [FEED, META])
    columns = sorted(column for column in found if column.startswith(FEED_PREFIX))
    if not head or len(columns) < count:
        _note_length(user_id, len(columns), long=most // 2)
    marks = sorted(column for column in found if column.startswith(HORIZON_PREFIX))
    length, truncated = served_length(
        columns, FEED_PREFIX + horizon_of(marks[0]) if marks else None)
    served = columns[:length]
    start = 0 if after is None else bisect_right(served, FEED_PREFIX + after)
    entries = [Entry.from_column(column) for column in served[start:start + count]]
    if len(entries) == count or not truncated:
        return Window(entries, None)
    return Window(entries, served[-1][len(FEED_PREFIX):] if served else b"")


LONG_ROWS_KEPT = 100_000
_long_rows: set[int] = set()


def reads_head(user_id: int) -> bool:
    """Whether a first page of the user's feed reads only the row's head in this process: its
    row held more than half the cap when last read whole. A whole row costs one Thrift call
    and a head four, but the whole row's cost grows with its length; they cost the same at
    about 400 entries (BENCHMARKS.md, "A first page reads the row's head"). A hint only: both
    reads give the same window."""
    return user_id in _long_rows


def _note_length(user_id: int, entries: int, long: int) -> None:
    if entries <= long:
        _long_rows.discard(user_id)
        return
    if len(_long_rows) >= LONG_ROWS_KEPT:
        _long_rows.clear()  # forgetting costs a whole read per user, never a wrong page
    _long_rows.add(user_id)


def served_length(keys: Sequence[bytes], horizon: bytes | None) -> tuple[int, bool]:
    """How many of a row's entries, sorted newest first (as ``keys``, columns or qualifiers),
    the row serves: the newest ``CAP``, and of a trimmed row only those newer than its
    ``horizon`` (in the same form); and whether the row is *truncated*, so that older entries
    of the feed may be missing from it."""
    length = min(len(keys), cap())
    if horizon is not None:
        length = bisect_left(keys, horizon, 0, length)
    return length, horizon is not None or len(keys) > length


def written_at(cluster: Cluster, user_id: int, entry: Entry) -> int | None:
    """The cell timestamp of ``entry`` in the user's feed (who wrote it: a delivery stamps the
    pin's creation, a follow its follow time, a rebuild or a drain the time it ran); None when
    the feed does not hold it."""
    return cells.cell_time(cluster, row_key(user_id), entry.column)


def below_served(qualifier: bytes, boundary: bytes | None) -> bool:
    """Whether an entry at ``qualifier`` is older than the part a truncated row serves
    (``boundary`` as :meth:`FeedRow.served` gives it): reads take it from its board."""
    return boundary is not None and (not boundary or qualifier > boundary)


def read_horizons(cluster: Cluster, user_ids: Sequence[int]) -> dict[int, bytes]:
    """The newest horizon of each of ``user_ids`` that has one (one multi-row read)."""
    found = cells.read_rows(cluster, [row_key(user) for user in user_ids], [META])
    horizons = {}
    for row, columns in found.items():
        marks = sorted(horizon_of(c) for c in columns if c.startswith(HORIZON_PREFIX))
        if marks:
            horizons[user_of(row)] = marks[0]
    return horizons


def users_holding(cluster: Cluster, user_ids: Sequence[int], entry: Entry,
                  chunk: int = 1000) -> set[int]:
    """Those of ``user_ids`` whose feed holds ``entry`` (multi-row reads of that one column)."""
    holding: set[int] = set()
    for start in range(0, len(user_ids), chunk):
        rows = [row_key(user) for user in user_ids[start:start + chunk]]
        found = cells.read_rows(cluster, rows, [entry.column])
        holding.update(user_of(row) for row, columns in found.items() if entry.column in columns)
    return holding


def add_entries(cluster: Cluster, entries: Mapping[int, Iterable[Entry]], timestamp: int) -> None:
    """Put entries into users' feeds (user → entries) with one cell timestamp."""
    cells.write(cluster, _columns(entries), {}, timestamp)


def add_entry(cluster: Cluster, user_ids: Sequence[int], entry: Entry, timestamp: int) -> None:
    """Put one entry into many feeds (a fanout chunk), in one batch."""
    cells.write_column(cluster, [row_key(user) for user in user_ids], entry.column, timestamp)


def remove_entry(cluster: Cluster, user_ids: Sequence[int], entry: Entry,
                 timestamp: int) -> None:
    """Delete one entry from many feeds: masks every put of it at or below ``timestamp``."""
    cells.write_column(cluster, [row_key(user) for user in user_ids], entry.column, timestamp,
                       delete=True)


@dataclass(frozen=True)
class Change:
    """A change of one feed (see :func:`change_feeds`)."""

    add: Iterable[Entry] = ()
    remove: Iterable[Entry] = ()
    horizons: Iterable[bytes] = ()
    drop_horizons: Iterable[bytes] = ()


def change_feed(cluster: Cluster, user_id: int, timestamp: int, *, add: Iterable[Entry] = (),
                remove: Iterable[Entry] = (), horizons: Iterable[bytes] = (),
                drop_horizons: Iterable[bytes] = ()) -> None:
    """Change one feed in one call at ``timestamp``: put ``add``, record ``horizons``
    (qualifiers), then delete ``remove`` and the ``drop_horizons`` columns."""
    change_feeds(cluster, {user_id: Change(add, remove, horizons, drop_horizons)}, timestamp)


def change_feeds(cluster: Cluster, changes: Mapping[int, Change], timestamp: int) -> None:
    """Change several feeds (user → :class:`Change`) in one call at ``timestamp``, as
    :func:`change_feed` changes one (every row's puts are applied before the deletes)."""
    puts, deletes = {}, {}
    for user_id, change in changes.items():
        row = row_key(user_id)
        puts[row] = ([entry.column for entry in change.add]
                     + [horizon_column(q) for q in change.horizons])
        deletes[row] = [entry.column for entry in change.remove] + list(change.drop_horizons)
    cells.write(cluster, puts, deletes, timestamp)


def delete_feed(cluster: Cluster, user_id: int, timestamp: int) -> None:
    """Delete a user's whole feed row (entries, horizons, counters) up to ``timestamp``."""
    cells.delete_row(cluster, row_key(user_id), timestamp)


def count_writes(cluster: Cluster, counts: Mapping[int, int]) -> dict[int, int]:
    """Add to the users' write counters and return the new values: one ``atomicIncrement``
    for a single user, else one ``incrementRows`` plus one multi-row read of the counters."""
    if len(counts) == 1:
        [(user, amount)] = counts.items()
        return {user: cells.add_to_counter(cluster, row_key(user), COUNTER, amount)}
    by_amount: dict[int, list[bytes]] = {}
    for user, amount in counts.items():
        by_amount.setdefault(amount, []).append(row_key(user))
    for amount, rows in by_amount.items():
        cells.add_to_counters(cluster, rows, COUNTER, amount)
    return writes_counted(cluster, list(counts))


def writes_counted(cluster: Cluster, user_ids: Sequence[int]) -> dict[int, int]:
    """The write counters of ``user_ids`` (one multi-row read; users without one are absent)."""
    found = cells.read_rows(cluster, [row_key(user) for user in user_ids], [COUNTER])
    return {user_of(row): decode_count(columns.get(COUNTER)) for row, columns in found.items()}


def reset_writes(cluster: Cluster, user_id: int, seen: int) -> bool:
    """Zero a user's write counter if it still holds ``seen``, the writes a trim or a rebuild
    read with the row; False when writes were counted (or taken off by another trim) since."""
    return cells.reset_counter(cluster, row_key(user_id), COUNTER, seen)


def _columns(entries: Mapping[int, Iterable[Entry]]) -> dict[bytes, list[bytes]]:
    return {row_key(user): [entry.column for entry in items] for user, items in entries.items()}


def _feed_row(found: Mapping[bytes, bytes]) -> FeedRow:
    entries, marks = [], []
    for column in sorted(found):
        if column.startswith(FEED_PREFIX):
            entries.append(Entry.from_column(column))
        elif column.startswith(HORIZON_PREFIX):
            marks.append(column)
    return FeedRow(entries=entries, horizon=horizon_of(marks[0]) if marks else None,
                   horizon_columns=marks, writes=decode_count(found.get(COUNTER)))
