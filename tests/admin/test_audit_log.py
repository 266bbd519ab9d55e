"""The operator audit log in the admin (read-only, filterable, searchable), and the admin's
actions recorded in it with the signed-in operator as their actor."""

from __future__ import annotations

import uuid
from datetime import timedelta
from urllib.parse import urlencode

import dramatiq
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from auditlog.models import AuditEntry
from auditlog.operations import operation
from pins.actions import create_pinner
from sharding.exceptions import PromotionError
from tests.auditlog.helpers import the_entry
from tests.feed.helpers import new_user
from tests.pins.helpers import unique_username
from tests.polling import wait_until
from toolkit import acting

LOG = "/admin/auditlog/auditentry/"


def _username(client: Client) -> str:
    account = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    return str(account.get_username())


@pytest.fixture
def logged() -> str:
    """A word of the test's own, in two entries' targets: ``<word>-a`` promoted by an
    admin (ok), ``<word>-b`` split to ``<word>-new`` by this process (failed)."""
    word = f"mysqlt{uuid.uuid4().hex[:10]}"
    with acting.acting_as(acting.admin("ops-ada")), operation("shards.promote", f"{word}-a"):
        pass
    with pytest.raises(PromotionError), \
            operation("shards.split", f"{word}-b", {"new_master": f"{word}-new"}):
        raise PromotionError("no room")
    return word


def _rows(client: Client, query: str) -> str:
    response = client.get(f"{LOG}?{query}")
    assert response.status_code == 200
    return response.content.decode()


def test_the_log_lists_entries_for_staff(staff: Client, logged: str) -> None:
    content = _rows(staff, f"q={logged}")
    assert f"{logged}-a" in content and f"{logged}-b" in content
    assert "ops-ada" in content and "PromotionError: no room" in content
    for heading in ("By action", "By actor kind", "By outcome", "By started"):
        assert heading in content


@pytest.mark.parametrize(("query", "shown", "hidden"), [
    ("outcome__exact=failed", "-b", "-a"),
    ("actor_kind__exact=admin", "-a", "-b"),
    ("action=shards.promote", "-a", "-b"),
])
def test_the_log_filters_by_outcome_actor_kind_and_action(staff: Client, logged: str,
                                                          query: str, shown: str,
                                                          hidden: str) -> None:
    content = _rows(staff, f"q={logged}&{query}")
    assert f"{logged}{shown}" in content and f"{logged}{hidden}" not in content


def test_the_log_filters_by_date(staff: Client, logged: str) -> None:
    AuditEntry.objects.filter(target=f"{logged}-b").update(
        started=timezone.now() - timedelta(days=3))
    today = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    content = _rows(staff, urlencode({"q": logged, "started__gte": str(today),
                                      "started__lt": str(today + timedelta(days=1))}))
    assert f"{logged}-a" in content and f"{logged}-b" not in content


def test_the_log_is_searched_by_actor_and_arguments(staff: Client, logged: str) -> None:
    assert f"{logged}-a" in _rows(staff, "q=ops-ada")
    content = _rows(staff, f"q={logged}-new")
    assert f"{logged}-b" in content and f"{logged}-a" not in content


def test_the_log_is_read_only(superuser: Client, logged: str) -> None:
    entry = AuditEntry.objects.get(target=f"{logged}-a")
    page = superuser.get(f"{LOG}{entry.pk}/change/")
    assert page.status_code == 200 and f"{logged}-a" in page.content.decode()
    assert 'name="_save"' not in page.content.decode()
    assert superuser.post(f"{LOG}{entry.pk}/change/", {"outcome": "failed"}).status_code == 403
    assert superuser.get(f"{LOG}add/").status_code == 403
    assert superuser.post(f"{LOG}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AuditEntry.objects.get(pk=entry.pk).outcome == "ok"


def test_the_admin_index_lists_the_log(staff: Client) -> None:
    content = staff.get("/admin/").content.decode()
    assert "Operator audit log" in content and f'href="{LOG}"' in content


def test_the_log_sends_non_staff_to_the_login_page(pinner_client: Client) -> None:
    for client in (pinner_client, Client()):
        response = client.get(LOG)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_a_refused_promotion_through_the_admin_is_recorded_with_the_operator(
        superuser: Client) -> None:
    master, since = f"mysqlt{uuid.uuid4().hex[:10]}", timezone.now()
    superuser.post(f"/admin/operations/shards/{master}/promote/", follow=True)
    entry = the_entry("shards.promote", master, since)
    assert entry.outcome == "failed" and f"{master} is not a master" in entry.error
    assert (entry.actor_kind, entry.actor) == ("admin", _username(superuser))
    assert entry.actor_detail == f"POST /admin/operations/shards/{master}/promote/ from 127.0.0.1"


def test_a_graph_rebuild_through_the_admin_is_recorded(superuser: Client) -> None:
    user, since = new_user("aud"), timezone.now()
    superuser.post(f"/admin/operations/pinners/{user}/rebuild/", follow=True)
    entry = the_entry("graph.rebuild", f"user {user}", since)
    assert (entry.outcome, entry.actor_kind, entry.actor) == ("ok", "admin",
                                                              _username(superuser))
    assert entry.result is not None and entry.result["keys_rewritten"] == 0


def test_an_account_deletion_by_staff_is_recorded(superuser: Client) -> None:
    pinner, since = create_pinner(unique_username("aud"), None), timezone.now()
    superuser.post(f"/admin/operations/pinners/{pinner.user_id}/delete/", follow=True)
    entry = the_entry("accounts.delete", f"user {pinner.user_id}", since)
    assert (entry.outcome, entry.actor_kind) == ("ok", "admin")
    assert entry.arguments == {"username": pinner.account.get_username()}


def test_account_deletions_from_the_pinner_list_are_recorded_one_by_one(
        superuser: Client) -> None:
    doomed, since = [create_pinner(unique_username("aud"), None) for _ in range(2)], \
        timezone.now()
    superuser.post("/admin/pins/pinner/", {
        "action": "delete_accounts", "_selected_action": [str(p.pk) for p in doomed],
        "confirmed": "yes"})
    for pinner in doomed:
        entry = the_entry("accounts.delete", f"user {pinner.user_id}", since)
        assert (entry.outcome, entry.actor_kind, entry.actor) == ("ok", "admin",
                                                                  _username(superuser))
        assert entry.actor_detail.startswith("POST /admin/pins/pinner/ from ")


def test_a_pool_rebuild_queued_from_the_admin_is_recorded_as_the_operators(
        superuser: Client, worker: dramatiq.Worker) -> None:
    reader, since = new_user("aud"), timezone.now()
    superuser.post(f"/admin/operations/pinners/{reader}/smartfeed/rebuild/", follow=True)
    target = f"user {reader}"
    assert wait_until(lambda: AuditEntry.objects.filter(
        action="smartfeed.rebuild", target=target, started__gte=since, outcome="ok").exists(),
        timeout=30)
    entry = the_entry("smartfeed.rebuild", target, since)
    assert (entry.actor_kind, entry.actor) == ("admin", _username(superuser))
    assert entry.actor_detail.endswith(f"/pinners/{reader}/smartfeed/rebuild/ from 127.0.0.1")
    assert entry.result == {"following": 0, "repins": 0, "interests": 0, "related": 0}
