"""The content's object types and mapping tables (registered with the sharding layer).

Type numbers are part of every ID and never change: pin 1, board 2, user 3, interest 4.
"""

from sharding.ids import ObjectType, types
from sharding.mappings import MappingTable, register

PIN = types.register(ObjectType(1, "pin", "pins"))
BOARD = types.register(ObjectType(2, "board", "boards"))
USER = types.register(ObjectType(3, "user", "users"))
INTEREST = types.register(ObjectType(4, "interest", "interests", stored=False))
"""An interest of the fixed taxonomy (:mod:`pins.interests`): IDs only, on shard 0."""

USER_HAS_BOARDS = register(MappingTable("user_has_boards", USER, BOARD))
USER_HAS_PINS = register(MappingTable("user_has_pins", USER, PIN))
BOARD_HAS_PINS = register(MappingTable("board_has_pins", BOARD, PIN))
PIN_HAS_REPINS = register(MappingTable("pin_has_repins", PIN, PIN))
PIN_RELATES_TO_PIN = register(MappingTable("pin_relates_to_pin", PIN, PIN))
"""Related pins, weighted: the sequence counts the boards both were saved to (heaviest first);
kept to the strongest few by :mod:`pins.related`."""
REPIN_COUNTED_FOR_RELATED = register(MappingTable("repin_counted_for_related", PIN, PIN))
"""A repin's mark (``repin → repin``) once its board's co-occurrences were counted."""
IMAGE_HAS_PINS = register(MappingTable("image_has_pins", PIN, PIN))
"""The pins sharing the image that pin ``from_id`` uploaded (itself and its repins' chain), on
that pin's shard: the image's files go when no existing pin is left in this list."""
INTEREST_HAS_PIN = register(MappingTable("interest_has_pin", INTEREST, PIN))
"""The pins carrying an interest, sliced (:mod:`sharding.slices`): each row on its pin's shard,
written in the pin's own transaction, sequence = the pin's creation time
(:mod:`pins.interest_pins`)."""
