"""Feed tables on the real primary cluster: created with the block cache on, and an existing
table made without it named as such."""

from __future__ import annotations

import time

from feed.store.pools import ddl_connection
from feed.store.tables import drop_table, ensure_table


def _cached(name: str) -> dict[str, bool]:
    with ddl_connection("primary") as conn:
        return {family.decode().rstrip(":"): options["block_cache_enabled"]
                for family, options in conn.table(name).families().items()}


def test_a_table_is_created_with_the_block_cache_on_in_every_family() -> None:
    name = f"pinsite_tables_{time.time_ns()}"
    try:
        assert ensure_table("primary", name, {"f": {"max_versions": 1}, "m": {}}) == "created"
        assert _cached(name) == {"f": True, "m": True}
        assert ensure_table("primary", name, {"f": {"max_versions": 1}}) == "exists"
    finally:
        drop_table("primary", name)


def test_an_existing_table_without_the_block_cache_is_named() -> None:
    name = f"pinsite_tables_{time.time_ns()}"
    with ddl_connection("primary") as conn:
        conn.create_table(name, {"f": {"max_versions": 1}, "m": {"block_cache_enabled": True}})
    try:
        assert ensure_table("primary", name, {"f": {}, "m": {}}) == (
            "exists, block cache off in families f")
    finally:
        drop_table("primary", name)
