"""``bench site --peer``: pinsite's following feed page against the plain peer's.

The plain peer (:mod:`benchmarks.plain`) is the same page as the simplest Django + DRF project
makes it: token authentication, a join over the follows, a ``ModelSerializer``. It runs on its
own database on the stack's MariaDB, filled once (and kept: a later run finds it filled) with
:data:`USERS` users, one board each, :data:`FOLLOWS_PER_USER` follows of boards each (a
million follows) and, per data size of :data:`SIZES`, that many pins on every board; and it is
served by the same gunicorn layout as the bench's site (threaded workers, the same counts).

pinsite's side is the bench's running site, with readers that follow :data:`PINSITE_BOARDS`
boards of :data:`PINSITE_PINS` pins each: their feed rows hold the feed's ``CAP`` entries,
which is as much as a feed row ever holds, so the same figure stands against both sizes.

Both sides are read with the same clients: ``connections`` threads, each with its own token
and kept-alive connection, asking for the first page (25 pins) for ``seconds`` seconds.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import requests
from django.conf import settings
from rest_framework.authtoken.models import Token

from benchmarks import cpu
from benchmarks.measure import Latency, closed_loop, token_session, wait_until_serving
from devstack.ports import free_loopback_ports
from graph import actions as graph
from pins.actions import create_board, create_pin, create_pinner
from pinsite.serving import gunicorn as site_gunicorn
from sharding.replication import admin_cursor

USERS = 10_000
FOLLOWS_PER_USER = 100
SIZES = {"small": 10, "large": 100}
"""Data sizes of the plain peer: pins on every board."""
PINSITE_BOARDS = 100
PINSITE_PINS = 10
BATCH = 5_000
PAGE = "/api/v1/me/feed/?limit=25"


def compare(url: str, connections: int, seconds: float, workers: int, threads: int,
            image: bytes, settle: Callable[[], None],
            progress: Callable[[str], None]) -> dict[str, Any]:
    """Pages per second of both feed pages at ``connections`` connections, by data size."""
    readers = _pinsite_readers(connections, image, progress)
    settle()
    progress(f"pinsite's feed page, {connections} connections for {seconds:g} s")
    pinsite = feed_load(url, readers, seconds)
    sizes = {}
    for size, pins in SIZES.items():
        database = _filled(size, pins, progress)
        with plain_site(database, workers, threads, progress) as plain_url:
            settle()
            progress(f"the plain peer's feed page ({size}), {connections} connections")
            plain = feed_load(plain_url, [_token(database, user)
                                          for user in range(1, connections + 1)], seconds)
        sizes[size] = {"pins_per_followed_board": pins, "plain": plain,
                       "pinsite_pages_per_s": pinsite["pages_per_s"],
                       "plain_pages_per_s": plain["pages_per_s"],
                       "ratio": round(pinsite["pages_per_s"] / plain["pages_per_s"], 3)
                       if plain["pages_per_s"] else None}
    return {"connections": connections, "seconds": seconds,
            "plain_follows": USERS * FOLLOWS_PER_USER, "followed_boards": FOLLOWS_PER_USER,
            "pinsite": pinsite, "sizes": sizes}


def feed_load(url: str, tokens: list[str], seconds: float) -> dict[str, Any]:
    """Each token's client asks for the first feed page over and over for ``seconds``."""
    timings: list[float] = []
    failures = [0]
    lock = threading.Lock()

    def client(session: requests.Session, going: Callable[[], bool]) -> None:
        mine, failed = [], 0
        while going():
            began = time.perf_counter_ns()
            try:
                ok = session.get(url + PAGE, timeout=30).status_code == 200
            except requests.RequestException:
                ok = False
            if ok:
                mine.append((time.perf_counter_ns() - began) / 1000)
            else:
                failed += 1
        with lock:
            timings.extend(mine)
            failures[0] += failed

    before = cpu.snapshot()
    elapsed = closed_loop([partial(client, token_session(token)) for token in tokens], seconds)
    used = cpu.used(before, cpu.snapshot(), lambda *_: "all")
    pages = len(timings)
    return {"pages": pages, "pages_per_s": round(pages / elapsed, 1), "failures": failures[0],
            "latency": Latency.of(timings).to_json(),
            "machine_cpu_ms_per_page": round(used.machine_ms / pages, 3) if pages else None}


# --- pinsite's readers ------------------------------------------------------------------------

def _pinsite_readers(count: int, image: bytes, progress: Callable[[str], None]) -> list[str]:
    """``count`` new pinners following the same boards, whose feeds hold ``CAP`` entries:
    their tokens."""
    progress(f"pinsite: {PINSITE_BOARDS} boards of {PINSITE_PINS} pins, {count} readers "
             "following them all")
    tag = hashlib.sha1(os.urandom(8)).hexdigest()[:6]
    owners = [create_pinner(f"peer{tag}o{n}", None) for n in range(PINSITE_BOARDS // 10)]
    boards = []
    for n in range(PINSITE_BOARDS):
        owner = owners[n % len(owners)]
        board = create_board(owner.user_id, f"Peer board {n}")
        for k in range(PINSITE_PINS):
            create_pin(owner.user_id, board.id, f"Peer pin {n}.{k}", "", "", image)
        boards.append(board.id)
    tokens = []
    for n in range(count):
        reader = create_pinner(f"peer{tag}r{n}", None)
        for board_id in boards:
            graph.follow_board(reader.user_id, board_id)
        tokens.append(Token.objects.create(user=reader.account).key)
    return tokens


# --- the plain peer ---------------------------------------------------------------------------

def environment(database: str) -> dict[str, str]:
    """The plain project's settings for ``database`` on the stack's MariaDB."""
    default = settings.DATABASES["default"]
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "benchmarks.plain.settings",
            "PLAIN_DB_NAME": database, "PLAIN_DB_USER": default["USER"],
            "PLAIN_DB_PASSWORD": default["PASSWORD"], "PLAIN_DB_HOST": default["HOST"],
            "PLAIN_DB_PORT": str(default["PORT"])}


@contextmanager
def plain_site(database: str, workers: int, threads: int,
               progress: Callable[[str], None]) -> Iterator[str]:
    """The plain project under gunicorn as pinsite's web runs (:mod:`pinsite.serving.gunicorn`:
    threaded workers, 15 s keep-alive) on a free loopback port: its URL."""
    [port] = free_loopback_ports(1)
    url = f"http://127.0.0.1:{port}"
    log = Path(settings.VAR_DIR) / "bench-plain.log"
    progress(f"starting the plain peer on {url} ({workers} workers x {threads} threads)")
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "benchmarks.plain.wsgi:application",
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
         "--worker-class", site_gunicorn.worker_class, "--keep-alive", "15"],
        cwd=settings.BASE_DIR, env=environment(database), stdout=log.open("wb"),
        stderr=subprocess.STDOUT)
    try:
        wait_until_serving("the plain peer", url, process, log)
        yield url
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=60)


def _token(database: str, user: int) -> str:
    return hashlib.sha1(f"{database}/{user}".encode()).hexdigest()


def _filled(size: str, pins: int, progress: Callable[[str], None]) -> str:
    """The plain peer's database of ``size``, created and filled unless it already is, with
    its tables' statistics fresh (:func:`_analyzed`)."""
    database = f"plain_feed_{size}"
    with admin_cursor("default", timeout=600) as c:
        c.execute("SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = %s "
                  "AND table_name IN ('plain_pin', 'plain_follow')", [database])
        if c.fetchone()["n"] == 2:
            c.execute(f"SELECT (SELECT COUNT(*) FROM {database}.plain_pin) AS pins, "
                      f"(SELECT COUNT(*) FROM {database}.plain_follow) AS follows")
            found = c.fetchone()
            if (found["pins"], found["follows"]) == (USERS * pins, USERS * FOLLOWS_PER_USER):
                _analyzed(c, database)
                return database
        progress(f"filling the plain peer's database {database}: {USERS} users, "
                 f"{USERS * FOLLOWS_PER_USER} follows, {USERS * pins} pins (once)")
        c.execute(f"DROP DATABASE IF EXISTS {database}")
        c.execute(f"CREATE DATABASE {database} CHARACTER SET utf8mb4")
    subprocess.run([sys.executable, "-m", "django", "migrate", "-v", "0"],
                   cwd=settings.BASE_DIR, env=environment(database), check=True)
    with admin_cursor("default", timeout=600) as c:
        _fill(c, database, pins, progress)
        _analyzed(c, database)
    return database


def _analyzed(c: Any, database: str) -> None:
    """``ANALYZE TABLE`` the peer's tables, as a deployment's maintenance does. With
    statistics gone stale, MariaDB has planned the feed's join from the whole pin index with a
    sort (88 ms a page) instead of from the reader's follows (1.7 ms)."""
    c.execute(f"ANALYZE TABLE {database}.plain_pin, {database}.plain_board, "
              f"{database}.plain_follow, {database}.authtoken_token")
    c.fetchall()


def _fill(c: Any, database: str, pins: int, progress: Callable[[str], None]) -> None:
    now = datetime.now(UTC)
    users = range(1, USERS + 1)
    _insert(c, f"{database}.auth_user", "id, password, is_superuser, username, first_name, "
            "last_name, email, is_staff, is_active, date_joined",
            ((u, "!", 0, f"plain{u}", "", "", "", 0, 1, now) for u in users))
    _insert(c, f"{database}.authtoken_token", "`key`, created, user_id",
            ((_token(database, u), now, u) for u in users))
    _insert(c, f"{database}.plain_board", "id, owner_id, name",
            ((u, u, f"Board {u}") for u in users))
    progress("  follows")
    _insert(c, f"{database}.plain_follow", "follower_id, board_id",
            ((u, (u - 1 + k) % USERS + 1) for u in users for k in range(1, FOLLOWS_PER_USER + 1)))
    progress("  pins")
    start = now - timedelta(seconds=USERS * pins)
    _insert(c, f"{database}.plain_pin", "board_id, pinner_id, title, description, link, image, "
            "thumbnail, width, height, created, interest",
            ((board, board, f"Pin {board}.{k}", "", "", f"pins/{board % 256:02x}/{board}-{k}.jpg",
              f"thumbs/{board % 256:02x}/{board}-{k}.jpg", 64, 48,
              start + timedelta(seconds=k * USERS + board), None)
             for k in range(pins) for board in users))


def _insert(c: Any, table: str, columns: str, rows: Any) -> None:
    """Multi-row inserts of ``BATCH`` rows."""
    marks = "(" + ", ".join(["%s"] * (columns.count(",") + 1)) + ")"
    batch: list[tuple[Any, ...]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            c.executemany(f"INSERT INTO {table} ({columns}) VALUES {marks}", batch)
            batch = []
    if batch:
        c.executemany(f"INSERT INTO {table} ({columns}) VALUES {marks}", batch)
