"""Where data exports are kept on disk: one zip per export, named by its ID, in a private
folder (``PINSITE_ACCOUNTS["EXPORT_ROOT"]``) that no URL serves.

A build writes a part file of its own (``<id>.<random>.part``, created exclusively, readable
by the site's user only) and moves it into place in one rename, so a download never sees a
half-written zip, and two runs of one build (a message delivered twice) never write into one
file.

>>> with part_file(export_id) as (path, target):
...     write_archive(user_id, target)
>>> publish(path, export_id)                 # the zip's size in bytes
48213
"""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from django.conf import settings

from accounts.conf import accounts_settings

_NAME = re.compile(r"^(\d+)(?:\.[0-9a-f]+\.part|\.zip)$")


def export_root() -> Path:
    """The folder of the exports (made on first use, private to the site's user)."""
    configured = accounts_settings.EXPORT_ROOT
    root = Path(configured) if configured else Path(settings.VAR_DIR) / "exports"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    return root


def zip_path(export_id: int) -> Path:
    """The finished zip of an export."""
    return export_root() / f"{export_id}.zip"


@contextmanager
def part_file(export_id: int) -> Iterator[tuple[Path, BinaryIO]]:
    """A new part file of ``export_id``'s build, open for writing; removed if the block
    raises."""
    path = export_root() / f"{export_id}.{secrets.token_hex(8)}.part"
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "wb") as target:
            yield path, target
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def publish(part: Path, export_id: int) -> int:
    """Move a finished part file into place as the export's zip; its size."""
    final = zip_path(export_id)
    os.replace(part, final)
    return final.stat().st_size


def remove(export_id: int) -> None:
    """Delete the export's zip (nothing if it is gone already)."""
    zip_path(export_id).unlink(missing_ok=True)


def strays(known: Collection[int], older_than_seconds: float) -> list[Path]:
    """Files of the folder that belong to no export in ``known`` and were last written more
    than ``older_than_seconds`` ago: zips whose export is gone, and part files of builds that
    died or whose export is gone (a live build writes its part file all along)."""
    cutoff = time.time() - older_than_seconds
    found = []
    for path in export_root().iterdir():
        match = _NAME.match(path.name)
        if match is None:
            continue
        with suppress(FileNotFoundError):
            stale = path.stat().st_mtime < cutoff
            if stale and (path.suffix == ".part" or int(match.group(1)) not in known):
                found.append(path)
    return found
