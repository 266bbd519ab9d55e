"""A tiny AMQP 0-9-1 login check: open a connection with PLAIN credentials, then close it.

Used by the RabbitMQ bootstrap to verify that the application user exists and may use its
virtual host, without any client library.
"""

from __future__ import annotations

import socket
import struct

from devstack.health import AMQP_HEADER

FRAME_METHOD = 1
FRAME_END = b"\xce"
CONNECTION = 10
START, START_OK, TUNE, TUNE_OK, OPEN, OPEN_OK, CLOSE, CLOSE_OK = 10, 11, 30, 31, 40, 41, 50, 51


def amqp_login(host: str, port: int, user: str, password: str, vhost: str = "/",
               timeout: float = 5.0) -> bool:
    """True if ``user``/``password`` can open ``vhost`` on the broker at ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            return _handshake(conn, user, password, vhost)
    except (OSError, ValueError):
        return False


def _handshake(conn: socket.socket, user: str, password: str, vhost: str) -> bool:
    conn.sendall(AMQP_HEADER)
    if _read_method(conn)[0] != START:
        return False
    response = f"\0{user}\0{password}".encode()
    conn.sendall(_method(START_OK, _table() + _short("PLAIN") + _long(response) + _short("en_US")))
    method, args = _read_method(conn)
    if method != TUNE:
        return False
    channel_max, frame_max, _heartbeat = struct.unpack(">HIH", args[:8])
    conn.sendall(_method(TUNE_OK, struct.pack(">HIH", channel_max, frame_max, 0)))
    conn.sendall(_method(OPEN, _short(vhost) + _short("") + b"\x00"))
    if _read_method(conn)[0] != OPEN_OK:
        return False
    conn.sendall(_method(CLOSE, struct.pack(">H", 200) + _short("bye") + struct.pack(">HH", 0, 0)))
    return _read_method(conn)[0] == CLOSE_OK


def _read_method(conn: socket.socket) -> tuple[int, bytes]:
    """Read one frame; return (connection method id, arguments), or (-1, b"") otherwise."""
    header = _exactly(conn, 7)
    kind, _channel, size = struct.unpack(">BHI", header)
    payload = _exactly(conn, size + 1)[:-1]
    if kind != FRAME_METHOD or len(payload) < 4:
        return -1, b""
    class_id, method_id = struct.unpack(">HH", payload[:4])
    return (method_id if class_id == CONNECTION else -1), payload[4:]


def _exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ValueError("broker closed the connection")
        data += chunk
    return data


def _method(method_id: int, args: bytes) -> bytes:
    payload = struct.pack(">HH", CONNECTION, method_id) + args
    return struct.pack(">BHI", FRAME_METHOD, 0, len(payload)) + payload + FRAME_END


def _short(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">B", len(data)) + data


def _long(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _table() -> bytes:
    return struct.pack(">I", 0)
