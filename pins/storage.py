"""Where pictures are stored: the file system storage, with its URLs made cheaply.

A page of pins asks for two URLs a pin; Django's ``FileSystemStorage.url`` parses its base URL
and the name with ``urljoin`` each time, which a feed page paid more for than for anything
else in its serialization. For the plain names pictures are stored under (``/``-separated
segments of letters, digits and ``_.-``, none starting with a dot) the URL is the base URL and
the name, which is what ``urljoin`` makes of them; any other name takes Django's way.
"""

from __future__ import annotations

import re

from django.core.files.storage import FileSystemStorage

_SEGMENT = r"[A-Za-z0-9_-][A-Za-z0-9_.-]*"
_PLAIN_NAME = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT})*\Z")


class PictureStorage(FileSystemStorage):
    def url(self, name: str | None) -> str:
        base = self.base_url
        if base is not None and name and _PLAIN_NAME.match(name):
            return base + name
        return super().url(name)
