"""The smoke run of the many-hosts test, as an HTTP client of a running site (stdlib only).

``python -m tests.devstack.many_hosts_smoke http://10.231.0.1:30080`` waits for the site,
checks ``/readyz``, signs up two pinners, gets their tokens, makes the second one follow the
first, lets the first one make a board and a pin, and waits until that pin is in the second
one's following feed. It prints one line per step and exits non-zero on the first failure.
"""

from __future__ import annotations

import json
import struct
import sys
import time
import urllib.error
import urllib.request
import uuid
import zlib
from typing import Any

PASSWORD = "correct-horse-battery-staple"
SITE_TIMEOUT = 60.0
FEED_TIMEOUT = 60.0


class SmokeFailure(Exception):
    """A step of the smoke run failed."""


class Client:
    """JSON requests against one site, with an optional API token."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def request(self, method: str, path: str, body: dict[str, Any] | None = None, *,
                data: bytes | None = None, content_type: str = "application/json",
                expect: tuple[int, ...] = (200,)) -> Any:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if body is not None:
            data = json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        if status not in expect:
            raise SmokeFailure(f"{method} {path}: {status} {payload[:500]!r}")
        return json.loads(payload) if payload else None


def png(width: int = 40, height: int = 30) -> bytes:
    """A small red PNG."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    rows = b"".join(b"\x00" + b"\xff\x63\x47" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def multipart(fields: dict[str, str], files: dict[str, tuple[str, str, bytes]]
              ) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body and its content type."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     f"{value}\r\n".encode())
    for name, (filename, kind, content) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                     f'filename="{filename}"\r\nContent-Type: {kind}\r\n\r\n'.encode()
                     + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def wait_for_site(site: Client) -> None:
    deadline = time.monotonic() + SITE_TIMEOUT
    while True:
        try:
            site.request("GET", "/healthz")
            return
        except (OSError, SmokeFailure) as error:
            if time.monotonic() >= deadline:
                raise SmokeFailure(f"the site did not answer /healthz in {SITE_TIMEOUT:.0f}s: "
                                   f"{error}") from None
            time.sleep(0.3)


def sign_up(site: Client, prefix: str) -> tuple[Client, str]:
    """A new pinner: a client carrying its token, and its user ID."""
    username = f"{prefix}{uuid.uuid4().hex[:10]}"
    site.request("POST", "/api/v1/users/", {"username": username, "password": PASSWORD},
                 expect=(201,))
    login = site.request("POST", "/api/v1/auth/token/",
                         {"username": username, "password": PASSWORD})
    return Client(site.base, login["token"]), str(login["user_id"])


def smoke(base: str) -> None:
    site = Client(base)
    wait_for_site(site)
    print("site answers /healthz")
    site.request("GET", "/readyz")
    print("/readyz: every store is reachable")
    ada, ada_id = sign_up(site, "ada")
    bob, _ = sign_up(site, "bob")
    print(f"signed up ada ({ada_id}) and bob")
    followed = bob.request("PUT", f"/api/v1/users/{ada_id}/follow/")
    if not followed.get("following"):
        raise SmokeFailure(f"follow answered {followed}")
    print("bob follows ada")
    board = ada.request("POST", "/api/v1/boards/", {"name": "Quiche"}, expect=(201,))
    body, kind = multipart({"board_id": str(board["id"]), "title": "Leek quiche"},
                           {"image": ("quiche.png", "image/png", png())})
    pin = ada.request("POST", "/api/v1/pins/", data=body, content_type=kind, expect=(201,))
    print(f"ada pinned {pin['id']} on board {board['id']}")
    deadline = time.monotonic() + FEED_TIMEOUT
    while True:
        feed = bob.request("GET", "/api/v1/me/feed/")
        if str(pin["id"]) in [str(item["id"]) for item in feed["items"]]:
            break
        if time.monotonic() >= deadline:
            raise SmokeFailure(f"pin {pin['id']} not in bob's feed after {FEED_TIMEOUT:.0f}s: "
                               f"{feed}")
        time.sleep(0.3)
    print(f"the pin is in bob's feed after {FEED_TIMEOUT - (deadline - time.monotonic()):.1f}s")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.devstack.many_hosts_smoke URL", file=sys.stderr)
        return 2
    try:
        smoke(argv[0])
    except SmokeFailure as error:
        print(f"smoke run failed: {error}", file=sys.stderr)
        return 1
    print("smoke run passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
