"""Interest follows: both sides in one transaction, the followers sliced over their shards."""

from __future__ import annotations

import pytest

from graph import interests
from graph.events import INTEREST_FOLLOW_CHANGED
from graph.tables import INTEREST_FOLLOWED_BY_USER
from pins.exceptions import NotFound
from pins.interests import interest
from sharding import slices
from sharding.hosts import alias_for_shard
from sharding.ids import shard_of
from tests.events.helpers import recorded
from tests.graph.helpers import new_user


def test_following_an_interest_is_idempotent_and_recorded_as_an_event() -> None:
    fan = new_user()
    with recorded(INTEREST_FOLLOW_CHANGED) as published:
        assert interests.follow_interest(fan, "travel").changed
        assert not interests.follow_interest(fan, "travel").changed
        assert interests.unfollow_interest(fan, "travel").changed
        assert not interests.unfollow_interest(fan, "travel").changed
    assert [(p["follower_id"], p["interest_id"], p["action"]) for p in published] == [
        (fan, interest("travel").id, "follow"), (fan, interest("travel").id, "unfollow")]


def test_a_pinner_sees_which_interests_they_follow() -> None:
    fan = new_user()
    for slug in ("travel", "art", "food-and-drink"):
        interests.follow_interest(fan, slug)
    interests.unfollow_interest(fan, "art")
    assert [t.slug for t in interests.followed_interests(fan)] == ["food-and-drink", "travel"]
    assert interests.which_interests_followed(fan, ["art", "travel"]) == ["travel"]
    assert interests.is_following_interest(fan, "travel")
    assert interests.followed_interest_count(fan) == 2
    with pytest.raises(NotFound):
        interests.follow_interest(fan, "knitting")


def test_an_interests_followers_are_sliced_over_their_own_shards_and_all_found() -> None:
    fans: list[int] = []
    while len({shard_of(f) for f in fans}) < 4 or len({alias_for_shard(shard_of(f))
                                                        for f in fans}) < 2:
        fans.append(new_user())
    before = interests.interest_follower_count("weddings")
    for fan in fans:
        interests.follow_interest(fan, "weddings")
    shards = interests.slice_shards("weddings")
    assert {shard_of(fan) for fan in fans} <= set(shards)
    topic = interest("weddings").id
    for fan in fans:  # each row sits on its follower's shard, beside the follower's own rows
        assert slices.count(INTEREST_FOLLOWED_BY_USER, topic, [shard_of(fan)]) >= 1
        assert slices.contains(INTEREST_FOLLOWED_BY_USER, topic, fan)
    assert interests.interest_follower_count("weddings") == before + len(fans)
    found = [member for chunk in interests.iter_interest_followers("weddings", chunk=2)
             for member in chunk]
    assert set(fans) <= set(found) and len(found) == len(set(found))
    assert all(len(chunk) <= 2 for chunk in interests.iter_interest_followers("weddings", 2))


def test_forgetting_a_users_interests_removes_both_sides() -> None:
    fan = new_user()
    interests.follow_interest(fan, "sports")
    interests.follow_interest(fan, "humor")
    assert interests.forget_interests_of(fan) == 2
    assert interests.followed_interests(fan) == []
    assert not slices.contains(INTEREST_FOLLOWED_BY_USER, interest("sports").id, fan)
