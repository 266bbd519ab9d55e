"""Content settings: the ``PINSITE_CONTENT`` dict, resolved lazily with defaults in code.

>>> from pins.conf import content_settings
>>> content_settings.THUMBNAIL_WIDTH
236
"""

from __future__ import annotations

from typing import Any

from toolkit.settings import Settings

DEFAULTS: dict[str, Any] = {
    "MAX_IMAGE_BYTES": 10 * 1024 * 1024,
    "MAX_IMAGE_PIXELS": 40_000_000,
    "THUMBNAIL_WIDTH": 236,
    "PAGE_SIZE": 50,
    "BULK_PINNERS_PER_SHARD": 16,  # a bulk sign-up's (an import's) pinners a shard
}

content_settings = Settings("PINSITE_CONTENT", DEFAULTS)
