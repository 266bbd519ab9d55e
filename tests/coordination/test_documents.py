"""Watched documents on the real ZooKeeper: compare-and-set, watches, the last-known-good
copy, and many threads reading a new document at once."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from coordination.documents import WatchedDocument
from coordination.exceptions import DocumentConflict
from coordination.zookeeper import delete_tree
from tests.polling import wait_until


@dataclass(frozen=True)
class Counter:
    """The smallest versioned document: one number."""

    value: int = 0
    version: int = -1

    def plus(self, amount: int) -> Counter:
        return Counter(self.value + amount, self.version)

    @staticmethod
    def dumps(counter: Counter) -> bytes:
        return json.dumps({"value": counter.value}).encode()

    @staticmethod
    def loads(raw: bytes, version: int) -> Counter:
        return Counter(json.loads(raw)["value"], version)


Open = Callable[[Path], WatchedDocument[Counter]]


@pytest.fixture
def document_at() -> Iterator[Open]:
    """Opens the test's own node (as a process would, each with its own cache and copy)."""
    name = f"test-document-{uuid.uuid4().hex[:8]}"
    opened: list[WatchedDocument[Counter]] = []

    def open_in(folder: Path) -> WatchedDocument[Counter]:
        opened.append(WatchedDocument(name, folder / f"{name}.json", Counter.loads,
                                      Counter.dumps))
        return opened[-1]

    yield open_in
    if opened:
        delete_tree(opened[0].path)


def _eventually(check: Callable[[], bool]) -> bool:
    return wait_until(check, 5.0, every=0.02)


def test_a_watching_reader_sees_a_change_made_elsewhere(document_at: Open,
                                                        tmp_path: Path) -> None:
    writer, reader = document_at(tmp_path / "w"), document_at(tmp_path / "r")
    assert writer.create(Counter(1))
    assert reader.get().value == 1
    writer.update(lambda c: c.plus(41))
    assert _eventually(lambda: reader.get().value == 42)


def test_creating_an_existing_document_keeps_the_stored_one(document_at: Open,
                                                             tmp_path: Path) -> None:
    document = document_at(tmp_path)
    assert document.create(Counter(16))
    assert document.create(Counter(32)) is False
    assert document.read_fresh().value == 16


def test_a_stale_compare_and_set_is_refused(document_at: Open, tmp_path: Path) -> None:
    document = document_at(tmp_path)
    document.create(Counter(1))
    stale = document.read_fresh().version
    document.update(lambda c: c.plus(1))
    with pytest.raises(DocumentConflict, match="changed meanwhile"):
        document.update(lambda c: c.plus(100), expected_version=stale)
    assert document.read_fresh().value == 2


def test_update_or_create_makes_the_node_and_rides_out_races(document_at: Open,
                                                             tmp_path: Path) -> None:
    documents = [document_at(tmp_path / str(n)) for n in range(4)]
    start = threading.Barrier(len(documents))

    def add_one(document: WatchedDocument[Counter]) -> None:
        start.wait()
        document.update_or_create(lambda c: c.plus(1), Counter(), attempts=20)

    threads = [threading.Thread(target=add_one, args=(d,)) for d in documents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert documents[0].read_fresh().value == len(documents)


def test_every_change_is_kept_as_the_last_known_good_copy(document_at: Open,
                                                          tmp_path: Path) -> None:
    document = document_at(tmp_path)
    document.create(Counter(1))
    document.update(lambda c: c.plus(6))
    saved = tmp_path / f"{document.name}.json"
    assert _eventually(lambda: saved.exists()
                       and json.loads(saved.read_text())["document"] == {"value": 7})


def test_threads_reading_a_new_document_at_once_all_wait_for_zookeeper(
        document_at: Open, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The first reads of a process come from many threads at once (a worker's consumers):
    each gets ZooKeeper's value, none falls back to the last-known-good file."""
    document_at(tmp_path / "w").create(Counter(16))
    document_at(tmp_path / "r")._save_cache_file(Counter(32))  # a stale copy exists
    reader = document_at(tmp_path / "r")
    values: list[int] = []
    start = threading.Barrier(8)

    def read() -> None:
        start.wait()
        values.append(reader.get().value)

    threads = [threading.Thread(target=read) for _ in range(8)]
    with caplog.at_level("WARNING", logger="pinsite.coordination"):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert values == [16] * 8
    assert "last-known-good" not in caplog.text
