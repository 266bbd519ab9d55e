"""An interest's pins (``interest_has_pin``): every pin made on a board with an interest, newest
first, for the interest's page and for feeds that backfill an interest's recent pins.

A popular interest gets millions of pins, so the list is *sliced* (:mod:`sharding.slices`): each
row lives on its pin's own shard and is written and removed in the pin's own transaction
(:mod:`pins.actions.pins`), sequence = the pin's creation time. :data:`SLICES`
(:class:`~pins.models.InterestPinSlice`) names the shards holding slices of each interest; a
read merges the newest rows of those slices, the hosts in parallel.

>>> interest_pin_ids(interest("travel").id, limit=2)
[(pin_id, created_us), (older_pin_id, older_created_us)]
"""

from __future__ import annotations

from pins.domain import JSONObject
from pins.interests import taxonomy
from pins.models import InterestPinSlice
from pins.types import INTEREST_HAS_PIN
from sharding import slices

SLICES = slices.SliceMap(InterestPinSlice, "interest_id")
"""The shards holding slices of each interest's pin list."""


def listed_interest(data: JSONObject) -> int | None:
    """The ID of the interest a pin (its stored JSON) is listed under, or ``None``."""
    slug = data.get("interest")
    found = taxonomy().by_slug.get(slug) if isinstance(slug, str) else None
    return None if found is None else found.id


def prepare(interest_id: int, shard: int) -> None:
    """Name ``shard`` in the interest's slice map; call before the pin's transaction."""
    SLICES.ensure(interest_id, shard)


def add(interest_id: int, pin_id: int, created_us: int) -> None:
    """List a new pin under its interest (inside the pin's transaction, after :func:`prepare`)."""
    slices.add(INTEREST_HAS_PIN, interest_id, pin_id, created_us)


def remove(interest_id: int, pin_id: int) -> None:
    """Take a deleted pin out of its interest's list (inside the pin's delete transaction)."""
    slices.remove(INTEREST_HAS_PIN, interest_id, pin_id)


def interest_pin_ids(interest_id: int, limit: int, before: int | None = None,
                     before_id: int | None = None) -> list[tuple[int, int]]:
    """``(pin_id, created_us)`` of the interest's ``limit`` newest pins, newest first.

    ``before`` (a creation time in microseconds) continues an earlier read: only older pins,
    or with ``before_id`` those after the pin ``(before_id, before)``. Deleted pins are gone
    from the list; a pin deleted while this runs may still appear (readers skip missing ones).
    """
    return slices.newest(INTEREST_HAS_PIN, interest_id, SLICES.shards(interest_id), limit,
                         before, before_id)
