"""Domain reads of the content domain: single objects, newest-first pages and counts.

A page is an application-side join: one mapping page (list cache), then ONE
``objects.get_many`` for all its IDs (object cache, one query per host). Entries whose object
is gone are skipped, so a page may hold fewer items than ``limit``. An interest's pins come
from its sliced list (:mod:`pins.interest_pins`), merged over the shards holding it.

>>> page = pins_of_board(board_id, limit=25)
>>> [pin.title for pin in page.items], page.next_cursor
(['Leek quiche', ...], 'MTcwMD...')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from contextlib import suppress
from typing import Any, TypeVar

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Max

from pins.conf import content_settings
from pins.domain import Board, JSONObject, Pin, User
from pins.exceptions import InvalidContent, NotFound
from pins.interest_pins import interest_pin_ids
from pins.interests import interest
from pins.lookup import load
from pins.models import Pinner
from pins.types import (
    BOARD,
    BOARD_HAS_PINS,
    PIN,
    PIN_HAS_REPINS,
    USER,
    USER_HAS_BOARDS,
    USER_HAS_PINS,
)
from sharding import ids, mappings, objects
from sharding.exceptions import MalformedObjectId, ShardNotOpen
from sharding.ids import parse_id
from sharding.mappings import (
    MAX_PAGE,
    Entry,
    InvalidCursor,
    MappingTable,
    decode_cursor,
    encode_cursor,
)
from toolkit.paging import Page, page_size

T = TypeVar("T")


def pinner_by_username(username: str) -> Pinner:
    """The index row of a pinner (case-insensitive), or :class:`NotFound`."""
    pinner = (Pinner.objects.select_related("account")
              .filter(account__username__iexact=username.strip()).first())
    if pinner is None:
        raise NotFound(f"No pinner is called {username!r}.")
    return pinner


def pinner_by_user_id(user_id: int) -> Pinner:
    """The index row of a pinner, with its account, by user ID, or :class:`NotFound`."""
    pinner = Pinner.objects.select_related("account").filter(user_id=user_id).first()
    if pinner is None:
        raise NotFound(f"No pinner has the user ID {user_id}.")
    return pinner


def resolve_user(text: str) -> int:
    """The user ``text`` names, by user ID or by username (commands and operator pages:
    ``feed show demo``). Usernames may be all digits: an ID that names no user is also tried
    as a username. Digits that are no user ID and no username are
    :class:`~sharding.exceptions.MalformedObjectId`; anything else that names nobody is
    :class:`NotFound`."""
    try:
        user_id = parse_id(text, USER)
        get_user(user_id)
    except (MalformedObjectId, NotFound):
        if not text.strip().isdigit():
            return pinner_by_username(text).user_id
        with suppress(NotFound):
            return pinner_by_username(text).user_id
        raise
    return user_id


def pinner_of_account(account: AbstractBaseUser | AnonymousUser) -> Pinner | None:
    """The pinner behind a logged-in account (``request.user``); ``None`` for anonymous
    visitors and accounts without one (e.g. an operator's)."""
    if not account.is_authenticated:
        return None
    try:
        return account.pinner  # type: ignore[union-attr,attr-defined]  # cached with the account
    except Pinner.DoesNotExist:
        return None


def user_object(user_id: int | str) -> JSONObject:
    """The stored JSON of a user object (as on its shard), or :class:`NotFound`."""
    return load(user_id, USER)[1]


def pinner_ids() -> list[int]:
    """Every pinner's user ID, oldest pinner first (what an operator's ``--all`` walks)."""
    return list(Pinner.objects.order_by("id").values_list("user_id", flat=True))


def sample_pinner_ids(count: int, rng: random.Random | None = None) -> list[int]:
    """Up to ``count`` distinct pinners drawn at random (one indexed query each: the first
    pinner at or after a random row ID), for audits of a sample."""
    newest = Pinner.objects.aggregate(newest=Max("id"))["newest"]
    if newest is None or count < 1:
        return []
    draw = rng or random.Random()
    found: dict[int, None] = {}
    for _ in range(count * 2):
        start = draw.randint(1, newest)
        user = Pinner.objects.filter(id__gte=start).order_by("id").values_list(
            "user_id", flat=True).first()
        if user is not None:
            found[user] = None
        if len(found) == count:
            break
    return list(found)


def get_user(user_id: int | str) -> User:
    return User.from_json(*load(user_id, USER))


def get_board(board_id: int | str) -> Board:
    return Board.from_json(*load(board_id, BOARD))


def get_pin(pin_id: int | str) -> Pin:
    return Pin.from_json(*load(pin_id, PIN))


def users_by_id(user_ids: Iterable[int]) -> dict[int, User]:
    """The users among ``user_ids`` that exist, in the order given: ONE ``objects.get_many``
    (object cache, one query per host). IDs of other types, or on shards that are not open,
    count as missing."""
    return {user_id: User.from_json(user_id, data)
            for user_id, data in _of_type(user_ids, USER).items()}


def boards_by_id(board_ids: Iterable[int]) -> dict[int, Board]:
    """The boards among ``board_ids`` that exist, as :func:`users_by_id` does users."""
    return {board_id: Board.from_json(board_id, data)
            for board_id, data in _of_type(board_ids, BOARD).items()}


def pins_by_id(pin_ids: Iterable[int]) -> dict[int, Pin]:
    """The pins among ``pin_ids`` that exist, as :func:`users_by_id` does users."""
    return {pin_id: Pin.from_json(pin_id, data)
            for pin_id, data in _of_type(pin_ids, PIN).items()}


def _of_type(object_ids: Iterable[int], object_type: Any) -> dict[int, JSONObject]:
    """The stored JSON of the objects among ``object_ids`` of ``object_type``; one on a shard
    that is not open counts as missing."""
    wanted = [object_id for object_id in dict.fromkeys(object_ids)
              if ids.decompose(object_id).type_id == object_type.type_id]
    try:
        return objects.get_many(wanted)
    except ShardNotOpen:
        return {object_id: data for object_id in wanted
                if (data := _stored_if_open(object_id)) is not None}


def _stored_if_open(object_id: int) -> JSONObject | None:
    try:
        return objects.get(object_id)
    except ShardNotOpen:
        return None


def boards_of(user_id: int | str, limit: int | None = None, after: str | None = None,
              ) -> Page[Board]:
    """A user's boards, newest first."""
    return _page(USER_HAS_BOARDS, user_id, limit, after, Board.from_json)


def pins_of_board(board_id: int | str, limit: int | None = None, after: str | None = None,
                  ) -> Page[Pin]:
    """A board's pins, newest first."""
    return _page(BOARD_HAS_PINS, board_id, limit, after, Pin.from_json)


def pins_of_user(user_id: int | str, limit: int | None = None, after: str | None = None,
                 ) -> Page[Pin]:
    """Every pin a user made (on all their boards), newest first."""
    return _page(USER_HAS_PINS, user_id, limit, after, Pin.from_json)


def repins_of(pin_id: int | str, limit: int | None = None, after: str | None = None,
              ) -> Page[Pin]:
    """The repins made directly from a pin, newest first."""
    return _page(PIN_HAS_REPINS, pin_id, limit, after, Pin.from_json)


def interest_pins_page(slug: str, limit: int | None = None, after: str | None = None,
                       ) -> Page[Pin]:
    """The newest pins carrying an interest (made on a board with it), newest first, over
    every shard holding a slice of its list; an unknown slug is :class:`NotFound`."""
    topic = interest(slug)
    size = _page_size(limit)
    start = _interest_cursor(after)
    listed = interest_pin_ids(topic.id, size + 1, *start)
    found = objects.get_many([pin_id for pin_id, _ in listed[:size]])
    items = [Pin.from_json(pin_id, found[pin_id]) for pin_id, _ in listed[:size]
             if pin_id in found]
    more = len(listed) > size
    return Page(items, encode_cursor(Entry(*listed[size - 1])) if more else None)


def board_covers(board_ids: Iterable[int]) -> dict[int, Pin]:
    """Each board's newest pin (boards without one are absent): a mapping read per board,
    then ONE ``objects.get_many`` for all the covers."""
    newest: dict[int, int] = {}
    for board_id in board_ids:
        entries = mappings.page(BOARD_HAS_PINS, parse_id(board_id, BOARD), limit=1)
        if entries.ids:
            newest[board_id] = entries.ids[0]
    found = objects.get_many(newest.values())
    return {board_id: Pin.from_json(pin_id, found[pin_id])
            for board_id, pin_id in newest.items() if pin_id in found}


def board_pin_count(board_id: int | str) -> int:
    return _count(BOARD_HAS_PINS, board_id)


def user_pin_count(user_id: int | str) -> int:
    return _count(USER_HAS_PINS, user_id)


def user_board_count(user_id: int | str) -> int:
    return _count(USER_HAS_BOARDS, user_id)


def repin_count(pin_id: int | str) -> int:
    return _count(PIN_HAS_REPINS, pin_id)


def repin_counts(pin_ids: Iterable[int | str]) -> dict[int, int]:
    """The repin count of each of several pins (one cache read, then one query per host for
    the counts it did not hold)."""
    return _counts(PIN_HAS_REPINS, pin_ids)


def _page(table: MappingTable, from_id: int | str, limit: int | None, after: str | None,
          build: Callable[[int, JSONObject], T]) -> Page[T]:
    owner = parse_id(from_id, table.from_type)
    size = _page_size(limit)
    try:
        entries = mappings.page(table, owner, limit=size, after=after or None)
    except InvalidCursor as exc:
        raise InvalidContent("The page cursor is not valid.", field="cursor") from exc
    except ShardNotOpen as exc:
        raise NotFound(f"No {table.from_type.name} {owner}: its shard is not open.") from exc
    found = objects.get_many(entries.ids)
    items = [build(to_id, found[to_id]) for to_id in entries.ids if to_id in found]
    return Page(items, entries.next_cursor)


def _interest_cursor(after: str | None) -> tuple[int | None, int | None]:
    """``(before, before_id)`` of an interest page's cursor (none for the first page)."""
    if not after:
        return None, None
    try:
        entry = decode_cursor(after)
    except InvalidCursor as exc:
        raise InvalidContent("The page cursor is not valid.", field="cursor") from exc
    return entry.sequence, entry.to_id


def _page_size(limit: Any) -> int:
    return page_size(limit, default=content_settings.number("PAGE_SIZE"), maximum=MAX_PAGE)


def _count(table: MappingTable, from_id: int | str) -> int:
    owner = parse_id(from_id, table.from_type)
    return _counts(table, [owner])[owner]


def _counts(table: MappingTable, from_ids: Iterable[int | str]) -> dict[int, int]:
    owners = [parse_id(from_id, table.from_type) for from_id in from_ids]
    try:
        return mappings.counts(table, owners)
    except ShardNotOpen as exc:
        named = ", ".join(str(owner) for owner in owners)
        raise NotFound(f"No {table.from_type.name} {named}: its shard is not open.") from exc
