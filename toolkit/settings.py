"""One app's settings: a ``PINSITE_*`` dict of the Django settings, read lazily (tests change
it) and falling back to the defaults written in the app's ``conf.py``.

>>> feed_settings = Settings("PINSITE_FEED", {"CAP": 1000, "TABLE_PREFIX": "pinsite"})
>>> feed_settings.number("CAP")       # typed: an int, whatever type the dict holds
1000
>>> feed_settings.TABLE_PREFIX        # as stored
'pinsite'
"""

from __future__ import annotations

from typing import Any

from django.conf import settings


class Settings:
    """Attribute access to ``settings.<name>`` falling back to ``defaults``, and typed
    accessors (:meth:`number`, :meth:`decimal`, :meth:`text`) for the values that are
    numbers or text."""

    def __init__(self, name: str, defaults: dict[str, Any]) -> None:
        self._name = name
        self._defaults = defaults

    def __getattr__(self, key: str) -> Any:
        if key not in self._defaults:
            raise AttributeError(f"{self._name} has no setting {key!r}")
        return getattr(settings, self._name, {}).get(key, self._defaults[key])

    def number(self, key: str) -> int:
        """The setting ``key`` as an int."""
        return int(getattr(self, key))

    def decimal(self, key: str) -> float:
        """The setting ``key`` as a float."""
        return float(getattr(self, key))

    def text(self, key: str) -> str:
        """The setting ``key`` as text."""
        return str(getattr(self, key))
