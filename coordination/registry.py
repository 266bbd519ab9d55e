"""The host registry: the address of every shard host (``mysql``) and graph Redis instance
(``redis``), in ZooKeeper beside the maps (``<ZK_ROOT>/hosts``).

The configuration (``PINSITE_SHARD_HOSTS``, ``PINSITE_REDIS_GRAPH_HOSTS``) only seeds it
(``shards init``, ``graph init``). A host registered later (``shards hosts add``, ``graph
hosts add``) is reached by every running process without a restart: a process that meets a
name it does not know (in a map, or a command's argument) looks it up here, reading
ZooKeeper again when its watched copy does not have it yet. A registered address never
changes: a host is removed (only once no map names it) and added again.

>>> registered("mysql")["mysql003a"]
('127.0.0.1', 13731)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from coordination.documents import WatchedDocument, cache_file
from coordination.exceptions import CoordinationUnavailable, DocumentConflict, RegistryError

KINDS = ("mysql", "redis")
NAME = re.compile(r"[a-z][a-z0-9_]{0,62}")
Address = tuple[str, int]


@dataclass(frozen=True)
class HostRegistry:
    """``kind → name → (host, port)``, at a ZooKeeper node version."""

    hosts: dict[str, dict[str, Address]] = field(default_factory=dict)
    version: int = -1

    def of(self, kind: str) -> dict[str, Address]:
        return dict(self.hosts.get(_kind(kind), {}))

    def added(self, kind: str, name: str, address: Address) -> HostRegistry:
        if not NAME.fullmatch(name):
            raise RegistryError(f"{name!r} is not a host name (lowercase letters, digits, _)")
        taken = self.of(kind)
        if name in taken:
            raise RegistryError(f"{name} is registered already, at {_text(taken[name])}; "
                                "remove it first to give it another address")
        return HostRegistry({**self.hosts, kind: {**taken, name: address}}, self.version)

    def removed(self, kind: str, name: str) -> HostRegistry:
        left = self.of(kind)
        if left.pop(name, None) is None:
            raise RegistryError(f"{name} is not a registered {kind} host")
        return HostRegistry({**self.hosts, kind: left}, self.version)

    @staticmethod
    def dumps(value: HostRegistry) -> bytes:
        return json.dumps({kind: {name: _text(address) for name, address in names.items()}
                           for kind, names in value.hosts.items()}, sort_keys=True).encode()

    @staticmethod
    def loads(raw: bytes, version: int) -> HostRegistry:
        found = json.loads(raw or b"{}")
        return HostRegistry({kind: {name: parse_address(text) for name, text in names.items()}
                             for kind, names in found.items()}, version)


@cache
def registry_document() -> WatchedDocument[HostRegistry]:
    """The watched ``<ZK_ROOT>/hosts`` node (one per process)."""
    return WatchedDocument("hosts", cache_file("hosts"), decode=HostRegistry.loads,
                           encode=HostRegistry.dumps)


def seed(kind: str, configured: dict[str, Address]) -> list[str]:
    """Register the configured hosts the registry does not have (creating it if need be);
    returns the names added. A name registered at another address keeps that address."""
    document = registry_document()
    if document.create(HostRegistry({_kind(kind): dict(configured)})):
        return sorted(configured)
    while True:
        current = document.read_fresh()
        missing = {name: address for name, address in configured.items()
                   if name not in current.of(kind)}
        if not missing:
            return []
        try:
            document.update(_with_hosts(kind, missing), expected_version=current.version)
        except DocumentConflict:
            continue
        return sorted(missing)


def _with_hosts(kind: str, hosts: dict[str, Address]) -> Callable[[HostRegistry], HostRegistry]:
    return lambda now: HostRegistry({**now.hosts, kind: {**now.of(kind), **hosts}}, now.version)


def registered(kind: str) -> dict[str, Address]:
    """The registered hosts of ``kind`` as this process knows them (none if the registry
    cannot be read)."""
    try:
        return registry_document().get().of(kind)
    except CoordinationUnavailable:
        return {}


def lookup(kind: str, name: str) -> Address | None:
    """The registered address of ``name``: from the watched copy, else from ZooKeeper now
    (a host registered a moment ago); None when it is not registered."""
    found = registered(kind).get(name)
    if found is not None:
        return found
    try:
        return registry_document().read_fresh().of(kind).get(name)
    except CoordinationUnavailable:
        return None


def add(kind: str, name: str, address: Address) -> HostRegistry:
    """Register ``name`` at ``address`` (compare-and-set)."""
    return _change(lambda now: now.added(kind, name, address))


def remove(kind: str, name: str) -> HostRegistry:
    """Take ``name`` out of the registry (the caller checks that no map names it)."""
    return _change(lambda now: now.removed(kind, name))


def _change(change: Callable[[HostRegistry], HostRegistry]) -> HostRegistry:
    return registry_document().update_or_create(change, HostRegistry())


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise RegistryError(f"unknown kind of host {kind!r} (known: {', '.join(KINDS)})")
    return kind


def _text(address: Address) -> str:
    return f"{address[0]}:{address[1]}"


def parse_address(text: str) -> Address:
    """``host:port`` as a pair (``RegistryError`` when it is not one)."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RegistryError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)
