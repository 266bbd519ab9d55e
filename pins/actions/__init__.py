"""Domain writes of the content domain: one small function per action, called alike by views,
the API, commands and queue workers.

>>> board = create_board(owner_id, "Quiche")
>>> pin = create_pin(owner_id, board.id, "Leek quiche", "", "https://example.com", upload)
"""

from pins.actions.boards import create_board, delete_board, update_board
from pins.actions.pinners import create_pinner, random_open_shard, update_pinner
from pins.actions.pins import create_pin, delete_pin, repin, update_pin

__all__ = [
    "create_board",
    "create_pin",
    "create_pinner",
    "delete_board",
    "delete_pin",
    "random_open_shard",
    "repin",
    "update_board",
    "update_pin",
    "update_pinner",
]
