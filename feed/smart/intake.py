"""The smart feed's worker role: turn pins, repins and follows into scored pool entries.

- A new pin goes to its board's followers (source ``following``; ``repins`` for a repin, the
  repins of followed pinners) and to the followers of its interest (``interests``), a chunk of
  users per message. Each chunk costs one read of the users' affinities and pool sizes and
  one batch put (the entries and the pools' new sizes).
- A repin raises the repinner's affinity to the source's pinner, board and interest, and puts
  the source's most related pins into the repinner's ``related`` pool.
- A follow of a user, a board or an interest puts the target's newest pins into the
  follower's pools (``BACKFILL_PINS`` per board or interest), scored with the follow's
  affinity points, which one increment adds after the put (three calls): a message retried
  because the put failed does not count them twice. An unfollow purges the pools it fed (the
  board's pins, the pinner's pins on boards no longer followed, or the interest's pins; a pin
  that also came through another source stays in that source's pool), then takes the
  affinity back.

>>> insert_pin(pin_id, "following", [alice, bob])
[]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass

from auditlog.operations import operation
from feed import fanout, pulled, sources
from feed.smart import pools
from feed.smart.conf import pool_cap, pool_slack, smart_settings
from feed.smart.pools import Insert
from feed.smart.schema import Affinity, Source, affinity_column
from feed.smart.scoring import POINTS, quality
from pins.domain import Pin
from toolkit.clock import now_us

Points = dict[tuple[Affinity, int], int]


def source_of(pin: Pin) -> Source:
    """The source a pin reaches its board's followers through."""
    return "repins" if pin.is_repin else "following"


def receivers(pin: Pin) -> Iterator[tuple[Source, list[int]]]:
    """Who gets a new pin, by source, in chunks: the board's followers (unless the board is
    pulled: its followers pull its pins, :func:`celebrity_pins`), then the interest's
    followers (its slices read in parallel); never the pinner."""
    chunks = [] if pulled.is_pulled(pin.board_id) else fanout.follower_chunks(pin.board_id)
    for chunk in chunks:
        users = [user for user in chunk if user != pin.pinner_id]
        if users:
            yield source_of(pin), users
    if pin.interest:
        for chunk in sources.iter_interest_followers(pin.interest):
            users = [user for user in chunk if user != pin.pinner_id]
            if users:
                yield "interests", users


def insert_pin(pin_id: int, source: Source, user_ids: Sequence[int]) -> list[tuple[int, Source]]:
    """Score one pin for each of ``user_ids`` and put it into their pools; returns the pools
    due a trim. Nothing for a pin deleted meanwhile."""
    pin = load_pin(pin_id)
    if pin is None or not user_ids:
        return []
    repins = sources.repin_count(pin.id)
    columns = affinity_columns(pin)
    counted = pools.counts(user_ids, columns, [source])
    weights = smart_settings.SOURCE_WEIGHTS
    return pools.insert([Insert(user, source, pin.id,
                                quality(source, counted[user].total(columns), repins, weights),
                                pin.created_us)
                         for user in user_ids],
                        {user: found.sizes for user, found in counted.items()})


def insert_for_user(user_id: int, pin_ids: Mapping[Source, Iterable[int]],
                    adding: Points | None = None) -> list[tuple[int, Source]]:
    """Score pins for one user and put each source's into its pool (backfills, rebuilds):
    one read of the user's affinities and pool sizes, one batch put. ``adding`` are affinity
    points the scores count, which one increment adds after the put."""
    return _insert_loaded(user_id, _loaded(pin_ids), adding)


def _insert_loaded(user_id: int, pins: Mapping[Source, Sequence[Pin]],
                   adding: Points | None = None) -> list[tuple[int, Source]]:
    """:func:`insert_for_user` of pins loaded already."""
    entries, counted = _scored(user_id, pins, adding)
    return pools.insert(entries, {user_id: counted.sizes} if counted else {},
                        {user_id: adding} if adding else None)


def score_for_user(user_id: int, source: Source, pin_ids: Iterable[int]) -> list[Insert]:
    """Several pins scored for one user's pool of ``source``, not written yet."""
    return _scored(user_id, _loaded({source: pin_ids}))[0]


def _loaded(pin_ids: Mapping[Source, Iterable[int]]) -> dict[Source, list[Pin]]:
    """Each source's pins, loaded together (one ``get_many``); deleted ones left out."""
    wanted = {source: list(dict.fromkeys(ids)) for source, ids in pin_ids.items()}
    found = sources.pins_by_id({pin_id for ids in wanted.values() for pin_id in ids})
    return {source: [found[pin_id] for pin_id in ids if pin_id in found]
            for source, ids in wanted.items()}


def _scored(user_id: int, by_source: Mapping[Source, Sequence[Pin]],
            adding: Points | None = None) -> tuple[list[Insert], pools.Counts | None]:
    """The pins scored for the user's pools (the user's own left out), counting ``adding``
    beside the stored affinities, and what was read of the user's meta row (None if
    nothing: no pins)."""
    pins = [(source, pin) for source, found in by_source.items() for pin in found
            if pin.pinner_id != user_id]
    if not pins:
        return [], None
    columns = sorted({column for _, pin in pins for column in affinity_columns(pin)})
    counted = pools.counts([user_id], columns, by_source)[user_id]
    have = dict(counted.points)
    for (kind, object_id), amount in (adding or {}).items():
        column = affinity_column(kind, object_id)
        have[column] = have.get(column, 0) + amount
    repins = sources.repin_counts(pin.id for _, pin in pins)
    weights = smart_settings.SOURCE_WEIGHTS
    entries = []
    for source, pin in pins:
        points = sum(have.get(column, 0) for column in affinity_columns(pin))
        entries.append(Insert(user_id, source, pin.id,
                              quality(source, points, repins[pin.id], weights),
                              pin.created_us))
    return entries, counted


@dataclass(frozen=True)
class CelebrityPins:
    """The pins of the pulled boards a user follows that came since the user's pull mark,
    scored for the ``following`` pool but not written, and the mark they move it to."""

    entries: list[Insert]
    mark_us: int


def celebrity_pins(user_id: int) -> CelebrityPins | None:
    """What the generator pulls on a visit: the new pins of the pulled boards the user follows
    (since the mark, and since each board was pulled: older ones were pushed). Reads only;
    None, and no I/O, when no board is pulled."""
    board_modes = pulled.current()
    boards = pulled.followed_pulled(user_id, board_modes)
    if not boards:
        return None
    mark = pools.pulled_mark(user_id) or 0
    limit = smart_settings.number("BACKFILL_PINS")
    fresh = [entry for board, entries in sources.board_heads(boards, limit).items()
             for entry in entries
             if entry.created_us > max(mark, board_modes[board].since_us - 1)]
    if not fresh:
        return None
    return CelebrityPins(score_for_user(user_id, "following", [e.pin_id for e in fresh]),
                         max(entry.created_us for entry in fresh))


def keep_celebrities(user_id: int, pin_ids: Sequence[int],
                     mark_us: int) -> list[tuple[int, Source]]:
    """After a visit showed its chunk: the pulled pins it did not use go into the user's
    ``following`` pool, and the pull mark moves to ``mark_us``; returns the pools due a
    trim. Nothing when a later visit moved the mark that far already (its own message keeps
    what it pulled)."""
    if mark_us <= (pools.pulled_mark(user_id) or 0):
        return []
    due = insert_for_user(user_id, {"following": pin_ids})
    pools.set_pulled_mark(user_id, mark_us)
    return due


def record_repin(pin_id: int) -> list[tuple[int, Source]]:
    """A repin: the repinner's affinity to what they saved, and its related pins pooled."""
    repin = load_pin(pin_id)
    if repin is None or repin.source_pin_id is None:
        return []
    due = _pool_related(repin)
    source = load_pin(repin.source_pin_id)
    if source is not None:
        pools.add_affinity(repin.pinner_id, _targets(source, POINTS["repin"]))
    return due


def _pool_related(repin: Pin) -> list[tuple[int, Source]]:
    """The pins most related to what a repin saved, into the repinner's ``related`` pool."""
    if repin.source_pin_id is None:
        return []
    related = [pin.id for pin, _ in sources.related_pins(repin.source_pin_id,
                                                 limit=smart_settings.number("RELATED_PINS"))]
    return insert_for_user(repin.pinner_id, {"related": related})


def follow(follower_id: int, target_kind: str, target_id: int, action: str,
           ) -> list[tuple[int, Source]]:
    """A follow or unfollow of a user or board: a follow's backfill and affinity; an
    unfollow's purge, then the affinity taken back."""
    kind: Affinity = "p" if target_kind == "user" else "b"
    points: Points = {(kind, target_id): POINTS["follow"]}
    if action != "follow":
        _purge_unfollowed(follower_id, kind, target_id)
        pools.add_affinity(follower_id, _negated(points))
        return []
    boards, users = ([target_id], []) if kind == "b" else ([], [target_id])
    return _backfill_following(follower_id, boards, users, points)


def interest_follow(follower_id: int, interest_id: int, action: str,
                    ) -> list[tuple[int, Source]]:
    """A follow or unfollow of an interest: a follow's backfill and affinity; an unfollow's
    purge, then the affinity taken back."""
    points: Points = {("i", interest_id): POINTS["follow"]}
    if action != "follow":
        with suppress(LookupError):
            slug = sources.interest_by_id(interest_id).slug
            purge(follower_id, ("interests",), lambda pin: pin.interest == slug)
        pools.add_affinity(follower_id, _negated(points))
        return []
    return insert_for_user(follower_id, {"interests": _interest_pins(interest_id)}, points)


def _negated(points: Points) -> Points:
    return {target: -amount for target, amount in points.items()}


def rebuild(user_id: int) -> dict[str, int]:
    """Refill a user's pools from the graph and recent pins: the newest pins of every board
    they follow, of every interest they follow, and the pins related to their newest saves
    (affinities, the user's history, are kept as they are). Returns each pool's size.
    Recorded in the operator audit log as ``smartfeed.rebuild``."""
    with operation("smartfeed.rebuild", f"user {user_id}") as done:
        pools.clear(user_id)
        boards = sorted(sources.followed_boards(user_id))
        _backfill_following(user_id, boards, [])
        for topic in sources.followed_interests(user_id):
            insert_for_user(user_id, {"interests": _interest_pins(topic.id)})
        saved = sources.user_pin_ids(user_id, 20)
        for pin in sources.pins_by_id(saved).values():
            _pool_related(pin)
        pools.mark_rebuilt(user_id, now_us())
        sizes = {str(source): size for source, size in pools.sizes(user_id).items()}
        done.result = sizes
        return sizes


def purge(user_id: int, from_sources: Sequence[Source], gone: Callable[[Pin], bool]) -> int:
    """Remove from the user's pools of ``from_sources`` every entry whose pin is ``gone`` (or
    deleted); returns how many went. Reads each pool whole (at most ``POOL_CAP + POOL_SLACK``
    entries) and its pins with one ``get_many``."""
    entries = [entry for source in from_sources
               for entry in pools.best(user_id, source, pool_cap() + pool_slack())]
    found = sources.pins_by_id({entry.pin_id for entry in entries})
    doomed = [entry.key for entry in entries
              if entry.pin_id not in found or gone(found[entry.pin_id])]
    return pools.remove(doomed)


def _purge_unfollowed(user_id: int, kind: Affinity, target_id: int) -> int:
    """After an unfollow: a board's pins, or a pinner's pins on boards no longer followed."""
    if kind == "b":
        return purge(user_id, ("following", "repins"), lambda pin: pin.board_id == target_id)
    still = sources.boards_followed_by_log(user_id, sources.boards_of(target_id))
    return purge(user_id, ("following", "repins"),
                 lambda pin: pin.pinner_id == target_id and pin.board_id not in still)


def load_pin(pin_id: int) -> Pin | None:
    return sources.pins_by_id([pin_id]).get(pin_id)


def affinity_columns(pin: Pin) -> list[bytes]:
    """The affinity columns that count for a pin: its pinner, its board, its interest."""
    return [affinity_column(kind, object_id) for kind, object_id in _targets(pin, 0)]


def _targets(pin: Pin, points: int) -> Points:
    found: Points = {("p", pin.pinner_id): points, ("b", pin.board_id): points}
    if pin.interest:
        with suppress(LookupError):
            found[("i", sources.interest(pin.interest).id)] = points
    return found


def _backfill_following(user_id: int, boards: Sequence[int], users: Sequence[int],
                        adding: Points | None = None) -> list[tuple[int, Source]]:
    """Put the newest pins of ``boards`` and of ``users`` into the user's pools, each through
    its source (``following``, or ``repins`` for repins); ``adding`` as for
    :func:`insert_for_user`."""
    limit = smart_settings.number("BACKFILL_PINS")
    pin_ids: list[int] = []
    for board in boards:
        pin_ids += [entry.pin_id for entry in sources.board_entries(board, limit)]
    for user in users:
        pin_ids += sources.user_pin_ids(user, limit)
    by_source: dict[Source, list[Pin]] = {"following": [], "repins": []}
    for pin in sources.pins_by_id(pin_ids).values():
        by_source[source_of(pin)].append(pin)
    return _insert_loaded(user_id, by_source, adding)


def _interest_pins(interest_id: int) -> list[int]:
    try:
        sources.interest_by_id(interest_id)
    except LookupError:
        return []
    return [pin_id for pin_id, _ in sources.interest_pin_ids(interest_id,
                                                     smart_settings.number("BACKFILL_PINS"))]
