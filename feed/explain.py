""""Why is this pin in my feed?" and "why is it not?", answered from the records.

For a pinner and a pin, :func:`explain` gathers what each record says, as a list of
:class:`Reason` (each with its source and time), and whether the pin is in the pinner's
following feed as it is read:

* the pin (``pins``): it exists, on which board, created when; or it was deleted (the
  events journal's ``pin_deleted``, while the journal keeps it);
* the follow (``edge_log``): the board followed one by one since T, or through its owner since
  T; or unfollowed at T; or not followed (and, from the journal, the unfollow of its owner);
* the fanout (``outbox``): the ``pin_created`` event and its outbox row; a fanout to a cluster
  still waiting for chunks (``fanout``), or a delivery that exhausted its retries
  (``dead_letters``); a pulled board, whose pins are merged at read (``pulled``);
* each cluster's row (``feed:primary``, ``feed:standby``): the entry served, and who wrote it
  by its cell timestamp (a delivery stamps the pin's creation, a follow its follow time, a
  rebuild or a drain the time it ran); or trimmed past the cap; or missing; or present on
  the standby only.

>>> found = explain(alice, pin_id)
>>> found.present, [reason.code for reason in found.reasons]
(True, ['pin', 'followed_through_owner', 'pin_created', 'delivered', 'delivered'])
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from events import journal
from feed import observe, pulled, queues, sources, storage
from feed.exceptions import FeedError
from feed.schema import Entry
from feed.sources import FollowedBoard, LoggedBoards
from feed.store.pools import CLUSTERS, Cluster
from graph.events import FOLLOW_CHANGED
from pins.domain import Pin
from pins.events import PIN_CREATED, PIN_DELETED
from sharding.ids import shard_of
from toolkit.clock import iso_time
from toolkit.queue import QueueUnavailable, dead_letters

RECORDED_WITHIN_US = 60_000_000
"""A pin's ``pin_created`` event is recorded in the pin's own transaction: well within this of
its creation time."""
DEAD_LETTERS_READ = 1000
"""Dead letters peeked per queue when a delivery is missing."""


@dataclass(frozen=True)
class Reason:
    """One record's part of the answer: ``code`` (machine-readable), where it comes from,
    what it says, and when (µs), with the record's details."""

    code: str
    source: str
    text: str
    time_us: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "source": self.source, "text": self.text,
                "time": _iso(self.time_us), "time_us": self.time_us, "detail": self.detail}


@dataclass(frozen=True)
class Explanation:
    """Whether the pin is in the pinner's following feed as read, and why."""

    user_id: int
    pin_id: int
    present: bool
    reasons: list[Reason]

    def as_json(self) -> dict[str, Any]:
        return {"user_id": str(self.user_id), "pin_id": str(self.pin_id),
                "present": self.present, "reasons": [r.as_json() for r in self.reasons]}

    def lines(self, feed: str) -> list[str]:
        """The explanation as text, a record a line (the commands' output)."""
        verb = "is" if self.present else "is not"
        return [f"pin {self.pin_id} {verb} in the {feed} of user {self.user_id}:",
                *(f"  {r.source:<13} {r.code:<22} {r.text}"
                  + (f"  ({_iso(r.time_us)})" if r.time_us else "") for r in self.reasons)]


@dataclass
class ClusterView:
    """What one cluster's row says of the entry."""

    cluster: Cluster
    served: bool = False
    stored: bool = False
    trimmed: bool = False
    readable: bool = True
    reasons: list[Reason] = field(default_factory=list)


def explain(user_id: int, pin_id: int) -> Explanation:
    """Why ``pin_id`` is, or is not, in the following feed of ``user_id``."""
    pin = sources.pins_by_id([pin_id]).get(pin_id)
    if pin is None:
        return Explanation(user_id, pin_id, False, list(_deleted(pin_id)))
    logged = sources.followed_boards_logged(user_id)
    follow = logged.followed.get(pin.board_id)
    reasons = [Reason("pin", "pins", f"pin {pin.id} was created on board {pin.board_id}",
                      pin.created_us, {"board_id": str(pin.board_id)}),
               *_follow_reasons(user_id, pin, follow, logged), *_created(pin)]
    board_pulled = pulled.current().get(pin.board_id)
    if board_pulled is not None and follow is not None:
        reasons.append(Reason("pulled", "pulled", f"board {pin.board_id} is pulled (a celebrity "
                              "board): its pins are merged into the feed when it is read",
                              board_pulled.since_us, {"state": board_pulled.state}))
    entry = Entry(pin.created_us, pin.id)
    views = [_cluster_view(cluster, user_id, entry, follow) for cluster in CLUSTERS]
    for view in views:
        reasons.extend(view.reasons)
        if follow is not None and board_pulled is None and view.readable and not (
                view.served or view.trimmed):
            reasons.extend(_fanout(pin, view.cluster))
    reasons.extend(_standby_only(views))
    read = next((view for view in views if view.readable), None)
    present = read is not None and (read.served or (follow is not None and (
        board_pulled is not None or read.trimmed)))
    return Explanation(user_id, pin_id, present, reasons)


def _follow_reasons(user_id: int, pin: Pin, follow: FollowedBoard | None,
                    logged: LoggedBoards) -> Iterator[Reason]:
    board = pin.board_id
    if follow is not None and follow.explicit:
        yield Reason("followed_board", "edge_log", f"follows board {board} one by one",
                     follow.since_us)
    elif follow is not None:
        yield Reason("followed_through_owner", "edge_log",
                     f"follows user {follow.owner_id}, and so their board {board}",
                     follow.since_us, {"owner_id": str(follow.owner_id)})
    elif board in logged.unfollowed:
        yield Reason("unfollowed_board", "edge_log",
                     f"follows user {pin.pinner_id} but unfollowed their board {board}",
                     logged.unfollowed[board])
    else:
        yield Reason("not_followed", "edge_log",
                     f"follows neither board {board} nor its owner, user {pin.pinner_id}")
        yield from _unfollows(user_id, {pin.pinner_id, board})


def _unfollows(user_id: int, targets: set[int]) -> Iterator[Reason]:
    """The journal's unfollows by ``user_id`` of any of ``targets`` (the newest)."""
    found = None
    for row in journal.recorded_since(FOLLOW_CHANGED, journal.kept_since(),
                                      shard=shard_of(user_id)):
        p = row.payload
        if (p["follower_id"] == user_id and p["target_id"] in targets
                and p["action"] == "unfollow"):
            found = row
    if found is not None:
        target = found.payload["target_id"]
        yield Reason("unfollowed", "outbox",
                     f"unfollowed {found.payload['target_kind']} {target}",
                     found.payload.get("action_time_us", found.created_us),
                     {"outbox_row": found.id, "shard": found.shard})


def _deleted(pin_id: int) -> Iterator[Reason]:
    yield Reason("pin_missing", "pins", f"pin {pin_id} does not exist")
    for row in journal.recorded_since(PIN_DELETED, journal.kept_since(), shard=shard_of(pin_id)):
        if row.payload["pin_id"] == pin_id:
            yield Reason("pin_deleted", "outbox", f"pin {pin_id} was deleted from board "
                         f"{row.payload['board_id']}", row.created_us,
                         {"outbox_row": row.id, "shard": row.shard})
            return


def _created(pin: Pin) -> Iterator[Reason]:
    """The pin's ``pin_created`` event, while the journal keeps it."""
    if not journal.covers(pin.created_us):
        return
    for row in journal.recorded_since(PIN_CREATED, pin.created_us,
                                      pin.created_us + RECORDED_WITHIN_US, shard_of(pin.id)):
        if row.payload["pin_id"] == pin.id:
            yield Reason("pin_created", "outbox", "its pin_created event was recorded, which "
                         "plans its fanout to the board's followers", row.created_us,
                         {"outbox_row": row.id, "shard": row.shard})
            return


def _cluster_view(cluster: Cluster, user_id: int, entry: Entry,
                  follow: FollowedBoard | None) -> ClusterView:
    view = ClusterView(cluster)
    source = f"feed:{cluster}"
    try:
        row = storage.read_feed(cluster, user_id)
        served, boundary = row.served()
        written = (storage.written_at(cluster, user_id, entry)
                   if entry in row.entries else None)
    except FeedError as exc:
        view.readable = False
        view.reasons.append(Reason("unreadable", source, f"the {cluster} cluster cannot be "
                                   f"read: {exc}"))
        return view
    view.stored, view.served = written is not None, entry in served
    view.trimmed = not view.served and storage.below_served(entry.qualifier, boundary)
    if view.served:
        view.reasons.append(Reason("delivered", source, f"in the feed on {cluster}, written "
                                   f"by {_writer(written, entry, follow)}", written))
    elif view.trimmed:
        view.reasons.append(Reason("trimmed", source, f"older than the newest entries the "
                                   f"{cluster} row keeps (its cap): read from the board when "
                                   "scrolling past them", None,
                                   {"stored": view.stored}))
    else:
        view.reasons.append(Reason("absent", source, f"not in the feed on {cluster}"))
    return view


def _writer(written: int | None, entry: Entry, follow: FollowedBoard | None) -> str:
    if written == entry.created_us:
        return "the fanout of the pin"
    if follow is not None and written == follow.since_us:
        return "the follow's backfill"
    return "a rebuild or a drain"


def _fanout(pin: Pin, cluster: Cluster) -> Iterator[Reason]:
    """Where the pin's fanout to ``cluster`` stands, when the entry is missing there."""
    try:
        waiting = observe.outstanding(pin.id, cluster)
    except FeedError:
        waiting = None
    if waiting:
        messages = "message" if len(waiting) == 1 else "messages"
        yield Reason("fanout_queued", "fanout", f"its fanout to {cluster} is still under way: "
                     f"{len(waiting)} delivery {messages} outstanding", None,
                     {"outstanding": waiting})
    try:
        letters = dead_letters([queues.cluster_queue(cluster)], limit=DEAD_LETTERS_READ)
    except QueueUnavailable:
        return
    for letter in letters:
        if pin.id in letter.args:
            yield Reason("fanout_failed", "dead_letters", f"its delivery to {cluster} failed "
                         f"{letter.retries} times: {letter.error}", _ms(letter.failed_at_ms),
                         {"actor": letter.actor, "message_id": letter.message_id})
            return


def _standby_only(views: list[ClusterView]) -> Iterator[Reason]:
    by_cluster = {view.cluster: view for view in views}
    primary, standby = by_cluster.get("primary"), by_cluster.get("standby")
    if primary and standby and primary.readable and standby.served and not primary.served:
        yield Reason("standby_only", "feed:standby", "present on the standby only: shown when "
                     "a read goes to the standby")


def _ms(value: int | None) -> int | None:
    return None if value is None else value * 1000


def _iso(us: int | None) -> str | None:
    if us is None:
        return None
    return iso_time(us, "milliseconds")
