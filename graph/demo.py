"""Demo follows: every demo pinner follows a few others, one board of someone else, and two
interests.

>>> seed_follows({alice: [a1], bob: [b1, b2], carol: [c1]}, per_user=2, seed=1)
8
"""

from __future__ import annotations

import random
from collections.abc import Callable

from graph.actions import follow_board, follow_user
from graph.interests import follow_interest
from pins.interests import all_interests

INTERESTS_PER_USER = 2


def follow_steps(users: int, per_user: int, boards: bool = True) -> int:
    """The follows :func:`seed_follows` makes among ``users`` pinners (its ``step`` calls):
    ``per_user`` pinners each (all the others, when fewer), and a board of one more pinner
    when one is left and pinners have boards."""
    others = max(0, users - 1)
    return users * (min(per_user, others) + int(boards and others > per_user))


def seed_follows(boards_of: dict[int, list[int]], per_user: int, seed: int,
                 step: Callable[[], object] = lambda: None) -> int:
    """Follow ``per_user`` random pinners and one other pinner's board per pinner, through the
    ordinary actions (so the feed fans the followees' pins in), and two random interests.
    Returns the follows of pinners and boards made."""
    rng = random.Random(seed)
    users = list(boards_of)
    made = 0
    for follower in users:
        others = [user for user in users if user != follower]
        followed = rng.sample(others, min(per_user, len(others)))
        for target in followed:
            made += follow_user(follower, target).changed
            step()
        single = [user for user in others if user not in followed and boards_of[user]]
        if single:
            made += follow_board(follower, rng.choice(boards_of[rng.choice(single)])).changed
            step()
        for topic in rng.sample(all_interests(), INTERESTS_PER_USER):
            follow_interest(follower, topic.slug)
    return made
