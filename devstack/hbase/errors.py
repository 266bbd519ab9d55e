"""Errors of the development server, each mapped to the Thrift exception HBase would raise.

The processor (:mod:`devstack.hbase.server`) turns an :class:`HBaseError` into the IDL exception
named by ``thrift_name`` when the called method declares it, else into ``IOError``.
"""

from __future__ import annotations


class HBaseError(Exception):
    """A request failed; sent to the client as the Thrift ``IOError``."""

    thrift_name = "IOError"


class IllegalArgumentError(HBaseError):
    """The request is malformed; sent as ``IllegalArgument``."""

    thrift_name = "IllegalArgument"


class TableExistsError(HBaseError):
    """``createTable`` of a name in use; sent as ``AlreadyExists``."""

    thrift_name = "AlreadyExists"


class TableNotFoundError(HBaseError):
    """No table of that name."""

    def __init__(self, name: bytes) -> None:
        super().__init__(f"TableNotFoundException: {name.decode(errors='replace')}")


class TableStateError(HBaseError):
    """The table is disabled (for data access) or enabled (for ``deleteTable``)."""


class NoSuchColumnFamilyError(HBaseError):
    """A mutation or read names a family the table does not have."""

    def __init__(self, table: bytes, family: bytes) -> None:
        super().__init__(f"NoSuchColumnFamilyException: column family "
                         f"{family.decode(errors='replace')} does not exist in table "
                         f"{table.decode(errors='replace')}")


class ScannerNotFoundError(IllegalArgumentError):
    """The scanner id is unknown (never opened, closed, or expired)."""

    def __init__(self) -> None:
        super().__init__("scanner ID is invalid")


class StorageError(HBaseError):
    """The write-ahead log or a snapshot could not be written or read."""
