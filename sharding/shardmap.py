"""The shard map: which physical master (and replica) holds each range of logical shards.

A pure value with no I/O; :mod:`sharding.coordination` keeps the current one from ZooKeeper.
Serialised as the source describes it::

    {"ranges": [{"range": [0, 2047], "master": "mysql001a", "replica": "mysql001b"}, ...]}
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sharding.exceptions import ShardMapError, ShardNotOpen
from sharding.ids import MAX_SHARD


@dataclass(frozen=True)
class ShardRange:
    """Logical shards ``first..last`` (inclusive) on one master, with its hot-standby replica."""

    first: int
    last: int
    master: str
    replica: str | None = None

    def __contains__(self, shard: object) -> bool:
        return isinstance(shard, int) and self.first <= shard <= self.last

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    def shards(self) -> range:
        return range(self.first, self.last + 1)

    def to_json(self) -> dict[str, Any]:
        return {"range": [self.first, self.last], "master": self.master, "replica": self.replica}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> ShardRange:
        try:
            first, last = raw["range"]
            return cls(int(first), int(last), str(raw["master"]), raw.get("replica") or None)
        except (KeyError, TypeError, ValueError) as exc:
            raise ShardMapError(f"malformed shard range {raw!r}") from exc


@dataclass(frozen=True)
class ShardMap:
    """Sorted, non-overlapping shard ranges. ``version`` is the ZooKeeper node version."""

    ranges: tuple[ShardRange, ...]
    version: int = -1
    _starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.ranges, key=lambda r: r.first))
        _validate(ordered)
        object.__setattr__(self, "ranges", ordered)
        object.__setattr__(self, "_starts", tuple(r.first for r in ordered))

    @classmethod
    def initial(cls, shard_count: int, pairs: Sequence[tuple[str, str | None]]) -> ShardMap:
        """Split shards ``0..shard_count-1`` evenly over the master/replica ``pairs``."""
        if not pairs:
            raise ShardMapError("at least one master host is needed")
        if not len(pairs) <= shard_count <= MAX_SHARD + 1:
            raise ShardMapError(f"shard count {shard_count} must be {len(pairs)}..{MAX_SHARD + 1}")
        size, extra = divmod(shard_count, len(pairs))
        ranges, first = [], 0
        for index, (master, replica) in enumerate(pairs):
            count = size + (1 if index < extra else 0)
            ranges.append(ShardRange(first, first + count - 1, master, replica))
            first += count
        return cls(tuple(ranges))

    def range_for(self, shard: int) -> ShardRange:
        """The range that holds ``shard``."""
        index = bisect.bisect_right(self._starts, shard) - 1
        if index >= 0 and shard in self.ranges[index]:
            return self.ranges[index]
        raise ShardNotOpen(f"shard {shard} is not open in the shard map")

    def master_for(self, shard: int) -> str:
        return self.range_for(shard).master

    def open_shards(self) -> list[int]:
        return [shard for r in self.ranges for shard in r.shards()]

    def shard_count(self) -> int:
        return sum(r.size for r in self.ranges)

    def masters(self) -> list[str]:
        return list(dict.fromkeys(r.master for r in self.ranges))

    def hosts(self) -> list[str]:
        """Every host named in the map, masters first."""
        replicas = [r.replica for r in self.ranges if r.replica]
        return list(dict.fromkeys([*self.masters(), *replicas]))

    def ranges_of(self, master: str) -> list[ShardRange]:
        return [r for r in self.ranges if r.master == master]

    def shards_of(self, master: str) -> list[int]:
        return [shard for r in self.ranges_of(master) for shard in r.shards()]

    def promoted(self, master: str) -> ShardMap:
        """The map after ``master``'s replica takes over every range it served (no replica left)."""
        ranges = self.ranges_of(master)
        if not ranges:
            raise ShardMapError(f"{master} is not a master in the shard map")
        replicas = {r.replica for r in ranges}
        replica = replicas.pop() if len(replicas) == 1 else None
        if replica is None:
            raise ShardMapError(f"{master} has no single replica to promote")
        return self._with(r if r.master != master else replace(r, master=replica, replica=None)
                          for r in self.ranges)

    def with_replica(self, master: str, replica: str | None) -> ShardMap:
        """The map with ``replica`` as the hot standby of every range of ``master``."""
        if not self.ranges_of(master):
            raise ShardMapError(f"{master} is not a master in the shard map")
        return self._with(replace(r, replica=replica) if r.master == master else r
                          for r in self.ranges)

    def with_range(self, new: ShardRange) -> ShardMap:
        """The map with a newly opened range (it must not overlap any open shard)."""
        return self._with([*self.ranges, new])

    def _with(self, ranges: Iterable[ShardRange]) -> ShardMap:
        return ShardMap(tuple(ranges), version=self.version)

    def to_json(self) -> dict[str, Any]:
        return {"ranges": [r.to_json() for r in self.ranges]}

    def dumps(self) -> bytes:
        return json.dumps(self.to_json(), sort_keys=True).encode()

    @classmethod
    def loads(cls, raw: bytes | str, version: int = -1) -> ShardMap:
        try:
            document = json.loads(raw)
            return cls(tuple(ShardRange.from_json(r) for r in document["ranges"]), version)
        except (KeyError, TypeError, ValueError) as exc:
            raise ShardMapError(f"malformed shard map: {exc}") from exc


def _validate(ranges: Sequence[ShardRange]) -> None:
    previous_last = -1
    for r in ranges:
        if not 0 <= r.first <= r.last <= MAX_SHARD:
            raise ShardMapError(f"range {r.first}..{r.last} is out of 0..{MAX_SHARD}")
        if r.first <= previous_last:
            raise ShardMapError(f"range {r.first}..{r.last} overlaps the previous range")
        if r.master == r.replica:
            raise ShardMapError(f"{r.master} cannot be its own replica")
        previous_last = r.last
