"""Related pins by board co-occurrence: two pins are related when they were saved to the same
boards. Each repin counts once: the pins already on the board it lands on become related to
the pin it saves, in both directions, by one more board.

Pins are related by *the pin that uploaded the image* (a repin's source chain and the source
itself count as one pin), so saving a popular pin again and again strengthens one item. Each
pin keeps only its ``RELATED_LIMIT`` strongest related pins (``pin_relates_to_pin``, weight
in the sequence column, on that pin's shard).

>>> record_repin(repin_id)      # by the worker, on ``pin_created`` of a repin
3
>>> [(pin.title, weight) for pin, weight in related_pins(source_id)]
[('Leek quiche', 2), ('Lemon tart', 1)]
"""

from __future__ import annotations

from typing import Any

from pins.domain import Pin
from pins.images import image_pin
from pins.types import (
    BOARD_HAS_PINS,
    PIN,
    PIN_RELATES_TO_PIN,
    REPIN_COUNTED_FOR_RELATED,
)
from sharding import mappings, objects
from sharding.ids import parse_id

RELATED_LIMIT = 100
"""Related pins kept per pin (the strongest)."""
BOARD_WINDOW = 50
"""How many of a board's newest pins a repin onto it becomes related to."""


def record_repin(repin_id: int) -> int:
    """Count the board a repin landed on: its source's item and each item already on that
    board become related by one more board. At most once per repin (a mark on the repin's
    shard is taken first); returns how many items it related the source to."""
    repin = objects.get(repin_id)
    if repin is None or repin.get("source_pin_id") is None:
        return 0
    if not _mark_counted(repin_id):
        return 0
    item = item_of(repin_id, repin)
    board = int(repin["board_id"])
    others = _items_on_board(board, skip=repin_id) - {item}
    grown = False
    for other in sorted(others):
        grown |= mappings.add_to_sequence(PIN_RELATES_TO_PIN, item, other, 1)
        if mappings.add_to_sequence(PIN_RELATES_TO_PIN, other, item, 1):
            mappings.keep_top(PIN_RELATES_TO_PIN, other, RELATED_LIMIT)
    if grown:  # only a new edge can take a list past the limit
        mappings.keep_top(PIN_RELATES_TO_PIN, item, RELATED_LIMIT)
    return len(others)


def related_pins(pin_id: int | str, limit: int = 20) -> list[tuple[Pin, int]]:
    """The pins most related to ``pin_id`` with their weights, strongest first (pins that
    were deleted meanwhile are skipped)."""
    value = parse_id(pin_id, PIN)
    data = objects.get(value)
    if data is None:
        return []
    entries = mappings.page(PIN_RELATES_TO_PIN, item_of(value, data), limit=limit).items
    found = objects.get_many([entry.to_id for entry in entries])
    return [(Pin.from_json(entry.to_id, found[entry.to_id]), entry.sequence)
            for entry in entries if entry.to_id in found]


def item_of(pin_id: int, data: dict[str, Any]) -> int:
    """The pin that stands for this pin's image: the pin that uploaded it (its own ID for an
    upload), else (a pin stored before images were tracked) a repin's source, else the pin."""
    uploaded_by = image_pin(pin_id, data)
    if uploaded_by is not None:
        return uploaded_by
    source = data.get("source_pin_id")
    return pin_id if source is None else int(source)


def _mark_counted(repin_id: int) -> bool:
    return mappings.add(REPIN_COUNTED_FOR_RELATED, repin_id, repin_id)


def _items_on_board(board_id: int, skip: int) -> set[int]:
    entries = mappings.page(BOARD_HAS_PINS, board_id, limit=BOARD_WINDOW + 1).items
    ids = [entry.to_id for entry in entries if entry.to_id != skip][:BOARD_WINDOW]
    found = objects.get_many(ids)
    return {item_of(pin_id, data) for pin_id, data in found.items()}
