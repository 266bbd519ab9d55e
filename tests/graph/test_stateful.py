"""The follower graph against a plain in-memory model, on the real Redis graph and edge log.

Random sequences of follows, unfollows, board creations and board unfollows; after every
step every selector and count is compared with the model (pages walked with a small page
size, so cursors are exercised), and after every run ``graph verify --user`` must find Redis
identical to what the edge log implies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from graph import actions, repair, selectors
from graph.exceptions import InvalidGraphInput
from tests.graph.helpers import new_board, new_user

Entry = tuple[int, int, bool]


@dataclass
class Model:
    """The graph's rules in plain Python."""

    owners: dict[int, int] = field(default_factory=dict)
    explicit: dict[tuple[int, int], int] = field(default_factory=dict)
    board_follows: dict[tuple[int, int], int] = field(default_factory=dict)
    unfollows: set[tuple[int, int]] = field(default_factory=set)

    def follow_user(self, follower: int, target: int, time_us: int) -> None:
        self.explicit.setdefault((follower, target), time_us)

    def unfollow_user(self, follower: int, target: int) -> None:
        self.explicit.pop((follower, target), None)
        self.unfollows -= {(f, b) for f, b in self.unfollows
                           if f == follower and self.owners[b] == target}

    def follow_board(self, follower: int, board: int, time_us: int) -> None:
        self.board_follows.setdefault((follower, board), time_us)
        self.unfollows.discard((follower, board))

    def unfollow_board(self, follower: int, board: int) -> None:
        self.board_follows.pop((follower, board), None)
        if (follower, self.owners[board]) in self.explicit:
            self.unfollows.add((follower, board))

    def follows_board(self, follower: int, board: int) -> bool:
        owner = self.owners[board]
        return (follower, board) in self.board_follows or (
            (follower, owner) in self.explicit and (follower, board) not in self.unfollows)

    def implicit(self, follower: int, owner: int) -> int | None:
        if (follower, owner) in self.explicit:
            return None
        times = [t for (f, b), t in self.board_follows.items()
                 if f == follower and self.owners[b] == owner]
        return min(times) if times else None

    def followers(self, user: int, users: list[int]) -> list[Entry]:
        entries = [(f, t, True) for (f, u), t in self.explicit.items() if u == user]
        entries += [(f, t, False) for f in users if (t := self.implicit(f, user)) is not None]
        return newest_first(entries)

    def followings(self, user: int, users: list[int]) -> list[Entry]:
        entries = [(u, t, True) for (f, u), t in self.explicit.items() if f == user]
        entries += [(u, t, False) for u in users if (t := self.implicit(user, u)) is not None]
        return newest_first(entries)

    def board_followers(self, board: int) -> list[Entry]:
        owner = self.owners[board]
        entries = [(f, t, True) for (f, b), t in self.board_follows.items() if b == board]
        explicit = {f for f, _, _ in entries}
        entries += [(f, t, False) for (f, u), t in self.explicit.items()
                    if u == owner and f not in explicit and (f, board) not in self.unfollows]
        return newest_first(entries)


def newest_first(entries: list[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (e[1], str(e[0])), reverse=True)


def walk(first_page: selectors.FollowPage,
         fetch: Callable[[str], selectors.FollowPage]) -> list[Entry]:
    """Every entry of a paged list, following the cursors."""
    page, entries = first_page, []
    while True:
        entries += [(f.user_id, f.time_us, f.explicit) for f in page.items]
        if page.next_cursor is None:
            return entries
        page = fetch(page.next_cursor)


class GraphMachine(RuleBasedStateMachine):
    """Follows and unfollows among a few fresh users, checked against :class:`Model`."""

    def __init__(self) -> None:
        super().__init__()
        self.model = Model()
        self.users: list[int] = []
        self.boards: list[int] = []

    @initialize()
    def start(self) -> None:
        self.users = [new_user() for _ in range(4)]
        for owner in (self.users[0], self.users[0], self.users[1]):
            self.add_board(owner)

    def add_board(self, owner: int) -> None:
        board = new_board(owner)
        self.boards.append(board)
        self.model.owners[board] = owner

    @rule(data=st.data())
    def create_board(self, data: st.DataObject) -> None:
        if len(self.boards) < 7:
            self.add_board(data.draw(st.sampled_from(self.users)))

    @rule(data=st.data())
    def follow_user(self, data: st.DataObject) -> None:
        follower, target = data.draw(st.permutations(self.users))[:2]
        change = actions.follow_user(follower, target)
        self.model.follow_user(follower, target, change.action_time_us)

    @rule(data=st.data())
    def unfollow_user(self, data: st.DataObject) -> None:
        follower, target = data.draw(st.permutations(self.users))[:2]
        actions.unfollow_user(follower, target)
        self.model.unfollow_user(follower, target)

    @rule(data=st.data())
    def follow_board(self, data: st.DataObject) -> None:
        follower, board = self._pick_board(data)
        change = actions.follow_board(follower, board)
        self.model.follow_board(follower, board, change.action_time_us)

    @rule(data=st.data())
    def unfollow_board(self, data: st.DataObject) -> None:
        follower, board = self._pick_board(data)
        actions.unfollow_board(follower, board)
        self.model.unfollow_board(follower, board)

    @rule(data=st.data())
    def self_follows_are_rejected(self, data: st.DataObject) -> None:
        user = data.draw(st.sampled_from(self.users))
        with pytest.raises(InvalidGraphInput):
            actions.follow_user(user, user)
        own = [b for b in self.boards if self.model.owners[b] == user]
        if own:
            with pytest.raises(InvalidGraphInput):
                actions.follow_board(user, own[0])

    def _pick_board(self, data: st.DataObject) -> tuple[int, int]:
        board = data.draw(st.sampled_from(self.boards))
        others = [u for u in self.users if u != self.model.owners[board]]
        return data.draw(st.sampled_from(others)), board

    @invariant()
    def user_checks_match(self) -> None:
        for follower in self.users:
            others = [u for u in self.users if u != follower]
            expected = [u for u in others if (follower, u) in self.model.explicit]
            assert selectors.which_users_followed(follower, others) == expected
            for target in others:
                assert selectors.is_following_user(follower, target) == (target in expected)
                kind = selectors.follow_kind(follower, target)
                implicit = self.model.implicit(follower, target) is not None
                assert kind == ("explicit" if target in expected else
                                "implicit" if implicit else None)

    @invariant()
    def board_checks_match(self) -> None:
        for follower in self.users:
            expected = [b for b in self.boards if self.model.follows_board(follower, b)]
            assert selectors.which_boards_followed(follower, self.boards) == expected
            for board in self.boards[:3]:
                assert selectors.is_following_board(follower, board) == (board in expected)

    @invariant()
    def counts_match(self) -> None:
        for user in self.users:
            assert selectors.follower_count(user) == len(self.model.followers(user, self.users))
            assert selectors.following_count(user) == len(self.model.followings(user,
                                                                                self.users))
            assert selectors.followed_board_count(user) == sum(
                1 for f, _ in self.model.board_follows if f == user)
        for board in self.boards:
            assert selectors.board_follower_count(board) == len(
                self.model.board_followers(board))

    @invariant()
    def pages_match(self) -> None:
        for user in self.users:
            assert walk(selectors.followers_page(user, limit=2),
                        partial(selectors.followers_page, user, 2)) == \
                self.model.followers(user, self.users)
            assert walk(selectors.followings_page(user, limit=2),
                        partial(selectors.followings_page, user, 2)) == \
                self.model.followings(user, self.users)

    @invariant()
    def board_pages_and_scans_match(self) -> None:
        for board in self.boards:
            expected = self.model.board_followers(board)
            assert walk(selectors.board_followers_page(board, limit=2),
                        partial(selectors.board_followers_page, board, 2)) == expected
            scanned = [f for chunk in selectors.iter_board_followers(board, chunk=2)
                       for f in chunk]
            assert sorted(scanned) == sorted(f for f, _, _ in expected)
            assert set(selectors.board_followers_among(board, self.users)) == set(scanned)

    def teardown(self) -> None:
        for user in self.users:
            report = repair.verify_user(user)
            assert report.clean, report.to_json()


# 12 runs of 20 steps per suite run (each draws new ones), within the suite's time budget.
GraphMachine.TestCase.settings = settings(
    max_examples=12, stateful_step_count=20, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
test_graph_matches_the_model = GraphMachine.TestCase
