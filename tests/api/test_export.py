"""``/api/v1/me/export/``: ask for a data export (202), follow its state until a real queue
worker has prepared it, download the zip with the same credentials; everything else is a
JSON 4xx."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import dramatiq
import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.export_files import zip_path
from accounts.models import DataExport
from tests.accounts.helpers import built_export, downloaded, entries
from tests.api.helpers import Caller, error_of, new_board, new_pin
from tests.polling import wait_until

EXPORT = "/api/v1/me/export/"


def _download(export_id: object) -> str:
    return f"/api/v1/me/export/{export_id}/download/"


def _state(caller: Caller) -> Any:
    response = caller.client.get(EXPORT)
    return response.json()["state"] if response.status_code == 200 else None


def test_asking_for_an_export_answers_202_with_its_state(alice: Caller) -> None:
    response = alice.client.post(EXPORT)
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["state"] == "preparing" and body["download_url"] is None
    assert body["id"].isdigit() and body["expires"] is None
    assert response["Location"] == f"http://testserver{EXPORT}"
    assert alice.client.get(EXPORT).json()["id"] == body["id"]


def test_asking_again_while_it_is_prepared_answers_the_same_export(alice: Caller) -> None:
    first = alice.client.post(EXPORT).json()
    again = alice.client.post(EXPORT)
    assert again.status_code == 202 and again.json()["id"] == first["id"]


def test_the_export_is_downloaded_with_the_token_once_the_worker_prepared_it(
        alice: Caller, worker: dramatiq.Worker) -> None:
    pin = new_pin(alice, new_board(alice))
    alice.client.post(EXPORT)
    assert wait_until(lambda: _state(alice) == "ready", timeout=60)
    body = alice.client.get(EXPORT).json()
    assert body["download_url"] == f"http://testserver{_download(body['id'])}"
    assert body["size"] > 0 and body["expires"]
    archive = downloaded(alice.client.get(body["download_url"]))
    assert entries(archive, "profile.json")["id"] == alice.id
    assert [record["id"] for record in entries(archive, "pins.json")] == [str(pin.id)]


def test_without_an_export_the_state_is_a_404(alice: Caller) -> None:
    response = alice.client.get(EXPORT)
    assert response.status_code == 404
    assert "POST" in error_of(response)["detail"]


def test_someone_elses_download_is_a_404(alice: Caller, bob: Caller) -> None:
    export = built_export(alice.user_id)
    response = bob.client.get(_download(export.pk))
    assert response.status_code == 404 and error_of(response)["code"] == "not_found"
    assert alice.client.get(_download(export.pk)).status_code == 200


@pytest.mark.parametrize("export_id", ["abc", "12x", str(2**63), "0"])
def test_a_download_of_no_such_export_is_a_json_404(alice: Caller, export_id: str) -> None:
    response = alice.client.get(_download(export_id))
    assert response.status_code == 404 and error_of(response)["code"] == "not_found"


def test_a_download_error_is_json_even_when_a_zip_is_accepted(alice: Caller) -> None:
    response = alice.client.get(_download(1), HTTP_ACCEPT="application/zip")
    assert response.status_code == 404 and error_of(response)["code"] == "not_found"


def test_the_export_needs_credentials(alice: Caller, anonymous: APIClient) -> None:
    export = built_export(alice.user_id)
    for method, url in (("get", EXPORT), ("post", EXPORT), ("get", _download(export.pk))):
        response = getattr(anonymous, method)(url)
        assert response.status_code == 401, (method, url)
        assert error_of(response)["code"] == "not_authenticated"


def test_an_expired_export_is_gone_from_the_api_and_the_disk(alice: Caller) -> None:
    export = built_export(alice.user_id)
    DataExport.objects.filter(pk=export.pk).update(expires=timezone.now() - timedelta(1))
    assert alice.client.get(_download(export.pk)).status_code == 404
    assert not zip_path(export.pk).exists()
    assert alice.client.get(EXPORT).status_code == 404


def test_a_failed_export_says_so_and_can_be_asked_for_again(alice: Caller) -> None:
    DataExport.objects.create(user_id=alice.user_id, state=DataExport.State.FAILED)
    assert alice.client.get(EXPORT).json()["state"] == "failed"
    again = alice.client.post(EXPORT)
    assert again.status_code == 202 and again.json()["state"] == "preparing"


def test_the_export_endpoints_are_documented(schema: dict[str, Any]) -> None:
    paths = schema["paths"]
    assert {"get", "post"} <= set(paths["/api/v1/me/export/"])
    download = paths["/api/v1/me/export/{export_id}/download/"]["get"]
    assert "application/zip" in download["responses"]["200"]["content"]
    assert "404" in paths["/api/v1/me/export/"]["get"]["responses"]
