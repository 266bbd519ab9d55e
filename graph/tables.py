"""The durable edge log: mapping tables on the FOLLOWER's MySQL shard, sequence = action time.

``shards init`` creates them on every shard because they are registered here (the app's
``ready()`` imports this module).
"""

from pins.types import BOARD, INTEREST, USER
from sharding.mappings import MappingTable, register

# The edge log is read whole, by point lookups and by range scans, never by cached pages
# (Redis answers the graph's reads), so its writes skip the list cache.
USER_FOLLOWS_USER = register(MappingTable("user_follows_user", USER, USER, cached=False))
USER_FOLLOWS_BOARD = register(MappingTable("user_follows_board", USER, BOARD, cached=False))
USER_UNFOLLOWS_BOARD = register(MappingTable("user_unfollows_board", USER, BOARD,
                                             cached=False))

USER_FOLLOWS_INTEREST = register(MappingTable("user_follows_interest", USER, INTEREST))
"""Interest follows, on the follower's shard (the follower's side)."""
INTEREST_FOLLOWED_BY_USER = register(MappingTable("interest_followed_by_user", INTEREST, USER))
"""An interest's followers, sliced: each row on the follower's shard (:mod:`sharding.slices`)."""

EDGE_LOG = (USER_FOLLOWS_USER, USER_FOLLOWS_BOARD, USER_UNFOLLOWS_BOARD)
