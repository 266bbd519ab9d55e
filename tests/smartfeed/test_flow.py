"""The smart feed end to end on the real stack: events reach the pools through the queue
worker, a visit shows a chunk best first and materializes it, later pages continue into what
was shown before."""

from __future__ import annotations

import dramatiq

from feed.smart import materialized, pools
from feed.smart.generator import generate
from feed.smart.intake import rebuild
from feed.smart.schema import Affinity, affinity_column
from feed.smart.scoring import POINTS
from feed.smart.service import home_page
from graph.actions import follow_board, follow_user, unfollow_board
from graph.interests import follow_interest, slice_shards, unfollow_interest
from pins.actions import create_board, delete_pin, repin
from pins.interests import interest
from pins.related import related_pins
from sharding.hosts import alias_for_shard
from sharding.ids import shard_of
from tests.feed.helpers import new_board, new_pin, new_user
from tests.polling import wait_until


def pooled(user: int, source: str) -> list[int]:
    return [c.pin_id for c in pools.best(user, source, 100)]  # type: ignore[arg-type]


def settled(user: int, kind: Affinity, target: int, points: int = POINTS["follow"]) -> None:
    """Wait until the worker has handled a follow (or unfollow) of ``user``'s: its affinity
    points are the message's last write. Pins made after it then reach the pools through the
    fanout alone, never a second time through the follow's backfill."""
    column = affinity_column(kind, target)
    assert wait_until(lambda: pools.affinity_points(user, [column]).get(column) == points)


def followed_pins(count: int) -> tuple[int, list[int]]:
    """A reader following a pinner, and ``count`` new pins of that pinner's, in the reader's
    following pool."""
    owner, reader = new_user("sfo"), new_user("sfr")
    board = new_board(owner)
    follow_user(reader, owner)
    settled(reader, "p", owner)
    pins = [new_pin(owner, board, f"pin {n}") for n in range(count)]
    assert wait_until(lambda: len(pooled(reader, "following")) == count)
    return reader, pins


def test_a_new_pin_reaches_board_followers_and_interest_followers(worker: dramatiq.Worker,
                                                                  ) -> None:
    owner = new_user("sfo")
    board = create_board(owner, "Trips", interest="travel").id
    fan, topic_fan = new_user("sff"), new_user("sfi")
    follow_board(fan, board)
    follow_interest(topic_fan, "travel")
    pin = new_pin(owner, board, "Lisbon")
    assert wait_until(lambda: pin in pooled(fan, "following"))
    assert wait_until(lambda: pin in pooled(topic_fan, "interests"))
    assert pin not in pooled(owner, "following")


def test_a_visit_shows_a_chunk_then_pages_into_the_materialized_feed(
        worker: dramatiq.Worker) -> None:
    reader, pins = followed_pins(6)
    first = home_page(reader, limit=4)
    assert first.outcome == "chunk" and first.new == 4
    assert {pin.id for pin in first.items} <= set(pins)
    # a chunk is no larger than its page: the two pins it did not show stay in the pool
    assert wait_until(lambda: len(materialized.read("primary", reader)) == 4)
    assert wait_until(lambda: len(pooled(reader, "following")) == 2)
    second = home_page(reader, limit=4)
    assert second.outcome == "chunk" and second.new == 2
    assert second.next_cursor is not None
    assert wait_until(lambda: len(materialized.read("primary", reader)) == 6)
    assert wait_until(lambda: pooled(reader, "following") == [])
    third = home_page(reader, limit=4, after=second.next_cursor)
    assert third.outcome == "page"
    assert [p.id for p in second.items] + [p.id for p in third.items] == [
        entry.pin_id for entry in materialized.read("primary", reader)]
    assert {p.id for p in second.items} | {p.id for p in third.items} == set(pins)
    again = home_page(reader, limit=10)
    assert again.new == 0 and len(again.items) == 6


def test_an_interest_with_followers_on_many_shards_fans_out_to_every_one(
        worker: dramatiq.Worker) -> None:
    fans: list[int] = []
    while len({shard_of(f) for f in fans}) < 4 or len({alias_for_shard(shard_of(f))
                                                        for f in fans}) < 2:
        fans.append(new_user("sfi"))
    for fan in fans:
        follow_interest(fan, "architecture")
    assert len(set(slice_shards("architecture")) & {shard_of(f) for f in fans}) >= 4
    owner = new_user("sfo")
    pin = new_pin(owner, create_board(owner, "Towers", interest="architecture").id, "Tower")
    assert wait_until(lambda: all(pin in pooled(fan, "interests") for fan in fans))


def test_a_follow_backfills_the_pool_and_a_repin_brings_related_pins(
        worker: dramatiq.Worker) -> None:
    owner, reader = new_user("sfo"), new_user("sfr")
    board = new_board(owner)
    pins = [new_pin(owner, board, f"pin {n}") for n in range(3)]
    follow_board(reader, board)
    assert wait_until(lambda: set(pooled(reader, "following")) == set(pins))
    settled(reader, "b", board)
    assert pools.all_affinities(reader) == {f"b:{board}": 5}
    other = new_user("sfx")
    saved = new_board(other, "Saved")
    repin(other, pins[0], saved)
    repin(other, pins[1], saved)  # the two now share a board: related
    assert wait_until(lambda: [pin.id for pin, _ in related_pins(pins[1])] == [pins[0]])
    repin(reader, pins[1], new_board(reader, "Mine"))
    assert wait_until(lambda: pooled(reader, "related") == [pins[0]])
    assert wait_until(lambda: pools.all_affinities(reader).get(f"p:{owner}") == 3)


def test_unfollows_purge_what_they_brought_into_the_pools(worker: dramatiq.Worker) -> None:
    owner, reader = new_user("sfo"), new_user("sfr")
    kept, dropped = new_board(owner, "Kept"), create_board(owner, "Dropped",
                                                           interest="gardening").id
    kept_pin, dropped_pin = new_pin(owner, kept), new_pin(owner, dropped)
    follow_board(reader, kept)
    follow_board(reader, dropped)
    follow_interest(reader, "gardening")
    assert wait_until(lambda: set(pooled(reader, "following")) == {kept_pin, dropped_pin})
    assert wait_until(lambda: dropped_pin in pooled(reader, "interests"))
    unfollow_board(reader, dropped)
    assert wait_until(lambda: pooled(reader, "following") == [kept_pin])
    settled(reader, "b", dropped, 0)
    assert dropped_pin in pooled(reader, "interests")  # it came through the interest too
    unfollow_interest(reader, "gardening")
    assert wait_until(lambda: dropped_pin not in pooled(reader, "interests"))
    settled(reader, "i", interest("gardening").id, 0)
    assert pools.all_affinities(reader) == {f"b:{kept}": 5, f"b:{dropped}": 0,
                                            f"i:{interest('gardening').id}": 0}


def test_a_deleted_pin_is_left_out_of_the_chunk_and_removed(worker: dramatiq.Worker) -> None:
    owner, reader = new_user("sfo"), new_user("sfr")
    board = new_board(owner)
    follow_board(reader, board)
    settled(reader, "b", board)
    alive, deleted = new_pin(owner, board, "stays"), new_pin(owner, board, "goes")
    assert wait_until(lambda: set(pooled(reader, "following")) == {alive, deleted})
    delete_pin(owner, deleted)
    chunk = generate(reader)
    assert [pick.pin_id for pick in chunk.picks] == [alive]
    assert [c.pin_id for c in chunk.gone] == [deleted]
    page = home_page(reader)
    assert [pin.id for pin in page.items] == [alive]
    assert wait_until(lambda: pooled(reader, "following") == [])


def test_two_quick_visits_leave_each_pin_once_in_the_materialized_feed(
        worker: dramatiq.Worker) -> None:
    reader, pins = followed_pins(4)
    worker.pause()
    first, second = home_page(reader), home_page(reader)  # the queue applies neither yet
    worker.resume()
    assert first.new == second.new == 4
    assert wait_until(lambda: pooled(reader, "following") == [])
    assert wait_until(lambda: sorted(e.pin_id for e in materialized.read("primary", reader))
                      == sorted(pins))
    assert wait_until(lambda: sorted(e.pin_id for e in materialized.read("standby", reader))
                      == sorted(pins))


def test_a_rebuild_refills_the_pools_and_keeps_the_affinities(worker: dramatiq.Worker) -> None:
    owner, reader = new_user("sfo"), new_user("sfr")
    board = create_board(owner, "Nooks", interest="home-decor").id
    follow_board(reader, board)
    follow_interest(reader, "home-decor")
    settled(reader, "b", board)
    settled(reader, "i", interest("home-decor").id)
    pins = [new_pin(owner, board, f"nook {n}") for n in range(3)]
    assert wait_until(lambda: set(pooled(reader, "following")) == set(pins))
    assert wait_until(lambda: set(pins) <= set(pooled(reader, "interests")))
    affinities = pools.all_affinities(reader)
    pools.clear(reader)
    assert pooled(reader, "following") == []
    sizes = rebuild(reader)
    assert set(pooled(reader, "following")) == set(pins) and sizes["following"] == 3
    assert set(pins) <= set(pooled(reader, "interests"))
    assert pools.all_affinities(reader) == affinities
