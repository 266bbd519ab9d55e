"""Interest follows: a pinner follows topics of the taxonomy, and an interest's followers.

The follower's side is a row of ``user_follows_interest`` on the follower's shard. The
interest's side is *sliced* (:mod:`sharding.slices`): ``interest_followed_by_user`` keeps each
follower's row on the follower's own shard, so both rows change in one transaction on one host,
and no shard or Redis instance ever holds a popular interest's millions of followers whole.
:class:`~graph.models.InterestSlice` (through a :class:`~sharding.slices.SliceMap`) maps an
interest to the shards holding its slices; fanout walks them, the hosts in parallel. Each
change records ``interest_follow_changed``.

>>> follow_interest(alice, "travel").changed
True
>>> interest_follower_count("travel")
1
>>> list(iter_interest_followers("travel"))
[[alice]]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from graph import events, lookup
from graph.conf import page_size
from graph.events import Action
from graph.exceptions import InvalidGraphInput
from graph.models import InterestSlice
from graph.tables import INTEREST_FOLLOWED_BY_USER, USER_FOLLOWS_INTEREST
from pins.interests import Interest, all_interests, interest, interest_by_id
from sharding import mappings, slices
from sharding.hosts import atomic
from sharding.ids import shard_of
from toolkit.clock import now_us
from toolkit.paging import Page, decode_cursor, encode_cursor

FOLLOWER_SLICES = slices.SliceMap(InterestSlice, "interest_id")
"""The shards holding slices of each interest's followers."""


@dataclass(frozen=True)
class InterestFollowChange:
    """The outcome of an interest follow or unfollow; ``changed`` is False if it was so."""

    follower_id: int
    interest: Interest
    action: Action
    changed: bool
    action_time_us: int


def follow_interest(follower_id: int | str, slug: str) -> InterestFollowChange:
    """``follower_id`` follows the interest ``slug`` (idempotent)."""
    follower, topic = _inputs(follower_id, slug)
    FOLLOWER_SLICES.ensure(topic.id, shard_of(follower))
    with atomic(shard_of(follower)):
        now = now_us()
        added = mappings.add(USER_FOLLOWS_INTEREST, follower, topic.id, now)
        slices.add(INTEREST_FOLLOWED_BY_USER, topic.id, follower, now)
        if added:
            events.interest_follow_changed(follower, topic.id, "follow", now)
    return InterestFollowChange(follower, topic, "follow", added, now)


def unfollow_interest(follower_id: int | str, slug: str) -> InterestFollowChange:
    """``follower_id`` stops following the interest ``slug`` (idempotent)."""
    follower, topic = _inputs(follower_id, slug)
    return _unfollow(follower, topic)


def forget_interests_of(user_id: int) -> int:
    """Drop every interest follow of a user being deleted; returns how many there were."""
    followed = [entry.to_id for entry in mappings.iterate(USER_FOLLOWS_INTEREST, user_id)]
    return sum(_unfollow(user_id, interest_by_id(topic)).changed for topic in followed)


def followed_interests(user_id: int | str) -> list[Interest]:
    """The interests a pinner follows, in the taxonomy's order."""
    user = lookup.user_id(user_id)
    followed = {entry.to_id for entry in mappings.iterate(USER_FOLLOWS_INTEREST, user)}
    return [topic for topic in all_interests() if topic.id in followed]


def followed_interests_page(user_id: int | str, limit: int | None = None,
                            after: str | None = None) -> Page[Interest]:
    """The interests a pinner follows, in the taxonomy's order, ``limit`` at a time after the
    cursor ``after``."""
    size = page_size(limit)
    topics = followed_interests(user_id)
    start = _after(topics, after) if after else 0
    items = topics[start:start + size]
    more = start + size < len(topics)
    return Page(items, encode_cursor(items[-1].slug.encode()) if more else None)


def _after(topics: list[Interest], cursor: str) -> int:
    """The index just past the interest a cursor names (one unfollowed since included)."""
    try:
        slug = decode_cursor(cursor).decode()
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidGraphInput("the page cursor is not valid") from exc
    order = {topic.slug: index for index, topic in enumerate(all_interests())}
    if slug not in order:
        raise InvalidGraphInput("the page cursor is not valid")
    return sum(1 for topic in topics if order[topic.slug] <= order[slug])


def which_interests_followed(user_id: int | str, slugs: Sequence[str]) -> list[str]:
    """Those of ``slugs`` the pinner follows, in input order (unknown slugs raise)."""
    wanted = [interest(slug) for slug in slugs]
    followed = {topic.slug for topic in followed_interests(user_id)}
    return [topic.slug for topic in wanted if topic.slug in followed]


def is_following_interest(user_id: int | str, slug: str) -> bool:
    return mappings.contains(USER_FOLLOWS_INTEREST, lookup.user_id(user_id), interest(slug).id)


def interest_follower_count(slug: str) -> int:
    """Exact, summed over the interest's slices (one query per host and group of shards)."""
    topic = interest(slug)
    return slices.count(INTEREST_FOLLOWED_BY_USER, topic.id, FOLLOWER_SLICES.shards(topic.id))


def followed_interest_count(user_id: int | str) -> int:
    return mappings.count(USER_FOLLOWS_INTEREST, lookup.user_id(user_id))


def iter_interest_followers(slug: str, chunk: int = 1000) -> Iterator[list[int]]:
    """Every follower of an interest, ``chunk`` at a time, its slices read in parallel."""
    topic = interest(slug)
    yield from slices.members(INTEREST_FOLLOWED_BY_USER, topic.id,
                              FOLLOWER_SLICES.shards(topic.id), chunk)


def slice_shards(slug: str) -> list[int]:
    """The shards holding slices of an interest's followers (for operators and tests)."""
    return FOLLOWER_SLICES.shards(interest(slug).id)


def _unfollow(follower: int, topic: Interest) -> InterestFollowChange:
    with atomic(shard_of(follower)):
        now = now_us()
        removed = mappings.remove(USER_FOLLOWS_INTEREST, follower, topic.id)
        slices.remove(INTEREST_FOLLOWED_BY_USER, topic.id, follower)
        if removed:
            events.interest_follow_changed(follower, topic.id, "unfollow", now)
    return InterestFollowChange(follower, topic, "unfollow", removed, now)


def _inputs(follower_id: int | str, slug: str) -> tuple[int, Interest]:
    follower = lookup.user_id(follower_id)
    lookup.require_users(follower)
    return follower, interest(slug)
