"""Where pictures are stored: the file system storage, with its URLs made cheaply.

A page of pins asks for two URLs a pin; Django's ``FileSystemStorage.url`` parses its base URL
and the name with ``urljoin`` each time, which a feed page paid more for than for anything
else in its serialization. For the plain names pictures are stored under (``/``-separated
segments of letters, digits and ``_.-``, none starting with a dot) the URL is the base URL and
the name, which is what ``urljoin`` makes of them; any other name takes Django's way.

Pictures are saved under random names, so :meth:`PictureStorage.save_new` writes a plain name
with one exclusive open, without Django's search for a free name (a bulk import stores two
files a pin), making its folder only when the open finds none; a name that is taken, or any
other name, takes Django's ``save``.
"""

from __future__ import annotations

import os
import re

from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage

_SEGMENT = r"[A-Za-z0-9_-][A-Za-z0-9_.-]*"
_PLAIN_NAME = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT})*\Z")


class PictureStorage(FileSystemStorage):
    def url(self, name: str | None) -> str:
        base = self.base_url
        if base is not None and name and _PLAIN_NAME.match(name):
            return base + name
        return super().url(name)

    def save_new(self, name: str, data: bytes) -> str:
        """Save ``data`` under ``name`` (or, if it is taken, a free name as ``save`` finds
        one); the name saved under."""
        if not _PLAIN_NAME.match(name) or self.directory_permissions_mode is not None:
            return self.save(name, ContentFile(data))
        path = os.path.join(self.location, name)
        try:
            handle = _create(path)
        except FileExistsError:
            return self.save(name, ContentFile(data))
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        if self.file_permissions_mode is not None:
            os.chmod(path, self.file_permissions_mode)
        return name


def _create(path: str) -> int:
    """A new file's descriptor, for writing, its folder made if there is none (one open costs
    less than a check before each); raises :class:`FileExistsError` if the file exists."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        return os.open(path, flags, 0o666)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return os.open(path, flags, 0o666)
