"""Related managers and objects (no servers): built per instance, reached as Django's are,
loaded once, prefetched in one batch; pages walked from cursor to cursor."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pytest

from toolkit.paging import Page, walk
from toolkit.related import ClassManager, Related, RelatedObject, contribute, prefetch


@dataclass(frozen=True)
class Owner:
    id: int
    name: str


@dataclass(frozen=True)
class Item:
    id: int
    owner_id: int


class Loads:
    """A store of owners that counts its reads."""

    def __init__(self) -> None:
        self.one: list[int] = []
        self.many: list[list[int]] = []

    def load_one(self, owner_id: int) -> Owner:
        self.one.append(owner_id)
        return Owner(owner_id, f"owner {owner_id}")

    def load_many(self, owner_ids: Iterable[int]) -> dict[int, Owner]:
        wanted = sorted(owner_ids)
        self.many.append(wanted)
        return {owner_id: Owner(owner_id, f"owner {owner_id}") for owner_id in wanted
                if owner_id != 404}


@pytest.fixture
def loads() -> Loads:
    found = Loads()
    contribute([Item], "owner", RelatedObject("owner_id", found.load_one, found.load_many))
    return found


def test_a_related_manager_is_built_for_each_instance() -> None:
    contribute([Owner], "shout", Related(lambda owner: owner.name.upper()))
    assert Owner(1, "ada").shout == "ADA"  # type: ignore[attr-defined]
    assert isinstance(Owner.shout, Related)  # type: ignore[attr-defined]


def test_a_class_manager_is_reached_through_the_class_only() -> None:
    contribute([Owner], "objects", ClassManager("the manager"))
    assert Owner.objects == "the manager"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="through the class"):
        Owner(1, "ada").objects  # type: ignore[attr-defined]  # noqa: B018


def test_a_related_object_is_loaded_once_and_kept(loads: Loads) -> None:
    item = Item(1, owner_id=7)
    assert item.owner.name == "owner 7"  # type: ignore[attr-defined]
    assert item.owner.name == "owner 7"  # type: ignore[attr-defined]
    assert loads.one == [7] and item == Item(1, 7)  # kept beside the fields, not among them


def test_prefetch_loads_every_instance_in_one_batch(loads: Loads) -> None:
    items = prefetch([Item(1, 7), Item(2, 8), Item(3, 7)], "owner")
    assert [item.owner.name for item in items] == ["owner 7", "owner 8", "owner 7"]  # type: ignore[attr-defined]
    assert loads.many == [[7, 8]] and loads.one == []


def test_prefetch_skips_instances_holding_their_object_and_leaves_missing_ones(
        loads: Loads) -> None:
    held, gone = Item(1, 7), Item(2, 404)
    held.owner  # type: ignore[attr-defined]  # noqa: B018
    prefetch([held, gone], "owner")
    assert loads.many == [[404]]
    gone.owner  # type: ignore[attr-defined]  # noqa: B018  # loaded alone when used
    assert loads.one == [7, 404]


def test_prefetch_names_what_is_not_a_related_object(loads: Loads) -> None:
    with pytest.raises(AttributeError, match=r"Item\.owner_id is not a related object"):
        prefetch([Item(1, 7)], "owner_id")


def test_walk_reads_from_cursor_to_cursor() -> None:
    items = list(range(10))
    asked: list[tuple[int, str | None]] = []

    def read(limit: int, cursor: str | None) -> Page[int]:
        asked.append((limit, cursor))
        start = int(cursor or 0)
        end = start + limit
        return Page(items[start:end], str(end) if end < len(items) else None)

    assert list(walk(read, 4)) == items
    assert asked == [(4, None), (4, "4"), (4, "8")]
