"""Importing a legacy one-database site on the real stack: a legacy database the test builds on
the stack's MariaDB, copied by queue workers pass after pass while the legacy site goes on
writing, until a pass copies nothing; then ``import verify`` finds no difference, users are
spread over shards with their boards and pins beside them, follows are in the graph and the
followers' feeds. A job that died between making an object and recording it does not make it
twice, and a row pinsite refuses is reported, not lost."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dramatiq
import MySQLdb
import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from feed.selectors import feed_page
from graph.selectors import is_following_board, is_following_user
from legacy import tasks
from legacy.models import LegacyBatch, LegacyRecord
from legacy.source import SCHEMA, key
from pins.actions import create_board
from pins.selectors import boards_of, get_board, get_pin, get_user
from sharding.ids import shard_of

REPO = Path(__file__).resolve().parents[2]



class Legacy:
    """A legacy database of its own on the stack's MariaDB, and a connection to write to it."""

    def __init__(self) -> None:
        database = settings.DATABASES["default"]
        self.host, self.port = str(database["HOST"]), int(database["PORT"])
        self.name = f"legacy_{uuid.uuid4().hex[:8]}"
        self.url = f"mysql://root:@{self.host}:{self.port}/{self.name}"
        self.tag = uuid.uuid4().hex[:6]
        server = MySQLdb.connect(host=self.host, port=self.port, user="root", autocommit=True)
        server.cursor().execute(f"CREATE DATABASE {self.name}")
        server.close()
        self.connection = MySQLdb.connect(host=self.host, port=self.port, user="root",
                                          database=self.name, autocommit=True)
        for statement in filter(str.strip, SCHEMA.split(";")):
            self.execute(statement)

    def execute(self, sql: str, args: Any = None) -> int:
        cursor = self.connection.cursor()
        cursor.execute(sql, args)
        return int(cursor.lastrowid or 0)

    def add_user(self, number: int) -> int:
        return self.execute("INSERT INTO users (username, display_name) VALUES (%s, %s)",
                            [f"old{self.tag}{number}", f"Old pinner {number}"])

    def add_board(self, user: int, number: int) -> int:
        return self.execute("INSERT INTO boards (user_id, name, description) VALUES (%s, %s, "
                            "%s)", [user, f"Board {number}", f"About {number}"])

    def add_pin(self, board: int, number: int) -> int:
        return self.execute("INSERT INTO pins (board_id, title, description, link) VALUES "
                            "(%s, %s, '', %s)", [board, f"Pin {number}",
                                                  f"https://example.com/{number}"])

    def drop(self) -> None:
        self.execute(f"DROP DATABASE {self.name}")
        self.connection.close()


@pytest.fixture
def legacy() -> Iterator[Legacy]:
    made = Legacy()
    users = [made.add_user(n) for n in range(12)]
    boards = [made.add_board(users[n % 12], n) for n in range(18)]
    for n in range(36):
        made.add_pin(boards[n % 18], n)
    for n in range(12):
        made.execute("INSERT INTO user_follows (follower_id, followee_id) VALUES (%s, %s)",
                     [users[n], users[(n + 1) % 12]])
        made.execute("INSERT INTO board_follows (user_id, board_id) VALUES (%s, %s)",
                     [users[n], boards[(n + 2) % 18]])
    try:
        yield made
    finally:
        made.drop()


ENVIRONMENT = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
               "PYTHONPATH": str(REPO)}


@pytest.fixture
def import_worker() -> Iterator[subprocess.Popen[bytes]]:
    """A queue worker process for the import's jobs, as production runs them."""
    broker: Any = dramatiq.get_broker()
    broker.declare_queue(tasks.QUEUE, ensure=True)
    broker.flush(tasks.QUEUE)
    process = subprocess.Popen(
        [sys.executable, "-m", "dramatiq", "pinsite.worker", "--processes", "1", "--threads",
         "3", "--queues", tasks.QUEUE], cwd=REPO, env=ENVIRONMENT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    yield process
    process.terminate()
    process.wait(timeout=60)


def _import(*args: str) -> str:
    """The command in a process of its own (``--inline`` runs the jobs in it)."""
    result = subprocess.run([sys.executable, "manage.py", "import", *args, "--quiet"],
                            cwd=REPO, env=ENVIRONMENT, capture_output=True, text=True,
                            timeout=240)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def _verify(url: str) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("import", "verify", url, stdout=out)
    except CommandError as exc:
        return int(str(exc).split()[0]), out.getvalue()
    return 0, out.getvalue()


def _pinsite_id(legacy: Legacy, kind: str, legacy_id: int) -> int:
    record = LegacyRecord.objects.get(source=key(legacy.url), kind=kind, legacy_id=legacy_id)
    return int(record.pinsite_id or 0)


@pytest.mark.slow
def test_passes_by_queue_workers_converge_while_the_legacy_site_writes(
        legacy: Legacy, import_worker: subprocess.Popen[bytes]) -> None:
    stop = threading.Event()
    written: list[int] = []

    def legacy_site_goes_on() -> None:
        number = 100
        while not stop.is_set():
            user = legacy.add_user(number)
            board = legacy.add_board(user, number)
            written.append(legacy.add_pin(board, number))
            legacy.execute("UPDATE pins SET title = %s WHERE id = 1", [f"Edited {number}"])
            number += 1
            time.sleep(0.05)

    writer = threading.Thread(target=legacy_site_goes_on)
    writer.start()
    try:
        first = _import("legacy", legacy.url, "--batch", "5")
    finally:
        stop.set()
        writer.join()
    assert written and "copied users" in first
    assert "feeds rebuilt" in first
    converged = _import("legacy", legacy.url, "--batch", "5", "--until-converged")
    assert converged.strip().splitlines()[-1].endswith(
        "copied users 0, boards 0, pins 0, user_follows 0, board_follows 0")

    differences, report = _verify(legacy.url)
    assert differences == 0, report
    assert "checksums DIFFERENT" not in report
    assert get_pin(_pinsite_id(legacy, "pins", 1)).title.startswith("Edited")
    assert _pinsite_id(legacy, "pins", written[-1])  # written during the first pass, copied later
    shards = {shard_of(_pinsite_id(legacy, "users", n)) for n in range(1, 13)}
    assert len(shards) > 1  # users spread over shards
    for legacy_board in range(1, 19):
        board = get_board(_pinsite_id(legacy, "boards", legacy_board))
        assert shard_of(board.id) == shard_of(board.owner_id)  # boards beside their owner
    pin = get_pin(_pinsite_id(legacy, "pins", 2))
    assert shard_of(pin.id) == shard_of(pin.board_id)
    follower, followee = _pinsite_id(legacy, "users", 1), _pinsite_id(legacy, "users", 2)
    assert is_following_user(follower, followee)
    assert is_following_board(follower, _pinsite_id(legacy, "boards", 3))
    followees_pins = {_pinsite_id(legacy, "pins", n) for n in range(1, 37)
                      if get_pin(_pinsite_id(legacy, "pins", n)).pinner_id == followee}
    shown = {item.id for item in feed_page(follower, limit=100).items}
    assert followees_pins and followees_pins <= shown  # the follower's feed was rebuilt


def test_a_pass_rebuilds_the_feed_of_each_follower_once(legacy: Legacy) -> None:
    first = json.loads(_import("legacy", legacy.url, "--inline", "--json", "--batch", "4"))
    [report] = first["passes"]
    assert report["copied"]["user_follows"] == report["copied"]["board_follows"] == 12
    assert report["feeds_rebuilt"] == 12  # a user and a board follow each: rebuilt once
    batches = LegacyBatch.objects.filter(pass_id=report["pass"], kind="feeds")
    rebuilt = [user for batch in batches for user in batch.followers]
    assert sorted(rebuilt) == sorted({_pinsite_id(legacy, "users", n) for n in range(1, 13)})
    assert all(batch.done for batch in batches) and len(batches) == 3  # 4 followers a batch
    follower, followee = _pinsite_id(legacy, "users", 1), _pinsite_id(legacy, "users", 2)
    followees_pins = {_pinsite_id(legacy, "pins", n) for n in range(1, 37)
                      if get_pin(_pinsite_id(legacy, "pins", n)).pinner_id == followee}
    assert followees_pins <= {item.id for item in feed_page(follower, limit=100).items}
    again = json.loads(_import("legacy", legacy.url, "--inline", "--json"))
    assert again["passes"][0]["feeds_rebuilt"] == 0 and again["converged"]
    # a pass that stopped after its follows, before its rebuilds: the next pass rebuilds them
    LegacyBatch.objects.create(pass_id="stopped", source=key(legacy.url), kind="user_follows",
                               first_id=1, last_id=1, done=True, followers=[follower])
    after_stop = json.loads(_import("legacy", legacy.url, "--inline", "--json"))
    assert after_stop["passes"][0]["feeds_rebuilt"] == 1


def test_a_claimed_row_is_not_made_twice_and_a_refused_one_is_reported(legacy: Legacy) -> None:
    _import("legacy", legacy.url, "--inline")
    owner = _pinsite_id(legacy, "users", 1)
    # a job that made a board and died before recording it
    added = legacy.add_board(1, 500)
    made = create_board(owner, "Board 500", "About 500")
    LegacyRecord.objects.create(source=key(legacy.url), kind="boards", legacy_id=added,
                                fingerprint="")
    # a row pinsite's rules refuse: a pinner following their own board
    legacy.execute("INSERT INTO board_follows (user_id, board_id) VALUES (1, 1)")

    _import("legacy", legacy.url, "--inline", "--until-converged")

    assert _pinsite_id(legacy, "boards", added) == made.id
    assert [b.name for b in boards_of(owner, limit=100).items].count("Board 500") == 1
    differences, report = _verify(legacy.url)
    assert differences == 1
    assert "refused by pinsite: a user cannot follow their own board" in report
    assert get_user(owner).display_name == "Old pinner 0"
