"""Column names (``family:qualifier``) and the column selection of a read.

As in HBase's ``KeyValue.parseColumn``, the first ``:`` separates the family from the qualifier:
``b"cf:q"`` is one column, ``b"cf:"`` is the column with the empty qualifier, and ``b"cf"``
(no colon) is the whole family.
"""

from __future__ import annotations

from collections.abc import Iterable

from devstack.hbase.errors import NoSuchColumnFamilyError


def split_column(name: bytes) -> tuple[bytes, bytes | None]:
    """``(family, qualifier)``; the qualifier is None when ``name`` has no colon."""
    family, colon, qualifier = name.partition(b":")
    return family, qualifier if colon else None


def join_column(family: bytes, qualifier: bytes) -> bytes:
    """The ``family:qualifier`` name of a column."""
    return family + b":" + qualifier


class Selection:
    """The columns a read asks for: whole families plus single columns of other families."""

    __slots__ = ("columns", "families")

    def __init__(self, names: Iterable[bytes]) -> None:
        self.families: set[bytes] = set()
        self.columns: dict[bytes, set[bytes]] = {}
        for name in names:
            family, qualifier = split_column(name)
            if qualifier is None:
                self.families.add(family)
            else:
                self.columns.setdefault(family, set()).add(qualifier)

    def named_families(self) -> set[bytes]:
        return self.families | set(self.columns)

    def wants_family(self, family: bytes) -> bool:
        return family in self.families or family in self.columns

    def qualifiers(self, family: bytes) -> list[bytes] | None:
        """The chosen qualifiers of ``family`` in order, or None for all of them."""
        if family in self.families:
            return None
        return sorted(self.columns.get(family, ()))


def selection_for(table: bytes, families: Iterable[bytes],
                  names: list[bytes] | None) -> Selection | None:
    """The :class:`Selection` of ``names`` (None or empty: every column), checking families."""
    if not names:
        return None
    selection = Selection(names)
    known = set(families)
    for family in sorted(selection.named_families()):
        if family not in known:
            raise NoSuchColumnFamilyError(table, family)
    return selection
