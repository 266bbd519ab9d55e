"""Range maps: contiguous ranges of numbered slots, each on one master with an optional replica.

The shard map (:mod:`sharding.shardmap`, logical MySQL shards) and the vshard map
(:mod:`graph.vshardmap`, Redis virtual shards) are both such maps: pure values, sorted by
``first``, serialised as::

    {"ranges": [{"range": [0, 2047], "master": "mysql001a", "replica": "mysql001b"}, ...]}

Each subclass names its error type and its noun (for messages) and checks its own coverage
rules in ``_validate``.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, Self, TypeVar


@dataclass(frozen=True)
class HostRange:
    """Slots ``first..last`` (inclusive) on one master, with its hot-standby replica.
    ``fenced``: the range is moving to another master; nobody may use it until it is moved
    (or unfenced)."""

    first: int
    last: int
    master: str
    replica: str | None = None
    fenced: bool = False

    error: ClassVar[type[Exception]] = ValueError
    noun: ClassVar[str] = "range"

    def __contains__(self, slot: object) -> bool:
        return isinstance(slot, int) and self.first <= slot <= self.last

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    def members(self) -> range:
        return range(self.first, self.last + 1)

    def to_json(self) -> dict[str, Any]:
        found = {"range": [self.first, self.last], "master": self.master, "replica": self.replica}
        return {**found, "fenced": True} if self.fenced else found

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Self:
        try:
            first, last = raw["range"]
            return cls(int(first), int(last), str(raw["master"]), raw.get("replica") or None,
                       bool(raw.get("fenced", False)))
        except (KeyError, TypeError, ValueError) as exc:
            raise cls.error(f"malformed {cls.noun} range {raw!r}") from exc


R = TypeVar("R", bound=HostRange)


@dataclass(frozen=True)
class RangeMap(Generic[R]):
    """Sorted ranges; ``version`` is the ZooKeeper node version the map was read at."""

    ranges: tuple[R, ...]
    version: int = -1
    _starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    range_type: ClassVar[type[HostRange]] = HostRange

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.ranges, key=lambda r: r.first))
        self._validate(ordered)
        object.__setattr__(self, "ranges", ordered)
        object.__setattr__(self, "_starts", tuple(r.first for r in ordered))

    def _validate(self, ranges: Sequence[R]) -> None:
        """Raise the map's error unless ``ranges`` (sorted) form a valid map."""

    def _find(self, slot: int) -> R | None:
        """The range holding ``slot``, or None."""
        index = bisect.bisect_right(self._starts, slot) - 1
        return self.ranges[index] if index >= 0 and slot in self.ranges[index] else None

    def master_for(self, slot: int) -> str:
        return self.range_for(slot).master

    def range_for(self, slot: int) -> R:
        raise NotImplementedError

    def masters(self) -> list[str]:
        return list(dict.fromkeys(r.master for r in self.ranges))

    def masters_of(self, replica: str) -> list[str]:
        """The masters whose replica ``replica`` is."""
        return list(dict.fromkeys(r.master for r in self.ranges if r.replica == replica))

    def roles(self) -> dict[str, str]:
        """Every host the map names: ``master`` or ``replica``."""
        roles = {r.replica: "replica" for r in self.ranges if r.replica}
        return {**roles, **{master: "master" for master in self.masters()}}

    def named(self) -> list[str]:
        """Every master and replica named in the map, masters first."""
        replicas = [r.replica for r in self.ranges if r.replica]
        return list(dict.fromkeys([*self.masters(), *replicas]))

    def ranges_of(self, master: str) -> list[R]:
        return [r for r in self.ranges if r.master == master]

    def members_of(self, master: str) -> list[int]:
        return [slot for r in self.ranges_of(master) for slot in r.members()]

    def with_replica(self, master: str, replica: str | None) -> Self:
        """The map with ``replica`` as the hot standby of every range of ``master``."""
        if not self.ranges_of(master):
            raise self.range_type.error(
                f"{master} is not a master in the {self.range_type.noun} map")
        return self._with(replace(r, replica=replica) if r.master == master else r
                          for r in self.ranges)

    def _with(self, ranges: Iterable[R]) -> Self:
        return type(self)(tuple(ranges), version=self.version)

    def to_json(self) -> dict[str, Any]:
        return {"ranges": [r.to_json() for r in self.ranges]}

    def dumps(self) -> bytes:
        return json.dumps(self.to_json(), sort_keys=True).encode()

    @classmethod
    def loads(cls, raw: bytes | str, version: int = -1) -> Self:
        try:
            document = json.loads(raw)
            ranges = tuple(cls.range_type.from_json(r) for r in document["ranges"])
            return cls(ranges, version)  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError) as exc:
            raise cls.range_type.error(
                f"malformed {cls.range_type.noun} map: {exc}") from exc
