"""The one rule for a page size asked for by a caller: ``None`` means the default, anything
else must be an int from 1 to the maximum. A bad size is :class:`InvalidPageSize`, a 400 in
the web UI and the API (naming ``limit``) and a one-line error in the commands.

>>> page_size(None, default=50, maximum=200)
50
"""

from __future__ import annotations


class InvalidPageSize(ValueError):
    """A page size that is not an int from 1 to the maximum."""


def page_size(limit: object, *, default: int, maximum: int) -> int:
    """``limit`` checked, or ``default`` for ``None``."""
    size = default if limit is None else limit
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= maximum:
        raise InvalidPageSize(f"The page size must be 1..{maximum}.")
    return size
