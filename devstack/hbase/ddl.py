"""Table administration: create, delete, enable/disable, compact, describe."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from devstack.hbase.columns import split_column
from devstack.hbase.errors import IllegalArgumentError, TableExistsError, TableStateError
from devstack.hbase.records import COMPACT, CREATE, DROP, ENABLE, now_ms
from devstack.hbase.store import Store
from devstack.hbase.table import Family, Table

TABLE_NAME = re.compile(rb"(?:[A-Za-z0-9_]+:)?[A-Za-z0-9_][A-Za-z0-9_.-]*")
FAMILY_NAME = re.compile(rb"[^.:\x00-\x1f][^:\x00-\x1f]*")


@dataclass(frozen=True)
class FamilySpec:
    """A requested column family: the ``ColumnDescriptor`` name, versions and other fields."""

    name: bytes | None
    max_versions: int
    options: dict[str, Any]


def create_table(store: Store, name: bytes, specs: list[FamilySpec]) -> None:
    """Create ``name`` with the families of ``specs``."""
    if not TABLE_NAME.fullmatch(name or b""):
        raise IllegalArgumentError(f"Illegal table name {name!r}: use letters, digits, _ - .")
    families = _families(specs)
    with store.lock:
        if name in store.tables:
            raise TableExistsError("table name already in use")
        plain = [(family.name, family.max_versions, family.options) for family in families]
        store.commit((CREATE, name, now_ms(), plain))


def delete_table(store: Store, name: bytes) -> None:
    """Delete a disabled table and all its data."""
    with store.lock:
        if name not in store.tables:
            raise TableStateError("table does not exist")
        if store.table(name).enabled:
            raise TableStateError(f"TableNotDisabledException: {name.decode(errors='replace')}")
        store.commit((DROP, name))


def set_enabled(store: Store, name: bytes, enabled: bool) -> None:
    """Enable or disable a table (refused if it already is, as HBase does)."""
    with store.lock:
        table = store.table(name)
        if table.enabled == enabled:
            state = "TableNotDisabledException" if enabled else "TableNotEnabledException"
            raise TableStateError(f"{state}: {name.decode(errors='replace')}")
        store.commit((ENABLE, name, enabled))


def is_enabled(store: Store, name: bytes) -> bool:
    with store.lock:
        return store.table(name).enabled


def major_compact(store: Store, name: bytes) -> None:
    """Purge delete markers (and the cells they masked) of the table ``name``."""
    with store.lock:
        store.table(name)
        store.commit((COMPACT, name))


def table_names(store: Store) -> list[bytes]:
    with store.lock:
        return sorted(store.tables)


def table_info(store: Store, name: bytes) -> Table:
    """The table (for its families and creation time; do not touch its rows)."""
    with store.lock:
        return store.table(name)


def _families(specs: list[FamilySpec]) -> list[Family]:
    if not specs:
        raise IllegalArgumentError("Table should have at least one column family")
    families: dict[bytes, Family] = {}
    for spec in specs:
        family = split_column(spec.name or b"")[0]
        if not family:
            raise IllegalArgumentError("column name is empty")
        if not FAMILY_NAME.fullmatch(family):
            raise IllegalArgumentError(f"Illegal column family name {family!r}")
        if family in families:
            raise IllegalArgumentError(f"Family {family!r} already exists")
        if spec.max_versions < 1:
            raise IllegalArgumentError(f"Maximum versions must be positive: {spec.max_versions}")
        families[family] = Family(family, spec.max_versions, spec.options)
    return list(families.values())
