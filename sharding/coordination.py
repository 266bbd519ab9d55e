"""ZooKeeper coordination: one kazoo client per process and watched JSON documents.

A :class:`WatchedDocument` caches a JSON node in-process, is told of every change by a kazoo
``DataWatch``, and keeps a last-known-good copy on disk. Reads never wait on ZooKeeper once a
value is known: when ZooKeeper is unreachable, reads go on with the cached (or on-disk) copy,
while changes fail closed with :class:`ShardMapUnavailable`.

>>> doc = WatchedDocument("/pinsite/shardmap", "/tmp/shardmap.json", ShardMap.loads)
>>> doc.get().master_for(3429)
'mysql001a'
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError, KazooException, NodeExistsError, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import KazooState, ZnodeStat
from kazoo.recipe.watchers import DataWatch
from kazoo.retry import KazooRetry

from sharding.conf import sharding_settings
from sharding.exceptions import ShardMapConflict, ShardMapUnavailable

log = logging.getLogger("pinsite.coordination")


class Versioned(Protocol):
    """A document value that knows the ZooKeeper node version it was read at."""

    @property
    def version(self) -> int: ...


T = TypeVar("T", bound=Versioned)


class ZooKeeper:
    """The process's kazoo client: created on first use, recreated after a fork."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._client: KazooClient | None = None
        self._connected = threading.Event()
        self._pid = 0
        self._gave_up = False

    def client(self) -> KazooClient:
        """The client, started in the background on first use (it reconnects by itself)."""
        with self._lock:
            if self._client is None or self._pid != os.getpid():
                self._client = KazooClient(
                    hosts=sharding_settings.ZK_HOSTS,
                    timeout=10.0,
                    connection_retry=KazooRetry(max_tries=-1, max_delay=2.0),
                    command_retry=KazooRetry(max_tries=2, max_delay=1.0),
                )
                self._pid = os.getpid()
                self._connected = self._client.start_async()
                self._gave_up = False
            return self._client

    def require(self) -> KazooClient:
        """The connected client, or :class:`ShardMapUnavailable`."""
        client = self.connected_client()
        if client is None:
            raise ShardMapUnavailable("ZooKeeper cannot be reached")
        return client

    def connected_client(self, timeout: float | None = None) -> KazooClient | None:
        """The client if it is (or within ``timeout``, by default the connect timeout, becomes)
        connected, else ``None``. Once a whole connect timeout passed without a connection,
        later calls answer at once until ZooKeeper is reached again (kazoo keeps trying in the
        background): a process pays one timeout per outage, not one for each node it reads."""
        client = self.client()
        if client.state == KazooState.CONNECTED:
            self._gave_up = False
            return client
        if not self._gave_up:
            wait = sharding_settings.ZK_CONNECT_TIMEOUT if timeout is None else timeout
            if not self._connected.wait(wait) and timeout is None:
                self._gave_up = True
                log.warning("ZooKeeper at %s not reached within %gs; reads use their "
                            "last-known-good copies until it is", sharding_settings.ZK_HOSTS,
                            wait)
        return client if client.state == KazooState.CONNECTED else None

    def stop(self) -> None:
        """Close the client (tests, and process shutdown)."""
        with self._lock:
            if self._client is not None and self._pid == os.getpid():
                self._client.stop()
                self._client.close()
            self._client = None


zookeeper = ZooKeeper()


def _timeout() -> float:
    return sharding_settings.decimal("ZK_CONNECT_TIMEOUT")


@contextmanager
def failing_closed(action: str) -> Iterator[None]:
    """Turn ZooKeeper failures into :class:`ShardMapUnavailable` (let node errors through)."""
    try:
        yield
    except (NodeExistsError, BadVersionError, NoNodeError):
        raise  # answers about the node, not failures of ZooKeeper
    except (KazooException, KazooTimeoutError) as exc:
        raise ShardMapUnavailable(f"cannot {action}: ZooKeeper failed ({exc!r})") from exc


def sibling_cache_file(name: str) -> str | None:
    """The last-known-good file of node ``name``, beside the shard map's (``<name>.json``);
    None when the shard map keeps none."""
    cache_file = sharding_settings.MAP_CACHE_FILE
    return str(Path(cache_file).with_name(f"{name}.json")) if cache_file else None


def root_path(name: str) -> str:
    """The ZooKeeper path of ``name`` under this deployment's root (``ZK_ROOT``)."""
    return f"{sharding_settings.ZK_ROOT.rstrip('/')}/{name}"


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
            self._first_answer.wait(_timeout())
        value = self._value
        if value is None:
            value = self._load_cache_file()
        if value is None:
            raise ShardMapUnavailable(
                f"{self.path} is not known: ZooKeeper holds no such node (run "
                f"`{self.init_command}`) or cannot be reached and there is no last-known-good copy"
            )
        return value

    def on_change(self, listener: Callable[[T], None]) -> None:
        """Call ``listener(value)`` after every change seen by this process."""
        self._listeners.append(listener)

    def create(self, value: T) -> bool:
        """Create the node with ``value`` unless it exists; True when created."""
        client = self._require_client()
        try:
            with failing_closed(f"create {self.path}"):
                client.create_async(self.path, self._encode(value), makepath=True).get(
                    timeout=_timeout())
        except NodeExistsError:
            return False
        self._start_watch()
        return True

    def update(self, change: Callable[[T], T], expected_version: int | None = None,
               current: T | None = None) -> T:
        """Compare-and-set: apply ``change`` to the stored value, if nobody changed it meanwhile.

        ``current`` is the value the caller just read fresh (read again when not given). With
        ``expected_version`` the update fails unless the node still has that version; without
        it, the version of ``current`` is used. Raises :class:`ShardMapConflict` on a race
        and :class:`ShardMapUnavailable` when ZooKeeper cannot be reached (fail closed).
        """
        client = self._require_client()
        current = self.read_fresh() if current is None else current
        version = current.version if expected_version is None else expected_version
        encoded = self._encode(change(current))
        try:
            with failing_closed(f"change {self.path}"):
                new_stat = client.set_async(self.path, encoded, version=version).get(
                    timeout=_timeout())
        except BadVersionError as exc:
            raise ShardMapConflict(f"{self.path} changed meanwhile; read it again") from exc
        self._remember(self._decode(encoded, new_stat.version))
        return self.get()

    def update_or_create(self, change: Callable[[T], T], empty: T, attempts: int = 1) -> T:
        """:meth:`update`, creating the node with ``empty`` first if it does not exist yet;
        a race (:class:`ShardMapConflict`) is tried again, up to ``attempts`` tries in all."""
        current: T | None
        try:
            current = self.read_fresh()
        except ShardMapUnavailable:
            self.create(empty)
            current = None
        for _ in range(attempts - 1):
            try:
                return self.update(change, current=current)
            except ShardMapConflict:
                current = None
        return self.update(change, current=current)

    def read_fresh(self) -> T:
        """Read the node from ZooKeeper now (bypassing the cache)."""
        client = self._require_client()
        try:
            with failing_closed(f"read {self.path}"):
                raw, stat = client.get_async(self.path).get(timeout=_timeout())
        except NoNodeError as exc:
            raise ShardMapUnavailable(f"{self.path} does not exist yet: run "
                                      f"`{self.init_command}`") from exc
        return self._decode(raw, stat.version)

    def reset(self) -> None:
        """Forget the cached value and the watch (tests)."""
        with self._lock:
            self._value, self._watching = None, False
            self._first_answer.clear()

    def _require_client(self) -> KazooClient:
        client = zookeeper.connected_client()
        if client is None:
            raise ShardMapUnavailable(f"ZooKeeper at {sharding_settings.ZK_HOSTS} is unreachable")
        return client

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
            self._first_answer.wait(_timeout())

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
