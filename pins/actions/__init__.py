"""Domain writes of the content domain: one small function per action, called alike by views,
the API, commands and queue workers.

>>> board = create_board(owner_id, "Quiche")
>>> pin = create_pin(owner_id, board.id, "Leek quiche", "", "https://example.com", upload)

The ``create_*s`` actions make many at once (an import), one transaction per shard host.
"""

from pins.actions.boards import NewBoard, create_board, create_boards, delete_board, update_board
from pins.actions.pinners import (
    NewPinner,
    create_pinner,
    create_pinners,
    random_open_shard,
    update_pinner,
)
from pins.actions.pins import NewPin, create_pin, create_pins, delete_pin, repin, update_pin

__all__ = [
    "NewBoard",
    "NewPin",
    "NewPinner",
    "create_board",
    "create_boards",
    "create_pin",
    "create_pinner",
    "create_pinners",
    "create_pins",
    "delete_board",
    "delete_pin",
    "random_open_shard",
    "repin",
    "update_board",
    "update_pin",
    "update_pinner",
]
