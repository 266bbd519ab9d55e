"""Celebrity boards: pulled into feeds when they are read, instead of pushed on every pin.

A board followed (explicitly and through its owner) by more than ``PULL_ABOVE`` users is not
fanned out: a new pin of it costs no feed writes at all. Reading a feed merges the newest pins
of the "pulled" boards the reader follows (:mod:`feed.merge`) with the pushed entries.

The pulled boards are a watched ZooKeeper node, ``<ZK_ROOT>/feed_pulled``: ``board → {state,
since_us}``. Every process reads its watched copy; the fanout planner decides on a fresh read,
when a pin of the board is planned, and changes the node by compare-and-set:

- **push → pull**: the board's follower count is above the threshold. From now on its pins are
  not fanned out; the entries pushed before stay, and reads skip the duplicates.
- **pull → drain**: the count fell to the threshold or below. Pins are pushed again from now
  on, and a drain job (:func:`feed.planning.drain_board`) writes the board's newest ``CAP`` pins
  into every follower's feed, as a follow does; reads still merge the board meanwhile.
- **drain → push**: the drain job is done; the board leaves the node.

A pin skipped while the board was ``pull`` was committed before the planner read that state,
so the drain, which starts after the change to ``drain``, finds it. Nothing is lost and, since
feed entries are cells keyed by the pin, nothing is shown twice.

>>> decide(board_id, created_us)
Decision(push=False, drain=False)
>>> followed_pulled(alice)
[board_id]
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Literal

from coordination.documents import WatchedDocument, cache_file
from coordination.exceptions import CoordinationUnavailable, DocumentConflict
from feed import sources
from feed.conf import pull_above

log = logging.getLogger("pinsite.feed")
State = Literal["pull", "drain"]
PULL: State = "pull"
DRAIN: State = "drain"
CONFLICT_RETRIES = 20


@dataclass(frozen=True)
class Pulled:
    """A board that is pulled (or being drained back to push), since ``since_us``."""

    state: State
    since_us: int


@dataclass(frozen=True)
class PulledBoards:
    """Every pulled board, at a ZooKeeper node version."""

    boards: dict[int, Pulled] = field(default_factory=dict)
    version: int = -1

    def with_board(self, board_id: int, pulled: Pulled | None) -> PulledBoards:
        boards = dict(self.boards)
        if pulled is None:
            boards.pop(board_id, None)
        else:
            boards[board_id] = pulled
        return PulledBoards(boards, self.version)

    @staticmethod
    def dumps(value: PulledBoards) -> bytes:
        return json.dumps({str(board): {"state": pulled.state, "since_us": pulled.since_us}
                           for board, pulled in sorted(value.boards.items())}).encode()

    @staticmethod
    def loads(raw: bytes, version: int) -> PulledBoards:
        found = json.loads(raw or b"{}")
        return PulledBoards({int(board): Pulled(item["state"], int(item["since_us"]))
                             for board, item in found.items()}, version)


@dataclass(frozen=True)
class Decision:
    """What the planner does with a new pin: push it to the followers or not, and whether it
    just switched the board back to push (and must start the drain)."""

    push: bool
    drain: bool = False


@cache
def document() -> WatchedDocument[PulledBoards]:
    """The watched ``<ZK_ROOT>/feed_pulled`` node (one per process)."""
    return WatchedDocument("feed_pulled", cache_file("feed_pulled"),
                           decode=PulledBoards.loads, encode=PulledBoards.dumps,
                           init_command="manage.py feed init")


def init() -> bool:
    """Create the (empty) node unless it exists; True when created."""
    return document().create(PulledBoards())


def current() -> dict[int, Pulled]:
    """The pulled boards as this process knows them: the watched copy, else the last known
    good file; none when neither exists. With ZooKeeper down a process waits out its connect
    timeout once (:meth:`coordination.zookeeper.ZooKeeper.connected_client`), so feed reads
    do not queue up behind it."""
    try:
        return document().get().boards
    except CoordinationUnavailable:
        return {}


def fresh() -> dict[int, Pulled]:
    """The pulled boards read from ZooKeeper now (:class:`CoordinationUnavailable` if it cannot
    be)."""
    return document().read_fresh().boards


def decide(board_id: int, created_us: int) -> Decision:
    """Push a new pin of ``board_id`` or not, switching the board's mode when its follower
    count crossed the threshold: one graph read for a board below the threshold that this
    process does not know as pulled, else a fresh read of the node too; a switch is a
    compare-and-set on that read, so of two planners racing only one switches (and drains).
    Without a readable node the pin is pushed (always correct, only dearer)."""
    threshold = pull_above()
    count = sources.board_follower_count(board_id)
    if count is None:  # the board is gone; nothing to deliver
        return Decision(push=False)
    above = threshold is not None and count > threshold
    if not above and board_id not in current():
        return Decision(push=True)
    for _ in range(CONFLICT_RETRIES):
        try:
            now = document().read_fresh()
        except CoordinationUnavailable:
            log.warning("the pulled boards cannot be read; pushing pin of board %d", board_id)
            return Decision(push=True)
        entry = now.boards.get(board_id)
        if above and (entry is None or entry.state == DRAIN):
            target, decision = Pulled(PULL, created_us), Decision(push=False)
        elif not above and entry is not None and entry.state == PULL:
            target, decision = Pulled(DRAIN, entry.since_us), Decision(push=True, drain=True)
        else:
            return Decision(push=not above)
        try:
            document().update(partial(PulledBoards.with_board, board_id=board_id,
                                      pulled=target), current=now)
        except DocumentConflict:
            continue
        log.info("board %d has %d followers: its pins are %s from now on", board_id, count,
                 "pulled" if above else "pushed again (draining)")
        return decision
    raise DocumentConflict(f"{document().path} kept changing; try again")


def finish_drain(board_id: int) -> bool:
    """Take a drained board off the node, unless it was pulled again meanwhile; True if it
    left."""
    left = False

    def change(now: PulledBoards) -> PulledBoards:
        nonlocal left
        entry = now.boards.get(board_id)
        left = entry is not None and entry.state == DRAIN
        return now.with_board(board_id, None) if left else now

    _update(change)
    return left


def forget(board_id: int) -> None:
    """Take a deleted board off the node if this process's copy has it (a ZooKeeper write
    only then)."""
    if board_id in current():
        switch(board_id, None)


def switch(board_id: int, pulled: Pulled | None) -> None:
    """Set (or with None, remove) one board's entry (compare-and-set, retried on races)."""
    _update(lambda now: now.with_board(board_id, pulled))


def is_pulled(board_id: int) -> bool:
    """Whether new pins of the board are not pushed now (watched copy)."""
    entry = current().get(board_id)
    return entry is not None and entry.state == PULL


def followed_pulled(user_id: int, pulled: dict[int, Pulled] | None = None) -> list[int]:
    """The pulled (or draining) boards ``user_id`` follows, from the watched copy: one graph
    round trip per ``MAX_BATCH`` pulled boards, none when no board is pulled."""
    boards = sorted(current() if pulled is None else pulled)
    return sorted(sources.boards_followed_among(user_id, boards)) if boards else []


def _update(change: Callable[[PulledBoards], PulledBoards]) -> None:
    document().update_or_create(change, PulledBoards(), attempts=CONFLICT_RETRIES)
