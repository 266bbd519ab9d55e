"""A pinner's archive: one zip of everything pinsite holds about them, written entry by entry.

The entries are ``README.txt``, ``profile.json``, ``boards.json``, ``pins.json`` with the
original pictures under ``images/``, ``following.json``, ``followers.json``,
``boards_followed.json``, ``boards_unfollowed.json`` and ``interests.json``
(:mod:`accounts.records` says what each holds).

The writer holds one page of a list and one chunk of a picture at a time, never a whole
account, so an account of any size exports in the same memory. Every list is read a page of
``PAGE`` at a time through its manager's ``iterator()`` (``pinner.boards``, ``pinner.pins``,
``pinner.following``, …), and the objects a page names are looked up once per page
(``in_bulk``); JSON arrays are written item by item as the pages come (:class:`JsonArray`),
pictures copied from the media storage in chunks of ``COPY_CHUNK``, stored as they are (they
are compressed already). A zip takes one open entry at a time, so ``pins.json`` is spooled to
a temporary file while the pictures are written, then copied in.

>>> with part_file(export_id) as (path, target):
...     write_archive(user_id, target)
{'boards.json': 3, 'pins.json': 41, 'images': 41, 'following.json': 12, ...}
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
import zipfile
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import PurePosixPath
from typing import IO, TypeVar

import orjson
from django.core.files.storage import default_storage

from accounts import records
from accounts.export_files import export_root
from accounts.records import Record
from graph.selectors import BoardFollow, Follow
from pins.domain import Board, Pin, User
from pins.models import Pinner
from pins.selectors import pinner_by_user_id
from toolkit.clock import now_us

log = logging.getLogger("pinsite.accounts")

T = TypeVar("T")
PAGE = 100
"""Items per page read from a list, and per bulk lookup of the objects they name."""
COPY_CHUNK = 1 << 20
"""Bytes per read when a picture or the spooled ``pins.json`` is copied into the zip."""
Counts = dict[str, int]


class JsonArray:
    """A JSON array written to a binary stream one item at a time, one item a line.

    >>> listing = JsonArray(stream)
    >>> listing.add({"id": "1"}); listing.close()        # [\\n{"id":"1"}\\n]\\n
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.count = 0
        stream.write(b"[")

    def add(self, item: Record) -> None:
        self.stream.write(b"\n" if self.count == 0 else b",\n")
        self.stream.write(orjson.dumps(item))
        self.count += 1

    def close(self) -> None:
        self.stream.write(b"\n]\n" if self.count else b"]\n")


def write_archive(user_id: int, target: IO[bytes]) -> Counts:
    """Write the archive of pinner ``user_id`` into ``target`` (a file open for writing);
    how many items each file holds."""
    pinner = pinner_by_user_id(user_id)
    counts: Counts = {}
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED,
                         allowZip64=True) as archive:
        archive.writestr("README.txt", records.README)
        archive.writestr("profile.json", _json(records.profile_record(
            pinner, pinner.profile, now_us())))
        counts["boards.json"] = _write_array(archive, "boards.json", (
            records.board_record(board) for board in pinner.boards.iterator(PAGE)))
        counts["pins.json"], counts["images"] = _write_pins(archive, pinner)
        for name, follows in (("following.json", pinner.following.iterator(PAGE)),
                              ("followers.json", pinner.followers.iterator(PAGE))):
            counts[name] = _write_array(archive, name, _follow_records(follows))
        for name, boards in (("boards_followed.json", pinner.followed_boards.iterator(PAGE)),
                             ("boards_unfollowed.json",
                              pinner.unfollowed_boards.iterator(PAGE))):
            counts[name] = _write_array(archive, name, _board_follow_records(boards))
        counts["interests.json"] = _write_array(archive, "interests.json", (
            records.interest_record(topic) for topic in pinner.interests.iterator(PAGE)))
    return counts


def _json(value: Record) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"


def _write_array(archive: zipfile.ZipFile, name: str, items: Iterable[Record]) -> int:
    """Write ``items`` as the JSON array ``name``, as they come; how many there were."""
    with archive.open(name, "w", force_zip64=True) as entry:
        listing = JsonArray(entry)
        for item in items:
            listing.add(item)
        listing.close()
    return listing.count


def _write_pins(archive: zipfile.ZipFile, pinner: Pinner) -> tuple[int, int]:
    """Every pin's picture into ``images/``, then ``pins.json`` (spooled meanwhile); how many
    pins and pictures."""
    pictures = 0
    with tempfile.TemporaryFile(dir=export_root()) as spool:
        listing = JsonArray(spool)
        for page in _pages(pinner.pins.iterator(PAGE), PAGE):
            boards = Board.objects.in_bulk({pin.board_id for pin in page})
            for pin in page:
                image = _copy_picture(archive, pin)
                pictures += image is not None
                listing.add(records.pin_record(pin, boards.get(pin.board_id), image))
        listing.close()
        spool.seek(0)
        with archive.open("pins.json", "w", force_zip64=True) as entry:
            shutil.copyfileobj(spool, entry, COPY_CHUNK)
    return listing.count, pictures


def _copy_picture(archive: zipfile.ZipFile, pin: Pin) -> str | None:
    """Copy the pin's original picture into the zip in chunks; its name there, or ``None``
    when its file cannot be read."""
    name = f"images/{pin.id}{PurePosixPath(pin.image).suffix}"
    try:
        source = default_storage.open(pin.image, "rb")
    except OSError as exc:
        log.warning("export: the picture of pin %d (%s) cannot be read: %s", pin.id,
                    pin.image, exc)
        return None
    entry = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
    entry.compress_type = zipfile.ZIP_STORED
    with source, archive.open(entry, "w") as target:
        shutil.copyfileobj(source, target, COPY_CHUNK)
    return name


def _follow_records(follows: Iterator[Follow]) -> Iterator[Record]:
    for page in _pages(follows, PAGE):
        users = User.objects.in_bulk([follow.user_id for follow in page])
        for follow in page:
            yield records.follow_record(follow, users.get(follow.user_id))


def _board_follow_records(follows: Iterator[BoardFollow]) -> Iterator[Record]:
    for page in _pages(follows, PAGE):
        boards = Board.objects.in_bulk([follow.board_id for follow in page])
        owners = User.objects.in_bulk({board.owner_id for board in boards.values()})
        for follow in page:
            board = boards.get(follow.board_id)
            owner = None if board is None else owners.get(board.owner_id)
            yield records.board_follow_record(follow, board, owner)


def _pages(items: Iterator[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last may be shorter)."""
    while page := list(islice(items, size)):
        yield page
