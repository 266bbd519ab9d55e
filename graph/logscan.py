"""Reading the edge log for a scope: some vshards, every vshard, or one user.

The log is stored by follower, so a followee's side (a user's followers, a board's
followers) can only be read by scanning every shard's tables for rows that point at it:
operator work (verify, rebuild), never a request path.

>>> rows = rows_for_vshards({17})
>>> len(rows.user_follows)
42
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from graph.edgelog import Row, rows_of_follower
from graph.projection import LogRows
from graph.tables import USER_FOLLOWS_BOARD, USER_FOLLOWS_USER, USER_UNFOLLOWS_BOARD
from graph.vshards import vshard_of_shard
from pins.types import USER_HAS_BOARDS
from sharding import mappings
from sharding.topology import current_map

TABLES = {"user_follows": USER_FOLLOWS_USER, "board_follows": USER_FOLLOWS_BOARD,
          "board_unfollows": USER_UNFOLLOWS_BOARD}


def open_shards() -> list[int]:
    return current_map().open_shards()


def rows_for_vshards(vshards: Collection[int] | None) -> LogRows:
    """Rows from followers in ``vshards`` and rows pointing at users or boards in them
    (every row when ``vshards`` is None)."""
    shards = open_shards()
    if vshards is None:
        return _rows(shards)
    wanted = [s for s in shards if vshard_of_shard(s) in set(vshards)]
    rows = _rows(wanted)
    if wanted:
        rows.update(_rows(shards, to_shards=wanted))
    return rows


def rows_of(user: int) -> LogRows:
    """The user's own rows (the follower's side), from the user's shard alone."""
    return LogRows(**{name: set(rows_of_follower(table, user))
                      for name, table in TABLES.items()})


def rows_for_user(user: int, boards: Sequence[int]) -> LogRows:
    """The user's own rows and every row pointing at the user or one of ``boards``."""
    rows = rows_of(user)
    rows.update(_rows(open_shards(), to_ids=[user, *boards]))
    return rows


def boards_of(user: int) -> list[int]:
    """The user's boards, from the content domain's ``user_has_boards`` list."""
    return [entry.to_id for entry in mappings.iterate(USER_HAS_BOARDS, user)]


def _rows(shards: Sequence[int], to_ids: Sequence[int] = (), to_shards: Sequence[int] = (),
          ) -> LogRows:
    found: dict[str, set[Row]] = {name: set() for name in TABLES}
    for name, table in TABLES.items():
        for shard in shards:
            found[name].update(mappings.scan(table, shard, to_ids=to_ids, to_shards=to_shards))
    return LogRows(**found)
