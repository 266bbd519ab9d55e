"""Page cursors as the web UI and the API hand them out: the domain's cursor with a MAC.

A list's next page is named by the domain's opaque cursor (a position in a mapping table, a
feed qualifier, a follower list score). Handed out as is, a client could forge one that
names any position; sealed, a cursor the site did not issue is refused with a 400 before any
store is asked. The seal is the first 9 bytes of an HMAC-SHA256 (keyed by ``SECRET_KEY``),
12 URL-safe characters appended to the cursor, so a sealed cursor keeps to ``[A-Za-z0-9_-]``.

>>> unseal(seal("AAAB")) == "AAAB"
True
"""

from __future__ import annotations

import base64
import hmac

from django.utils.crypto import salted_hmac

SALT = "pinsite.cursors"
MAC_BYTES = 9
MAC_CHARS = 12  # base64 of 9 bytes, no padding


class InvalidCursor(ValueError):
    """A page cursor the site did not issue (malformed, cut, or forged)."""

    def __init__(self) -> None:
        super().__init__("The page cursor is not valid: pass the cursor of the previous page "
                         "as given, or none for the first page.")


def seal(cursor: str) -> str:
    """The cursor to hand to a client."""
    return cursor + _mac(cursor)


def unseal(token: str) -> str:
    """The domain cursor of a sealed ``token``; anything the site did not issue raises
    :class:`InvalidCursor`."""
    cursor, mac = token[:-MAC_CHARS], token[-MAC_CHARS:]
    if not token.isascii() or not cursor or not hmac.compare_digest(mac, _mac(cursor)):
        raise InvalidCursor
    return cursor


def _mac(cursor: str) -> str:
    digest = salted_hmac(SALT, cursor, algorithm="sha256").digest()[:MAC_BYTES]
    return base64.urlsafe_b64encode(digest).decode()
