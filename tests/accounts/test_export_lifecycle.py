"""A data export's life on the real stack: asked for, built by a queue worker (or by the
actor's action here), rebuilt from scratch when run again, given up after its attempts,
expired and swept from the disk, deleted with the account."""

from __future__ import annotations

import os
import time
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import dramatiq
import pytest
from django.utils import timezone
from pytest_django import Settings

from accounts import actions
from accounts.exceptions import ExportNotFound
from accounts.export_files import export_root, zip_path
from accounts.exports import (
    build_export,
    current_export,
    open_export,
    request_export,
    sweep_exports,
)
from accounts.models import DataExport
from tests.accounts.helpers import built_export, entries, new_pinner
from tests.polling import wait_until

READY, PREPARING, FAILED = (DataExport.State.READY, DataExport.State.PREPARING,
                            DataExport.State.FAILED)


def _expire(export: DataExport) -> None:
    DataExport.objects.filter(pk=export.pk).update(
        expires=timezone.now() - timedelta(seconds=1))


def _state(user_id: int) -> str | None:
    export = current_export(user_id)
    return None if export is None else export.state


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


@pytest.fixture
def fast_sweep(settings: Settings) -> None:
    """Queue workers sweep the exports every second (take it before ``worker``)."""
    settings.PINSITE_ACCOUNTS = {**settings.PINSITE_ACCOUNTS, "EXPORT_SWEEP_SECONDS": 1}


def test_a_requested_export_is_built_by_a_queue_worker(worker: dramatiq.Worker) -> None:
    pinner = new_pinner()
    requested = request_export(pinner.user_id)
    assert requested.created and requested.export.state == PREPARING
    assert wait_until(lambda: _state(pinner.user_id) == READY, timeout=60)
    export = current_export(pinner.user_id)
    assert export is not None and export.pk == requested.export.pk and export.attempts == 1
    assert export.size == zip_path(export.pk).stat().st_size
    assert export.expires is not None and export.finished is not None
    assert export.expires - export.finished == timedelta(days=7)
    with zipfile.ZipFile(zip_path(export.pk)) as archive:
        assert entries(archive, "profile.json")["username"] == pinner.username


def test_asking_again_while_one_is_prepared_answers_that_one() -> None:
    pinner = new_pinner()
    first = request_export(pinner.user_id)
    again = request_export(pinner.user_id)
    assert not again.created and again.export.pk == first.export.pk
    assert DataExport.objects.filter(user_id=pinner.user_id).count() == 1


def test_asking_again_once_ready_replaces_the_export_and_deletes_its_zip() -> None:
    pinner = new_pinner()
    old = built_export(pinner.user_id)
    assert zip_path(old.pk).exists()
    new = request_export(pinner.user_id)
    assert new.created and new.export.pk != old.pk
    assert not zip_path(old.pk).exists()
    assert list(DataExport.objects.filter(user_id=pinner.user_id)) == [new.export]


def test_a_run_after_an_interrupted_one_rebuilds_the_zip_from_scratch() -> None:
    pinner = new_pinner()
    export = DataExport.objects.create(user_id=pinner.user_id, attempts=1)
    leftover = export_root() / f"{export.pk}.0123456789abcdef.part"
    leftover.write_bytes(b"half a zip")  # what a worker killed mid-write left
    build_export(export.pk)
    export.refresh_from_db()
    assert (export.state, export.attempts) == (READY, 2)
    with zipfile.ZipFile(zip_path(export.pk)) as archive:
        assert archive.testzip() is None and "profile.json" in archive.namelist()


def test_running_a_ready_export_again_changes_nothing() -> None:
    pinner = new_pinner()
    export = built_export(pinner.user_id)
    before = zip_path(export.pk).stat()
    build_export(export.pk)
    after = zip_path(export.pk).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert DataExport.objects.get(pk=export.pk).attempts == 1


def test_a_failing_build_is_retried_then_marked_failed(settings: Settings,
                                                        tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("the export root cannot be made here")
    settings.PINSITE_ACCOUNTS = {**settings.PINSITE_ACCOUNTS,
                                 "EXPORT_ROOT": str(not_a_folder / "exports")}
    export = DataExport.objects.create(user_id=new_pinner().user_id)
    for _ in range(2):  # the queue retries these
        with pytest.raises(OSError):
            build_export(export.pk)
    build_export(export.pk)  # the last attempt gives up instead of raising
    export.refresh_from_db()
    assert (export.state, export.attempts) == (FAILED, 3)
    assert export.error and export.expires is not None


def test_an_export_whose_every_attempt_was_interrupted_is_marked_failed() -> None:
    export = DataExport.objects.create(user_id=new_pinner().user_id, attempts=3)
    build_export(export.pk)
    export.refresh_from_db()
    assert export.state == FAILED and export.error == "every attempt was interrupted"
    assert not zip_path(export.pk).exists()


def test_a_failed_export_can_be_asked_for_again() -> None:
    pinner = new_pinner()
    failed = DataExport.objects.create(user_id=pinner.user_id, state=FAILED)
    again = request_export(pinner.user_id)
    assert again.created and again.export.pk != failed.pk


def test_an_expired_export_is_deleted_with_its_zip_when_seen() -> None:
    pinner = new_pinner()
    export = built_export(pinner.user_id)
    _expire(export)
    assert current_export(pinner.user_id) is None
    assert not zip_path(export.pk).exists()
    assert not DataExport.objects.filter(pk=export.pk).exists()


def test_opening_an_expired_export_deletes_it() -> None:
    pinner = new_pinner()
    export = built_export(pinner.user_id)
    _expire(export)
    with pytest.raises(ExportNotFound, match="expired"):
        open_export(pinner.user_id, export.pk)
    assert not zip_path(export.pk).exists()


def test_the_sweep_deletes_expired_zips_and_stray_files_from_disk() -> None:
    expired = built_export(new_pinner().user_id)
    fresh = built_export(new_pinner().user_id)
    _expire(expired)
    stray_zip = export_root() / "999999999999.zip"  # its row is gone
    dead_part = export_root() / f"{fresh.pk}.00ff00ff00ff00ff.part"
    live_part = export_root() / f"{fresh.pk}.11ff11ff11ff11ff.part"
    for path in (stray_zip, dead_part, live_part):
        path.write_bytes(b"x")
    for path in (stray_zip, dead_part):
        _age(path, 2 * 3600)
    swept = sweep_exports()
    assert swept.expired >= 1 and swept.strays == 2
    assert not zip_path(expired.pk).exists()
    assert not DataExport.objects.filter(pk=expired.pk).exists()
    assert zip_path(fresh.pk).exists() and live_part.exists()
    assert not stray_zip.exists() and not dead_part.exists()


def test_the_sweep_fails_an_export_stuck_preparing() -> None:
    export = DataExport.objects.create(user_id=new_pinner().user_id,
                                       requested=timezone.now() - timedelta(hours=25))
    sweep_exports()
    export.refresh_from_db()
    assert export.state == FAILED and export.expires is not None


@pytest.fixture
def swept_by_workers(fast_sweep: None, worker: dramatiq.Worker) -> Iterator[None]:
    yield


def test_queue_workers_sweep_expired_zips_off_the_disk_unasked(swept_by_workers: None) -> None:
    export = built_export(new_pinner().user_id)
    _expire(export)
    assert wait_until(lambda: not zip_path(export.pk).exists(), timeout=30)
    assert wait_until(lambda: not DataExport.objects.filter(pk=export.pk).exists())


def test_someone_elses_export_is_not_found() -> None:
    export = built_export(new_pinner().user_id)
    with pytest.raises(ExportNotFound):
        open_export(new_pinner().user_id, export.pk)


@pytest.mark.parametrize("export_id", ["x", "-1", "12a", str(2**64), "", "١٢"])
def test_an_export_id_that_is_no_number_is_not_found(export_id: str) -> None:
    with pytest.raises(ExportNotFound):
        open_export(new_pinner().user_id, export_id)


def test_an_export_not_ready_cannot_be_opened() -> None:
    pinner = new_pinner()
    export = DataExport.objects.create(user_id=pinner.user_id)
    with pytest.raises(ExportNotFound, match="still being prepared"):
        open_export(pinner.user_id, export.pk)


def test_deleting_the_account_deletes_its_exports() -> None:
    pinner = new_pinner()
    export = built_export(pinner.user_id)
    actions.delete_account(pinner.user_id)
    assert not zip_path(export.pk).exists()
    assert not DataExport.objects.filter(user_id=pinner.user_id).exists()
