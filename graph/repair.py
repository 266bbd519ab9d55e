"""``graph verify`` and ``graph rebuild``: compare Redis with the edge log, restore it from the log.

Scopes: some vshards (or all of them), or one user. A vshard scope covers every key of those
vshards: the log rows of their followers and every row pointing at their users and boards.
A user scope covers every key of the user and of the user's boards, and the user's entries in
the keys of whoever the user follows (member by member). Rebuild rewrites each differing key
whole, in one transaction per batch, and recounts the overlap of boards a user scope touched.

Rebuild reads the log once at its start: run it when the scope is quiet (after a failover,
before opening writes), or verify again afterwards. Each rebuild is a ``graph.rebuild`` in the
operator audit log (a promotion's reconcile is part of the promotion's entry).

>>> verify({17}).clean
False
>>> rebuild({17}).keys_rewritten
3
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass

from auditlog.operations import operation
from graph import keys, logscan, lookup, projection, topology
from graph.differences import (
    Difference,
    VerifyReport,
    compare,
    member_difference,
    member_value,
)
from graph.events import Target
from graph.keys import Value
from graph.logscan import boards_of, rows_for_user, rows_for_vshards
from graph.projection import LogRows
from graph.store import admin
from graph.vshardmap import VShardMap
from graph.vshards import vshard_of

Progress = Callable[[int, int], None]
"""``progress(keys_done_now, keys_in_total)``."""
REWRITE_BATCH = 200


@dataclass(frozen=True)
class RebuildReport:
    """What ``graph rebuild`` changed, and the verify report it acted on."""

    verified: VerifyReport
    keys_rewritten: int
    members_fixed: int
    overlaps_recounted: int

    def to_json(self) -> dict[str, object]:
        return {"scope": self.verified.scope, "keys_rewritten": self.keys_rewritten,
                "members_fixed": self.members_fixed,
                "overlaps_recounted": self.overlaps_recounted,
                "differences_found": len(self.verified.differences)}


@dataclass
class _State:
    scope: str
    rows: LogRows
    owners: dict[int, int]
    expected: dict[str, Value]
    actual: dict[str, Value]
    members: list[Difference]
    member_values: dict[tuple[str, int], int | bool | None]
    mine: dict[str, Value]
    """What the user's own log rows imply (user scopes; empty for vshard scopes)."""

    def report(self) -> VerifyReport:
        differences = compare(self.expected, self.actual) + self.members
        checked = len(set(self.expected) | set(self.actual)) + len(self.member_values)
        return VerifyReport(self.scope, self.rows.total(), checked,
                            projection.orphans(self.rows, self.owners), differences)


def verify(vshards: Collection[int] | None = None) -> VerifyReport:
    """Every difference between Redis and the log in ``vshards`` (all when None)."""
    return _vshard_state(topology.read_fresh(), vshards).report()


def verify_user(user_id: int | str) -> VerifyReport:
    return _user_state(topology.read_fresh(), lookup.user_id(user_id)).report()


def rebuild(vshards: Collection[int] | None = None,
            progress: Progress | None = None) -> RebuildReport:
    """Restore ``vshards`` (all when None) from the log: rewrite every differing key."""
    with operation("graph.rebuild", _scope(vshards)) as done:
        current = topology.read_fresh()
        state = _vshard_state(current, vshards)
        report = state.report()
        rewritten = _rewrite(current, [d.key for d in report.differences], state.expected,
                             progress)
        rebuilt = RebuildReport(report, rewritten, 0, 0)
        done.result = rebuilt.to_json()
        return rebuilt


def rebuild_user(user_id: int | str, progress: Progress | None = None) -> RebuildReport:
    """Restore one user's keys, their boards' keys and their entries in others' keys."""
    with operation("graph.rebuild", f"user {user_id}") as done:
        user, current = lookup.user_id(user_id), topology.read_fresh()
        state = _user_state(current, user)
        _, rewritten, fixed, recounted = _restore(current, user, state, lambda _: True,
                                                  progress)
        rebuilt = RebuildReport(state.report(), rewritten, fixed, recounted)
        done.result = rebuilt.to_json()
        return rebuilt


def rebuild_followers(changes: dict[int, set[Target]],
                      vshards: Collection[int]) -> RebuildReport:
    """Restore, from the log, what the (fenced) ``vshards`` can be missing of the followers
    in ``changes`` (``follower → the targets it changed``): a promotion's reconcile of the
    edge log's tail. Each follower's own keys are rewritten where they live on ``vshards``;
    its entries in others' keys (those it follows or followed, and its changes' targets) are
    set member by member where the key or the follower lives on ``vshards``; the overlaps of
    the boards touched are recounted. Keys elsewhere, whose writers are not fenced, stay."""
    served, current = set(vshards), topology.read_fresh()
    differences: list[Difference] = []
    rows = checked = 0
    totals = [0, 0, 0]  # keys rewritten, members fixed, overlaps recounted
    for follower, targets in sorted(changes.items()):
        state = _follower_state(current, follower, targets)
        found, *counts = _restore(current, follower, state, _fenced(served, follower))
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        differences += found
        rows += state.rows.total()
        checked += len(state.expected) + len(state.member_values)
    scope = f"{len(changes)} followers of {_describe(served)}" if served else "nothing"
    return RebuildReport(VerifyReport(scope, rows, checked, 0, differences), *totals)


def _fenced(served: set[int], follower: int) -> Callable[[str], bool]:
    """Which keys a promotion's reconcile writes for ``follower``: all of them when the
    follower's own vshard is fenced (its writes wait), else those on fenced vshards."""
    home = vshard_of(follower) in served
    return lambda key: home or keys.vshard_of_key(key) in served


def _restore(current: VShardMap, user: int, state: _State, keep: Callable[[str], bool],
             progress: Progress | None = None) -> tuple[list[Difference], int, int, int]:
    """Write what a user scope's ``state`` found different, where ``keep(key)``: whole keys
    rewritten, the user's entries in others' keys set, the overlaps of the boards recounted.
    Returns the differences acted on and the three counts."""
    whole = [d for d in compare(state.expected, state.actual) if keep(d.key)]
    members = [d for d in state.members if keep(d.key)]
    boards = {board for board in _counterpart_boards(user, state)
              if keep(keys.board_key(board, keys.BOARD_OVERLAP))}
    return (whole + members,
            _rewrite(current, [d.key for d in whole], state.expected, progress),
            _fix_members(current, user, state.mine, members),
            _recount_overlaps(current, boards, state.owners))


def _vshard_state(current: VShardMap, vshards: Collection[int] | None) -> _State:
    wanted = None if vshards is None else set(vshards)
    rows = rows_for_vshards(wanted)
    owners = lookup.board_owners(rows.boards(), strict=False)
    expected = projection.within(projection.project(rows, owners), wanted)
    scope = "all" if wanted is None else _describe(wanted)
    return _State(scope, rows, owners, expected, _actual_of_vshards(current, wanted), [], {},
                  {})


def _actual_of_vshards(current: VShardMap, wanted: set[int] | None) -> dict[str, Value]:
    found: dict[str, Value] = {}
    for instance in current.masters():
        served = set(current.vshards_of(instance))
        served = served if wanted is None else served & wanted
        if served:
            names = _scan_names(instance, served, wanted is not None and len(served) <= 16)
            found.update(admin.read_values(instance, names))
    return found


def _scan_names(instance: str, served: set[int], per_vshard: bool) -> list[str]:
    patterns = [keys.vshard_pattern(v) for v in sorted(served)] if per_vshard \
        else [keys.vshard_pattern()]
    names = {name for pattern in patterns for name in admin.scan_keys(instance, pattern)}
    return sorted(name for name in names
                  if (parsed := keys.parse(name)) is not None and parsed.vshard in served)


def _user_state(current: VShardMap, user: int) -> _State:
    """Everything of one user: their keys and their boards' keys (from every row pointing at
    them, a scan of every shard), and their entries in others' keys."""
    boards = boards_of(user)
    rows = rows_for_user(user, boards)
    owners = lookup.board_owners(rows.boards() | set(boards), strict=False)
    owned = keys.user_keys(user) + [name for board in boards for name in keys.board_keys(board)]
    return _state_of(current, user, rows, _rows_from(rows, user), owners, owned,
                     projection.project(rows, owners), f"user {user}")


def _follower_state(current: VShardMap, user: int, targets: Collection[Target]) -> _State:
    """The user's follower side only: their own keys and their entries in the keys of what
    they follow, followed, or name in ``targets``; read from their own log rows (no scan of
    other shards)."""
    rows = logscan.rows_of(user)
    boards = {target for kind, target in targets if kind == "board"}
    owners = lookup.board_owners(rows.boards() | boards, strict=False)
    owned = [keys.user_key(user, kind) for kind in keys.FOLLOWER_SIDE_KINDS]
    return _state_of(current, user, rows, rows, owners, owned, None, f"follower {user}",
                     targets)


def _state_of(current: VShardMap, user: int, rows: LogRows, own_rows: LogRows,
              owners: dict[int, int], owned: list[str], everything: dict[str, Value] | None,
              scope: str, targets: Collection[Target] = ()) -> _State:
    """A user scope's state: the ``owned`` keys expected (from ``everything`` the rows imply,
    or from the user's own rows alone) and as Redis has them, and the user's entries in
    others' keys, as their own rows imply them and as Redis has them."""
    mine = projection.project(own_rows, owners)
    implied = mine if everything is None else everything
    expected = {name: implied[name] for name in owned if name in implied}
    actual = _read_by_home(current, owned)
    others = _counterpart_keys(user, mine, actual, owners, set(owned), targets)
    values = _read_members_by_home(current, [(name, user) for name in others])
    members = [d for name in others
               if (d := member_difference(name, user, member_value(mine.get(name), user),
                                          values[(name, user)])) is not None]
    return _State(scope, rows, owners, expected, actual, members, values, mine)


def _rows_from(rows: LogRows, user: int) -> LogRows:
    return LogRows({r for r in rows.user_follows if r[0] == user},
                   {r for r in rows.board_follows if r[0] == user},
                   {r for r in rows.board_unfollows if r[0] == user})


def _counterpart_keys(user: int, mine: dict[str, Value], actual: dict[str, Value],
                      owners: dict[int, int], owned: set[str],
                      targets: Collection[Target] = ()) -> list[str]:
    """Others' keys that hold (or should hold) an entry for ``user``: those of what Redis or
    the log says the user follows, and of ``targets``."""
    followed = set(_members(actual.get(keys.user_key(user, keys.FOLLOWING))))
    followed |= {target for kind, target in targets if kind == "user"}
    implicit = set(_members(actual.get(keys.user_key(user, keys.IMPLICIT_FOLLOWING))))
    boards = set(_members(actual.get(keys.user_key(user, keys.BOARDS_FOLLOWED))))
    boards |= set(_members(actual.get(keys.user_key(user, keys.BOARDS_UNFOLLOWED))))
    boards |= {target for kind, target in targets if kind == "board"}
    names = set(mine) - owned
    names |= {keys.user_key(t, kind) for t in followed | implicit
              for kind in (keys.FOLLOWERS, keys.IMPLICIT_FOLLOWERS)}
    names |= {keys.board_key(b, kind) for b in boards
              for kind in (keys.BOARD_FOLLOWERS, keys.BOARD_UNFOLLOWERS)}
    names |= {keys.user_key(owners[b], keys.IMPLICIT_FOLLOWERS) for b in boards if b in owners}
    return sorted(name for name in names - owned if _holds_members(name))


def _holds_members(name: str) -> bool:
    parsed = keys.parse(name)
    return parsed is not None and parsed.type != "count"


def _members(value: Value | None) -> list[int]:
    return list(value) if isinstance(value, dict | set) else []


def _counterpart_boards(user: int, state: _State) -> set[int]:
    boards = {row[1] for row in (*state.rows.board_follows, *state.rows.board_unfollows)
              if row[0] == user}
    return boards | {parsed.object_id for name, _ in state.member_values
                     if (parsed := keys.parse(name)) is not None and parsed.owner == "b"}


def _home(current: VShardMap, name: str) -> str:
    vshard = keys.vshard_of_key(name)
    assert vshard is not None
    return current.master_for(vshard)


def _read_by_home(current: VShardMap, names: list[str]) -> dict[str, Value]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for name in names:
        grouped[_home(current, name)].append(name)
    found: dict[str, Value] = {}
    for instance, group in grouped.items():
        found.update(admin.read_values(instance, group))
    return found


def _read_members_by_home(current: VShardMap, pairs: list[tuple[str, int]],
                          ) -> dict[tuple[str, int], int | bool | None]:
    grouped: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for pair in pairs:
        grouped[_home(current, pair[0])].append(pair)
    found: dict[tuple[str, int], int | bool | None] = {}
    for instance, group in grouped.items():
        found.update(zip(group, admin.read_members(instance, group), strict=True))
    return found


def _rewrite(current: VShardMap, names: list[str], expected: dict[str, Value],
             progress: Progress | None) -> int:
    grouped: dict[str, list[str]] = defaultdict(list)
    for name in names:
        grouped[_home(current, name)].append(name)
    for instance, group in grouped.items():
        for start in range(0, len(group), REWRITE_BATCH):
            batch = group[start:start + REWRITE_BATCH]
            admin.replace_keys(instance, batch,
                               {name: expected[name] for name in batch if name in expected})
            if progress is not None:
                progress(len(batch), len(names))
    return len(names)


def _fix_members(current: VShardMap, user: int, mine: dict[str, Value],
                 members: list[Difference]) -> int:
    for difference in members:
        want = member_value(mine.get(difference.key), user)
        admin.set_member(_home(current, difference.key), difference.key, user, want)
    return len(members)


def _recount_overlaps(current: VShardMap, boards: set[int], owners: dict[int, int]) -> int:
    known = sorted(board for board in boards if board in owners)
    for board in known:
        admin.recount_overlap(
            _home(current, keys.board_key(board, keys.BOARD_FOLLOWERS)),
            keys.board_key(board, keys.BOARD_FOLLOWERS),
            keys.user_key(owners[board], keys.FOLLOWERS),
            keys.board_key(board, keys.BOARD_OVERLAP))
    return len(known)


def _scope(vshards: Collection[int] | None) -> str:
    if vshards is None:
        return "all vshards"
    return _describe(set(vshards)) if vshards else "no vshards"


def _describe(vshards: set[int]) -> str:
    ordered = sorted(vshards)
    if len(ordered) == 1:
        return f"vshard {ordered[0]}"
    return f"{len(ordered)} vshards ({ordered[0]}..{ordered[-1]})"
