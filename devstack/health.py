"""Cheap health probes spoken over raw sockets (stdlib only)."""

from __future__ import annotations

import socket

TIMEOUT = 1.0


def port_open(host: str, port: int, timeout: float = TIMEOUT) -> bool:
    """True if something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def exchange(host: str, port: int, payload: bytes, want: int = 64,
             timeout: float = TIMEOUT) -> bytes:
    """Connect, send ``payload`` (may be empty) and return the first bytes answered."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            if payload:
                conn.sendall(payload)
            return _receive(conn, want)
    except OSError:
        return b""


def _receive(conn: socket.socket, want: int) -> bytes:
    data = b""
    while len(data) < want:
        chunk = conn.recv(want - len(data))
        if not chunk:
            break
        data += chunk
    return data


HOST_NOT_ALLOWED = 1130


def mysql_greeting(host: str, port: int) -> bool:
    """True if a MySQL/MariaDB server sends its protocol-10 handshake (it is ready).

    A server that refuses the probe's address (error 1130: no account matches it yet, as
    before bootstrap on a network address) has answered too, so it is ready as well.
    """
    packet = exchange(host, port, b"", want=7)
    if len(packet) >= 5 and packet[4] == 10:
        return True
    return (len(packet) == 7 and packet[4] == 0xFF
            and int.from_bytes(packet[5:7], "little") == HOST_NOT_ALLOWED)


def redis_pong(host: str, port: int) -> bool:
    """True if Redis answers ``PING`` with ``+PONG``."""
    return exchange(host, port, b"*1\r\n$4\r\nPING\r\n", want=7).startswith(b"+PONG")


def zookeeper_word(host: str, port: int, word: str) -> str:
    """Send a ZooKeeper four-letter word and return the whole answer."""
    return exchange(host, port, word.encode(), want=65536).decode(errors="replace")


def zookeeper_ok(host: str, port: int) -> bool:
    """True if ZooKeeper answers ``ruok`` with ``imok``."""
    return zookeeper_word(host, port, "ruok") == "imok"


AMQP_HEADER = b"AMQP\x00\x00\x09\x01"


def amqp_greeting(host: str, port: int) -> bool:
    """True if an AMQP 0-9-1 broker answers the protocol header with a method frame."""
    frame = exchange(host, port, AMQP_HEADER, want=11)
    return len(frame) == 11 and frame[0] == 1 and frame[7:11] == b"\x00\x0a\x00\x0a"


def epmd_names(host: str, port: int) -> bool:
    """True if an Erlang port mapper answers a NAMES request (it sends its port first)."""
    reply = exchange(host, port, b"\x00\x01n", want=4)
    return len(reply) == 4 and int.from_bytes(reply, "big") == port
