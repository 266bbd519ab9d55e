"""Data exports: a pinner asks for one zip of everything pinsite holds about them, a queue
worker writes it, and it can be downloaded until it expires; then file and row are deleted.

- :func:`request_export` (web UI, API): at most one export is *preparing* per pinner; asking
  again meanwhile answers that one (``created`` is false). Asking once it is ready or failed
  replaces it: the old zip is deleted. The build is queued once the row is committed; if the
  queue cannot take the message, the row is deleted again and the broker's error raised (a
  503), so no export waits for a message that was never sent.
- :func:`build_export` (the ``accounts_build_export`` actor) writes the zip from scratch into
  a part file of its own (:mod:`accounts.export_files`), moves it into place and marks the
  row ready with its expiry, ``EXPORT_KEEP_DAYS`` later. Each run counts an attempt on the
  row: a failed run is retried by the queue, a worker that dies leaves the message
  unacknowledged and the queue delivers it again, and after ``EXPORT_ATTEMPTS`` the export
  is marked failed. A run for an export that is ready, failed or gone does nothing.
- **Expiry.** An expired export is deleted, zip first and then row, wherever it is seen:
  by :func:`current_export` and :func:`open_export` (so its link disappears on time), and
  by :func:`sweep_exports`, which every queue worker process runs every
  ``EXPORT_SWEEP_SECONDS`` (:mod:`accounts.middleware`), so the files of pinners who never
  come back go too. The sweep also fails exports still preparing ``EXPORT_STALE_HOURS``
  after they were asked for, and deletes files that no export names.

>>> requested = request_export(ada.user_id)
>>> requested.export.state, requested.created
('preparing', True)
>>> opened = open_export(ada.user_id, requested.export.pk)    # once a worker built it
>>> opened.filename
'pinsite-data-2025-06-10.zip'
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import BinaryIO

from django.db import transaction
from django.utils import timezone

from accounts import export_files
from accounts.archive import write_archive
from accounts.conf import accounts_settings
from accounts.exceptions import ExportNotFound
from accounts.models import DataExport
from pins.exceptions import NotFound
from pins.models import Pinner

log = logging.getLogger("pinsite.accounts")

State = DataExport.State
STRAY_SECONDS = 3600.0
"""How long a file no export names is left alone before the sweep deletes it (a live build
writes its part file all along, and takes at most the actor's time limit)."""
MAX_EXPORT_PK = 2**63 - 1
NOT_READY: dict[str, str] = {
    State.PREPARING: "That data export is still being prepared.",
    State.FAILED: "That data export failed; ask for a new one."}


@dataclass(frozen=True)
class Requested:
    """The answer to a request: the export, and whether this request made it (false: one was
    being prepared already, and this is it)."""

    export: DataExport
    created: bool


@dataclass(frozen=True)
class OpenedExport:
    """A ready export's zip, open for reading, and the name to download it as."""

    export: DataExport
    file: BinaryIO
    filename: str


@dataclass(frozen=True)
class Swept:
    """What one :func:`sweep_exports` deleted or gave up on."""

    expired: int
    stale: int
    strays: int


def request_export(user_id: int) -> Requested:
    """Ask for an export of pinner ``user_id`` (see the module's docstring)."""
    with transaction.atomic(using="default"):
        if not Pinner.objects.select_for_update().filter(user_id=user_id).exists():
            raise NotFound(f"No pinner has the user ID {user_id}.")
        previous = list(DataExport.objects.filter(user_id=user_id))
        for export in previous:
            if export.state == State.PREPARING and not _stale(export):
                return Requested(export, created=False)
        DataExport.objects.filter(pk__in=[export.pk for export in previous]).delete()
        export = DataExport.objects.create(user_id=user_id)
    for old in previous:
        _remove_replaced(old.pk)
    _queue(export)
    return Requested(export, created=True)


def build_export(export_id: int) -> None:
    """Write export ``export_id``'s zip from scratch and mark it ready (idempotent)."""
    export = _start(export_id)
    if export is None:
        return
    try:
        with export_files.part_file(export.pk) as (part, target):
            counts = write_archive(export.user_id, target)
        size = export_files.publish(part, export.pk)
    except NotFound as exc:  # the pinner is gone: no run can do better
        _finish(export.pk, State.FAILED, error=str(exc))
        return
    except Exception as exc:
        if export.attempts < _attempts():
            raise  # the queue runs it again, after its backoff
        log.exception("export %d of %d failed after %d attempts", export.pk, export.user_id,
                      export.attempts)
        _finish(export.pk, State.FAILED, error=repr(exc))
        return
    if not _finish(export.pk, State.READY, size=size):
        export_files.remove(export.pk)  # replaced or deleted meanwhile
        return
    log.info("export %d of %d ready: %d bytes, %s", export.pk, export.user_id, size, counts)


def current_export(user_id: int) -> DataExport | None:
    """The pinner's latest export, unless there is none or it has expired (then it is
    deleted now)."""
    export = DataExport.objects.filter(user_id=user_id).first()
    if export is not None and export.expired():
        discard([export])
        return None
    return export


def open_export(user_id: int, export_id: int | str) -> OpenedExport:
    """Pinner ``user_id``'s ready export ``export_id``, open for reading, or
    :class:`ExportNotFound` (also for someone else's, an expired one, and one not ready)."""
    export = DataExport.objects.filter(pk=_export_pk(export_id), user_id=user_id).first()
    if export is None:
        raise ExportNotFound(f"You have no data export {export_id}.")
    if export.expired():
        discard([export])
        raise ExportNotFound("That data export has expired and was deleted; ask for a new one.")
    if export.state != State.READY:
        raise ExportNotFound(NOT_READY[export.state])
    try:
        file = export_files.zip_path(export.pk).open("rb")
    except FileNotFoundError as exc:
        raise ExportNotFound("That data export was deleted; ask for a new one.") from exc
    return OpenedExport(export, file, f"pinsite-data-{_day(export)}.zip")


def discard(exports: Iterable[DataExport]) -> int:
    """Delete ``exports``, each zip before its row (a zip that cannot be deleted keeps its
    row, for the next sweep); how many rows were deleted."""
    ids = [export.pk for export in exports]
    for export_id in ids:
        export_files.remove(export_id)
    deleted, _ = DataExport.objects.filter(pk__in=ids).delete()
    return deleted


def discard_exports_of(user_id: int) -> int:
    """Delete every export of pinner ``user_id`` (their account is being deleted)."""
    return discard(DataExport.objects.filter(user_id=user_id))


def sweep_exports(now: datetime | None = None) -> Swept:
    """Delete every expired export, fail those stuck preparing, delete stray files."""
    now = now or timezone.now()
    expired = discard(DataExport.objects.filter(expires__lte=now))
    stale = DataExport.objects.filter(
        state=State.PREPARING, requested__lte=now - _stale_after()).update(
        state=State.FAILED, finished=now, expires=now + _keep(),
        error="still preparing long after it was asked for")
    known = set(DataExport.objects.values_list("pk", flat=True))
    strays = export_files.strays(known, STRAY_SECONDS)
    for path in strays:
        path.unlink(missing_ok=True)
    if expired or stale or strays:
        log.info("exports swept: %d expired, %d stale, %d stray files", expired, stale,
                 len(strays))
    return Swept(expired, stale, len(strays))


def _remove_replaced(export_id: int) -> None:
    """Delete a replaced export's zip; one that cannot be deleted now names no export, and
    the sweep deletes it."""
    try:
        export_files.remove(export_id)
    except OSError as exc:
        log.warning("the zip of replaced export %d is left to the sweep: %s", export_id, exc)


def _queue(export: DataExport) -> None:
    from accounts.tasks import build_export as actor

    try:
        actor.send(export.pk)
    except BaseException:
        export.delete()
        raise


def _start(export_id: int) -> DataExport | None:
    """The export with one more attempt counted, or ``None`` when there is nothing to build:
    no such export, not preparing, or out of attempts (then it is marked failed)."""
    with transaction.atomic(using="default"):
        export = DataExport.objects.select_for_update().filter(pk=export_id).first()
        if export is None or export.state != State.PREPARING:
            return None
        if export.attempts < _attempts():
            export.attempts += 1
            export.save(update_fields=["attempts"])
            return export
    _finish(export_id, State.FAILED, error="every attempt was interrupted")
    return None


def _finish(export_id: int, state: str, size: int | None = None, error: str = "") -> bool:
    """Mark a preparing export ready or failed; false if it is no longer preparing."""
    now = timezone.now()
    return DataExport.objects.filter(pk=export_id, state=State.PREPARING).update(
        state=state, finished=now, expires=now + _keep(), size=size, error=error[:200]) == 1


def _export_pk(export_id: int | str) -> int:
    text = str(export_id)
    if not text.isascii() or not text.isdigit() or int(text) > MAX_EXPORT_PK:
        raise ExportNotFound(f"You have no data export {text[:40]!r}.")
    return int(text)


def _day(export: DataExport) -> str:
    return (export.finished or export.requested).date().isoformat()


def _stale(export: DataExport) -> bool:
    return export.requested <= timezone.now() - _stale_after()


def _keep() -> timedelta:
    return timedelta(days=accounts_settings.number("EXPORT_KEEP_DAYS"))


def _stale_after() -> timedelta:
    return timedelta(hours=accounts_settings.number("EXPORT_STALE_HOURS"))


def _attempts() -> int:
    return accounts_settings.number("EXPORT_ATTEMPTS")
