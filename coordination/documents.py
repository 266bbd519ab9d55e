"""Watched JSON documents in ZooKeeper.

A :class:`WatchedDocument` caches a JSON node in-process, is told of every change by a kazoo
``DataWatch``, and keeps a last-known-good copy on disk. Reads never wait on ZooKeeper once a
value is known: when ZooKeeper is unreachable, reads go on with the cached (or on-disk) copy,
while changes fail closed with :class:`CoordinationUnavailable`.

>>> doc = WatchedDocument("shardmap", cache_file("shardmap"), ShardMap.loads, ShardMap.dumps)
>>> doc.get().master_for(3429)
'mysql001a'
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError, KazooException, NodeExistsError, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import ZnodeStat
from kazoo.recipe.watchers import DataWatch

from coordination.conf import coordination_settings
from coordination.exceptions import CoordinationUnavailable, DocumentConflict
from coordination.zookeeper import connect_timeout, failing_closed, root_path, zookeeper

log = logging.getLogger("pinsite.coordination")


class Versioned(Protocol):
    """A document value that knows the ZooKeeper node version it was read at."""

    @property
    def version(self) -> int: ...


T = TypeVar("T", bound=Versioned)


def cache_file(name: str) -> Path | None:
    """The last-known-good file of node ``name`` (``<CACHE_DIR>/<name>.json``); None when
    this deployment keeps none."""
    folder = coordination_settings.CACHE_DIR
    return Path(folder) / f"{name}.json" if folder else None


class WatchedDocument(Generic[T]):
    """A JSON node in ZooKeeper, cached and watched, with a last-known-good file."""

    def __init__(self, name: str, cache_file: str | Path | None,
                 decode: Callable[[bytes, int], T], encode: Callable[[T], bytes],
                 init_command: str = "manage.py shards init") -> None:
        self.name = name
        self.init_command = init_command
        self._cache_file = Path(cache_file) if cache_file else None
        self._decode = decode
        self._encode = encode
        self._lock = threading.RLock()
        self._value: T | None = None
        self._watching = False
        self._first_answer = threading.Event()
        self._pid = 0
        self._listeners: list[Callable[[T], None]] = []

    @property
    def path(self) -> str:
        return root_path(self.name)

    def get(self) -> T:
        """The current value: from the watch, else the last-known-good file."""
        if not self._watching or self._pid != os.getpid():
            self._start_watch()
        elif self._value is None:  # another thread started the watch: wait for its answer
            self._first_answer.wait(connect_timeout())
        value = self._value
        if value is None:
            value = self._load_cache_file()
        if value is None:
            raise CoordinationUnavailable(
                f"{self.path} is not known: ZooKeeper holds no such node (run "
                f"`{self.init_command}`) or cannot be reached and there is no last-known-good copy"
            )
        return value

    def on_change(self, listener: Callable[[T], None]) -> None:
        """Call ``listener(value)`` after every change seen by this process."""
        self._listeners.append(listener)

    def create(self, value: T) -> bool:
        """Create the node with ``value`` unless it exists; True when created."""
        client = zookeeper.require()
        try:
            with failing_closed(f"create {self.path}"):
                client.create_async(self.path, self._encode(value), makepath=True).get(
                    timeout=connect_timeout())
        except NodeExistsError:
            return False
        self._start_watch()
        return True

    def update(self, change: Callable[[T], T], expected_version: int | None = None,
               current: T | None = None) -> T:
        """Compare-and-set: apply ``change`` to the stored value, if nobody changed it meanwhile.

        ``current`` is the value the caller just read fresh (read again when not given). With
        ``expected_version`` the update fails unless the node still has that version; without
        it, the version of ``current`` is used. Raises :class:`DocumentConflict` on a race
        and :class:`CoordinationUnavailable` when ZooKeeper cannot be reached (fail closed).
        """
        client = zookeeper.require()
        current = self.read_fresh() if current is None else current
        version = current.version if expected_version is None else expected_version
        encoded = self._encode(change(current))
        try:
            with failing_closed(f"change {self.path}"):
                new_stat = client.set_async(self.path, encoded, version=version).get(
                    timeout=connect_timeout())
        except BadVersionError as exc:
            raise DocumentConflict(f"{self.path} changed meanwhile; read it again") from exc
        self._remember(self._decode(encoded, new_stat.version))
        return self.get()

    def update_or_create(self, change: Callable[[T], T], empty: T, attempts: int = 1) -> T:
        """:meth:`update`, creating the node with ``empty`` first if it does not exist yet;
        a race (:class:`DocumentConflict`) is tried again, up to ``attempts`` tries in all."""
        current: T | None
        try:
            current = self.read_fresh()
        except CoordinationUnavailable:
            self.create(empty)
            current = None
        for _ in range(attempts - 1):
            try:
                return self.update(change, current=current)
            except DocumentConflict:
                current = None
        return self.update(change, current=current)

    def read_fresh(self) -> T:
        """Read the node from ZooKeeper now (bypassing the cache)."""
        client = zookeeper.require()
        try:
            with failing_closed(f"read {self.path}"):
                raw, stat = client.get_async(self.path).get(timeout=connect_timeout())
        except NoNodeError as exc:
            raise CoordinationUnavailable(f"{self.path} does not exist yet: run "
                                      f"`{self.init_command}`") from exc
        return self._decode(raw, stat.version)

    def reset(self) -> None:
        """Forget the cached value and the watch (tests)."""
        with self._lock:
            self._value, self._watching = None, False
            self._first_answer.clear()

    def _start_watch(self) -> None:
        """Set the watch up in the background, so that no read ever waits on ZooKeeper for
        longer than the connect timeout (kazoo queues requests while it reconnects)."""
        client = zookeeper.connected_client(timeout=None if self._value is None else 0)
        if client is None:
            return
        with self._lock:
            started = not (self._watching and self._pid == os.getpid())
            if started:
                self._watching, self._pid = True, os.getpid()
                self._first_answer.clear()
        if started:
            threading.Thread(target=self._watch, args=(client,), daemon=True,
                             name=f"watch {self.path}").start()
        if self._value is None:  # this thread's watch or another's: wait for its first answer
            self._first_answer.wait(connect_timeout())

    def _watch(self, client: KazooClient) -> None:
        try:
            DataWatch(client, self.path, self._changed)
        except (KazooException, KazooTimeoutError):
            log.warning("cannot watch %s yet; will try again", self.path, exc_info=True)
            with self._lock:
                self._watching = False
            self._first_answer.set()

    def _changed(self, raw: bytes | None, stat: ZnodeStat | None, *_: object) -> None:
        try:
            if raw is not None and stat is not None:
                self._remember(self._decode(raw, stat.version))
        except Exception:
            log.exception("ignoring a malformed %s", self.path)
        finally:
            self._first_answer.set()

    def _remember(self, value: T) -> None:
        with self._lock:
            if self._value is not None and value.version < self._value.version:
                return
            self._value = value
            self._save_cache_file(value)
        for listener in self._listeners:
            listener(value)

    def _save_cache_file(self, value: T) -> None:
        if self._cache_file is None:
            return
        self._cache_file.parent.mkdir(parents=True, exist_ok=True)
        temporary = self._cache_file.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        document = {"version": value.version, "document": json.loads(self._encode(value))}
        temporary.write_text(json.dumps(document, sort_keys=True) + "\n")
        temporary.replace(self._cache_file)

    def _load_cache_file(self) -> T | None:
        if self._cache_file is None or not self._cache_file.exists():
            return None
        saved = json.loads(self._cache_file.read_text())
        value = self._decode(json.dumps(saved["document"]).encode(), int(saved["version"]))
        log.warning("ZooKeeper unreachable: using the last-known-good %s", self._cache_file)
        with self._lock:
            if self._value is None:
                self._value = value
        return value
