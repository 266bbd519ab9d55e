"""A minimal Redis (RESP2) client for health checks and replication status.

Usage::

    with RespConnection("127.0.0.1", 13381) as redis:
        redis.command("SET", "k", "v")
        info = parse_info(redis.command("INFO", "replication"))
"""

from __future__ import annotations

import socket
from types import TracebackType

Reply = str | int | bytes | None | list["Reply"]


class RespError(Exception):
    """Redis answered with an error reply."""


class RespConnection:
    """One blocking connection speaking RESP2."""

    def __init__(self, host: str, port: int, timeout: float = 2.0) -> None:
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._file = self._sock.makefile("rb")

    def __enter__(self) -> RespConnection:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._file.close()
        self._sock.close()

    def command(self, *args: str | int | bytes) -> Reply:
        """Send one command and return its decoded reply (bulk strings as ``str``)."""
        self._sock.sendall(encode_command(args))
        return self._read()

    def _read(self) -> Reply:
        line = self._file.readline()
        if not line:
            raise ConnectionError("redis closed the connection")
        kind, body = line[:1], line[1:-2]
        if kind == b"+":
            return body.decode()
        if kind == b"-":
            raise RespError(body.decode())
        if kind == b":":
            return int(body)
        if kind == b"$":
            return self._bulk(int(body))
        if kind == b"*":
            count = int(body)
            return None if count < 0 else [self._read() for _ in range(count)]
        raise ConnectionError(f"unexpected RESP reply {line!r}")

    def _bulk(self, size: int) -> str | None:
        if size < 0:
            return None
        data = self._file.read(size + 2)
        return data[:-2].decode(errors="replace")


def encode_command(args: tuple[str | int | bytes, ...]) -> bytes:
    """Encode ``args`` as a RESP array of bulk strings."""
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def parse_info(text: Reply) -> dict[str, str]:
    """Turn an ``INFO`` reply into a dict of its ``key:value`` lines."""
    result: dict[str, str] = {}
    for line in str(text or "").splitlines():
        key, sep, value = line.partition(":")
        if sep and not key.startswith("#"):
            result[key] = value
    return result
