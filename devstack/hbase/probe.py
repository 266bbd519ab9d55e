"""The health of an HBase cluster, asked through its Thrift (v1) gateway (stdlib only).

A cluster is serving when the gateway lists its tables and every region of every table
answers a read: after a region server restarts, its regions stay closed until the master has
replayed their write-ahead log, and the gateway answers ``IOError`` for them meanwhile.
The calls are encoded by hand in Thrift's strict binary protocol, as happybase sends them.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

STOP, BOOL, BYTE, DOUBLE, I16, I32, I64, STRING, STRUCT, MAP, SET, LIST = (
    0, 2, 3, 4, 6, 8, 10, 11, 12, 13, 14, 15)
CALL, REPLY = 1, 2
FIXED = {BOOL: 1, BYTE: 1, DOUBLE: 8, I16: 2, I32: 4, I64: 8}
# TRegionInfo's startKey; a Get of an empty row is refused, so the first region is read at 0x00.
START_KEY = 1
FIRST_ROW = b"\x00"


class ThriftFailure(Exception):
    """The gateway answered with an exception, or not as the protocol says."""


def cluster_serving(host: str, port: int, timeout: float = 3.0) -> bool:
    """True if every region of every table on the gateway at ``host:port`` answers a read."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            gateway = _Gateway(conn)
            for table in gateway.call("getTableNames") or []:
                for region in gateway.call("getTableRegions", _string(1, table)) or []:
                    row = region.get(START_KEY) or FIRST_ROW
                    gateway.call("getRow", _string(1, table) + _string(2, row) + _empty_map(3))
    except (OSError, ThriftFailure, struct.error):
        return False
    return True


class _Gateway:
    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.reader = conn.makefile("rb")
        self.sequence = 0

    def call(self, method: str, arguments: bytes = b"") -> Any:
        """Call ``method`` with encoded argument fields; its result, or ThriftFailure."""
        self.sequence += 1
        name = method.encode()
        self.conn.sendall(struct.pack(">HHI", 0x8001, CALL, len(name)) + name
                          + struct.pack(">i", self.sequence) + arguments + bytes([STOP]))
        version, kind, length = struct.unpack(">HHI", self._read(8))
        if version != 0x8001 or kind != REPLY:
            raise ThriftFailure(f"{method}: not a reply")
        self._read(length + 4)  # the method's name and the sequence number
        fields = _read_struct(self._read)
        if 0 not in fields and any(fields.values()):
            raise ThriftFailure(f"{method}: the gateway answered an exception")
        return fields.get(0)

    def _read(self, size: int) -> bytes:
        data = self.reader.read(size)
        if len(data) != size:
            raise ThriftFailure("the gateway closed the connection")
        return data


def _string(field: int, value: bytes) -> bytes:
    return struct.pack(">bhi", STRING, field, len(value)) + value


def _empty_map(field: int) -> bytes:
    return struct.pack(">bhbbi", MAP, field, STRING, STRING, 0)


def _read_struct(read: Any) -> dict[int, Any]:
    fields: dict[int, Any] = {}
    while (kind := read(1)[0]) != STOP:
        (field,) = struct.unpack(">h", read(2))
        fields[field] = _read_value(read, kind)
    return fields


def _read_value(read: Any, kind: int) -> Any:
    if kind in FIXED:
        return read(FIXED[kind])
    if kind == STRING:
        (length,) = struct.unpack(">i", read(4))
        return read(length)
    if kind == STRUCT:
        return _read_struct(read)
    if kind == MAP:
        key_kind, value_kind, size = struct.unpack(">bbi", read(6))
        return {_hashable(_read_value(read, key_kind)): _read_value(read, value_kind)
                for _ in range(size)}
    if kind in (SET, LIST):
        item_kind, size = struct.unpack(">bi", read(5))
        return [_read_value(read, item_kind) for _ in range(size)]
    raise ThriftFailure(f"unknown Thrift type {kind}")


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (bytes, int)) else repr(value)

