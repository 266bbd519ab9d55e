"""Account settings: the ``PINSITE_ACCOUNTS`` dict, resolved lazily with defaults in code.

>>> from accounts.conf import accounts_settings
>>> accounts_settings.number("EXPORT_KEEP_DAYS")
7
"""

from __future__ import annotations

from typing import Any

from toolkit.settings import Settings

DEFAULTS: dict[str, Any] = {
    # Where data exports are written (None: ``<PINSITE_VAR>/exports``). Never under
    # MEDIA_ROOT, which is served to anyone; shared by the web processes, which serve the
    # downloads, and the queue workers, which write them, as MEDIA_ROOT is.
    "EXPORT_ROOT": None,
    # How long a finished export can be downloaded before it is deleted.
    "EXPORT_KEEP_DAYS": 7,
    # Runs of the build (each from scratch) before an export is marked failed.
    "EXPORT_ATTEMPTS": 3,
    # How often each queue worker process deletes expired exports (0: never).
    "EXPORT_SWEEP_SECONDS": 3600,
    # An export still preparing this long after it was asked for is marked failed (its
    # message was lost), so the pinner can ask again.
    "EXPORT_STALE_HOURS": 24,
}

accounts_settings = Settings("PINSITE_ACCOUNTS", DEFAULTS)
