"""Deleting an account, everywhere: content, follows, feeds, and the account itself.

:func:`pins.actions.pinners.request_account_deletion` (web UI, API, admin) deactivates the
account and records ``account_deletion_requested``; the queue runs :func:`delete_account`, which
is idempotent step by step, so a worker killed half-way finishes when the message is delivered
again (or when the deletion is requested again):

1. the boards, each with its pins (``board_deleted``: the graph drops the board's follows, the
   feeds the board's pins), then any pin still listed as the user's; each pin that shared an
   image releases it (``image_released``: the files go when no pin shares them);
2. the follows, both ways (the graph announces each as an unfollow: the feeds sweep the
   deleted pins), and the interests followed;
3. the data exports, zips and rows (:mod:`accounts.exports`);
4. the user object (``user_deleted``: the feed rows on both clusters go), sessions, tokens,
   the ``Pinner`` row and the auth account: the username is free again.

Repins that others made of the pinner's pins stay, with their images.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from accounts.exports import discard_exports_of
from graph.actions import forget_user
from graph.interests import forget_interests_of
from pins.actions.boards import remove_board
from pins.actions.pinners import remove_pinner
from pins.actions.pins import delete_pins_of_user
from pins.types import USER_HAS_BOARDS
from sharding import mappings

log = logging.getLogger("pinsite.accounts")


@dataclass(frozen=True)
class Deleted:
    """What one run of :func:`delete_account` removed."""

    boards: int
    pins: int
    follows: int


def delete_account(user_id: int) -> Deleted:
    """Delete everything of ``user_id`` (see the module's steps); safe to run again."""
    boards = pins = 0
    for entry in list(mappings.iterate(USER_HAS_BOARDS, user_id)):
        pins += remove_board(entry.to_id, user_id)
        boards += 1
    pins += delete_pins_of_user(user_id)
    follows = forget_user(user_id) + forget_interests_of(user_id)
    discard_exports_of(user_id)
    remove_pinner(user_id)
    log.info("account %d deleted: %d boards, %d pins, %d follows", user_id, boards, pins,
             follows)
    return Deleted(boards, pins, follows)
