"""The interest taxonomy: a fixed, versioned list of top-level topics, shipped as data
(``pins/data/interests.json``). A board may have one; its pins carry it.

Slugs and numbers are stable identifiers (slugs are stored on boards and pins and used in URLs,
numbers make the interests' 64-bit IDs); names are for people. A new version may add
interests or rename them, never reuse or remove a slug or a number.

>>> interest("food-and-drink").name
'Food and drink'
>>> clean_interest("")      # no interest
>>> clean_interest("knitting")
Traceback (most recent call last):
InvalidContent: There is no interest 'knitting'.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pins.exceptions import InvalidContent, NotFound
from pins.types import INTEREST
from sharding import ids

DATA = Path(__file__).with_name("data") / "interests.json"


@dataclass(frozen=True)
class Interest:
    """One topic; ``id`` is its 64-bit ID (type interest, shard 0, local = its fixed number)."""

    number: int
    slug: str
    name: str

    @property
    def id(self) -> int:
        return ids.compose(0, INTEREST.type_id, self.number)


@dataclass(frozen=True)
class Taxonomy:
    """The interests in order, with lookups by slug and by ID built once."""

    version: int
    interests: tuple[Interest, ...]
    by_slug: dict[str, Interest] = field(init=False, repr=False, compare=False)
    by_id: dict[int, Interest] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_slug", {item.slug: item for item in self.interests})
        object.__setattr__(self, "by_id", {item.id: item for item in self.interests})

    def slugs(self) -> list[str]:
        return list(self.by_slug)


@cache
def taxonomy() -> Taxonomy:
    """The shipped taxonomy (read once per process)."""
    document = json.loads(DATA.read_text(encoding="utf-8"))
    interests = tuple(Interest(int(item["number"]), item["slug"], item["name"])
                      for item in document["interests"])
    return Taxonomy(int(document["version"]), interests)


def all_interests() -> list[Interest]:
    """Every interest, in the taxonomy's (alphabetical) order."""
    return list(taxonomy().interests)


def interest(slug: str) -> Interest:
    """The interest with this slug, or :class:`~pins.exceptions.NotFound`."""
    found = taxonomy().by_slug.get(slug)
    if found is None:
        raise NotFound(f"There is no interest {slug!r}.")
    return found


def interest_by_id(interest_id: int) -> Interest:
    """The interest with this 64-bit ID, or :class:`~pins.exceptions.NotFound`."""
    found = taxonomy().by_id.get(interest_id)
    if found is None:
        raise NotFound(f"There is no interest {interest_id}.")
    return found


def clean_interest(value: str | None) -> str | None:
    """A board's interest as given by a pinner: a known slug, or ``None`` for none (``""``
    clears it); anything else is :class:`~pins.exceptions.InvalidContent`."""
    if value is None or value == "":
        return None
    try:
        return interest(value).slug
    except NotFound:
        raise InvalidContent(f"There is no interest {value!r}.", field="interest") from None
