"""The data export on the account page: ask for it, see it prepared by a real queue worker,
download the zip; someone else's download and an expired one are 404s."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import dramatiq
from django.test import Client
from django.utils import timezone

from accounts.export_files import zip_path
from accounts.models import DataExport
from pins.models import Pinner
from tests.accounts.helpers import built_export, downloaded, entries
from tests.polling import wait_until
from tests.web.helpers import new_board, new_pin, text

Login = Callable[[Pinner], Client]
DOWNLOAD = re.compile(r'href="(/account/export/(\d+)/)"')


def _download_link(client: Client) -> str | None:
    found = DOWNLOAD.search(text(client.get("/account/")))
    return None if found is None else found.group(1)


def test_the_account_page_offers_a_data_export(pinner: Pinner, login: Login) -> None:
    page = text(login(pinner).get("/account/"))
    assert "Download your data" in page and f"@{pinner.username}" in page
    assert 'action="/account/export/"' in page and "Prepare my data export" in page
    assert 'href="/account/delete/"' in page


def test_the_own_profile_links_to_the_data_export(pinner: Pinner, login: Login) -> None:
    page = text(login(pinner).get(f"/u/{pinner.username}/"))
    assert 'href="/account/#export"' in page


def test_the_page_shows_the_download_link_once_the_worker_has_prepared_it(
        pinner: Pinner, login: Login, worker: dramatiq.Worker) -> None:
    pin = new_pin(pinner, new_board(pinner))
    client = login(pinner)
    response = client.post("/account/export/", follow=True)
    assert response.redirect_chain[-1][0] == "/account/"
    assert "Your data export is being prepared" in text(response)
    assert wait_until(lambda: _download_link(client) is not None, timeout=60)
    link = _download_link(client)
    assert link is not None
    archive = downloaded(client.get(link))
    assert entries(archive, "profile.json")["username"] == pinner.username
    assert f"images/{pin.id}.png" in archive.namelist()


def test_asking_twice_while_it_is_prepared_keeps_one_export(pinner: Pinner,
                                                           login: Login) -> None:
    client = login(pinner)
    client.post("/account/export/")
    response = client.post("/account/export/", follow=True)
    assert "already being prepared" in text(response)
    assert 'data-export="preparing"' in text(response)
    assert DataExport.objects.filter(user_id=pinner.user_id).count() == 1


def test_someone_elses_download_is_not_found(pinner: Pinner, other: Pinner,
                                             login: Login) -> None:
    export = built_export(pinner.user_id)
    assert login(other).get(f"/account/export/{export.pk}/").status_code == 404
    assert login(pinner).get(f"/account/export/{export.pk}/").status_code == 200


def test_an_expired_export_leaves_the_page_and_its_zip_the_disk(pinner: Pinner,
                                                               login: Login) -> None:
    client = login(pinner)
    export = built_export(pinner.user_id)
    assert _download_link(client) == f"/account/export/{export.pk}/"
    DataExport.objects.filter(pk=export.pk).update(expires=timezone.now() - timedelta(1))
    assert _download_link(client) is None
    assert not zip_path(export.pk).exists()
    assert client.get(f"/account/export/{export.pk}/").status_code == 404


def test_an_export_not_ready_is_not_found(pinner: Pinner, login: Login) -> None:
    export = DataExport.objects.create(user_id=pinner.user_id)
    assert login(pinner).get(f"/account/export/{export.pk}/").status_code == 404


def test_asking_for_an_export_takes_a_post(pinner: Pinner, login: Login) -> None:
    assert login(pinner).get("/account/export/").status_code == 405


def test_the_account_pages_need_a_login(pinner: Pinner) -> None:
    export = built_export(pinner.user_id)
    for url in ("/account/", f"/account/export/{export.pk}/"):
        assert Client().get(url)["Location"].startswith("/login/"), url


def test_a_failed_export_says_so_and_offers_a_new_one(pinner: Pinner, login: Login) -> None:
    DataExport.objects.create(user_id=pinner.user_id, state=DataExport.State.FAILED)
    page = text(login(pinner).get("/account/"))
    assert 'data-export="failed"' in page and "could not be prepared" in page
    assert "Prepare a new export" in page
