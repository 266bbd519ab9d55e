"""Comparing what Redis holds with what the edge log implies (pure functions).

>>> compare({"g:{1}:u:5:fwe": {7: 10}}, {"g:{1}:u:5:fwe": {7: 10, 8: 11}})
[Difference(key='g:{1}:u:5:fwe', missing=(), extra=(8,), changed=(), counter=None)]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from graph.keys import Value, parse, vshard_of_key


@dataclass(frozen=True)
class Difference:
    """How one key differs: members the log has and Redis lacks (``missing``), members only
    Redis has (``extra``), members with another time (``changed``), or a counter's
    ``(log, redis)`` values."""

    key: str
    missing: tuple[int, ...] = ()
    extra: tuple[int, ...] = ()
    changed: tuple[int, ...] = ()
    counter: tuple[int, int] | None = None

    @property
    def vshard(self) -> int | None:
        return vshard_of_key(self.key)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("missing", "extra", "changed"):
            data[name] = [str(member) for member in data[name]]
        return {"vshard": self.vshard, **data}


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of ``graph verify`` for one scope."""

    scope: str
    log_rows: int
    keys_checked: int
    orphan_rows: int
    differences: list[Difference] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "log_rows": self.log_rows,
                "keys_checked": self.keys_checked, "orphan_rows": self.orphan_rows,
                "difference_count": len(self.differences),
                "vshards": sorted({d.vshard for d in self.differences if d.vshard is not None}),
                "differences": [d.to_json() for d in self.differences]}


def compare(expected: dict[str, Value], actual: dict[str, Value]) -> list[Difference]:
    """Every key whose value differs between the log's projection and Redis."""
    found = (key_difference(key, expected.get(key), actual.get(key))
             for key in sorted(set(expected) | set(actual)))
    return [difference for difference in found if difference is not None]


def key_difference(key: str, want: Value | None, have: Value | None) -> Difference | None:
    parsed = parse(key)
    if parsed is not None and parsed.type == "count":
        wanted, held = int(want or 0), int(have or 0)  # type: ignore[arg-type]
        return None if wanted == held else Difference(key, counter=(wanted, held))
    wanted_map, held_map = _as_map(want), _as_map(have)
    missing = tuple(sorted(set(wanted_map) - set(held_map)))
    extra = tuple(sorted(set(held_map) - set(wanted_map)))
    changed = tuple(sorted(m for m in set(wanted_map) & set(held_map)
                           if wanted_map[m] != held_map[m]))
    return Difference(key, missing, extra, changed) if missing or extra or changed else None


def member_difference(key: str, member: int, want: int | bool | None,
                      have: int | bool | None) -> Difference | None:
    """How one member of a key differs (``--user`` checks others' keys member by member)."""
    if want == have:
        return None
    if have is None:
        return Difference(key, missing=(member,))
    if want is None:
        return Difference(key, extra=(member,))
    return Difference(key, changed=(member,))


def member_value(value: Value | None, member: int) -> int | bool | None:
    """``member``'s score or hash value in ``value``, True if in a set, None if absent."""
    if isinstance(value, dict):
        return value.get(member)
    if isinstance(value, set):
        return True if member in value else None
    return None


def _as_map(value: Value | None) -> dict[int, int | None]:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, set):
        return dict.fromkeys(value)
    return {}
