"""The operators' actions: a confirmation page on GET, the action on a confirmed POST (CSRF,
superusers only), the outcome as a message, and errors shown rather than raised."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from auditlog.models import AuditEntry
from devstack.pairs import destroy, mysql_pair
from graph import topology as graph_topology
from pins.actions import create_pinner
from pins.models import Pinner
from sharding import objects
from sharding.topology import fresh_map
from tests.auditlog.helpers import recorded, result_of, the_entry
from tests.pins.helpers import unique_username
from toolkit import acting

REPO = Path(__file__).resolve().parents[2]


def _messages(response: object) -> list[str]:
    return [str(message) for message in response.context["messages"]]  # type: ignore[attr-defined]


def test_shard_promotion_asks_for_confirmation_first(superuser: Client) -> None:
    before = fresh_map()
    response = superuser.get("/admin/operations/shards/mysql001a/promote/")
    content = response.content.decode()
    assert response.status_code == 200
    assert "Master mysql001a serves 32 shards (0-31)" in content
    assert "Its replica mysql001b" in content and "Yes, do it" in content
    assert 'name="csrfmiddlewaretoken"' in content
    assert fresh_map() == before


def test_a_refused_shard_promotion_is_reported(superuser: Client) -> None:
    before = fresh_map()
    response = superuser.post("/admin/operations/shards/mysql009z/promote/", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == "/admin/operations/shards/"
    [message] = _messages(response)
    assert "not done" in message and "mysql009z is not a master" in message
    assert fresh_map() == before


def test_actions_are_for_superusers_only(staff: Client) -> None:
    for page in ("/admin/operations/shards/mysql001a/promote/",
                 "/admin/operations/vshards/redis001a/promote/"):
        assert "Only superusers" in staff.get(page).content.decode()
        assert staff.post(page).status_code == 403


def test_actions_need_the_csrf_token(superuser: Client) -> None:
    superuser.handler.enforce_csrf_checks = True  # type: ignore[attr-defined]
    before = graph_topology.read_fresh()
    assert superuser.post("/admin/operations/vshards/redis002a/promote/").status_code == 403
    assert graph_topology.read_fresh() == before


def test_actions_answer_only_get_and_post(superuser: Client) -> None:
    assert superuser.put("/admin/operations/shards/mysql001a/promote/").status_code == 405


def _graph_masters() -> list[str]:
    return graph_topology.read_fresh().masters()


def test_graph_promotion_switches_master_and_back(superuser: Client) -> None:
    assert _graph_masters() == ["redis001a", "redis002a"]
    since = timezone.now()
    confirmation = superuser.get("/admin/operations/vshards/redis002a/promote/")
    assert "redis002a is master of" in confirmation.content.decode()
    assert _graph_masters() == ["redis001a", "redis002a"]
    try:
        done = superuser.post("/admin/operations/vshards/redis002a/promote/", follow=True)
        [message] = _messages(done)
        assert message.startswith("Promoted redis002b in place of redis002a")
        assert _graph_masters() == ["redis001a", "redis002b"]
        assert graph_topology.read_fresh().replica_of("redis002b") == "redis002a"
    finally:
        back = superuser.post("/admin/operations/vshards/redis002b/promote/", follow=True)
    assert _messages(back)[0].startswith("Promoted redis002a in place of redis002b")
    assert "old master now replicates it; " in _messages(back)[0]
    assert "keys rewritten from the edge log" in _messages(back)[0]
    assert _graph_masters() == ["redis001a", "redis002a"]
    assert graph_topology.read_fresh().replica_of("redis002a") == "redis002b"
    assert "redis002b" in superuser.get("/admin/operations/vshards/").content.decode()
    there = the_entry("graph.promote", "redis002a", since, actor_kind="admin")
    [back_again] = recorded("graph.promote", "redis002b", since, actor_kind="admin")
    for entry, new_master in ((there, "redis002b"), (back_again, "redis002a")):
        assert entry.outcome == "ok" and result_of(entry)["new_master"] == new_master
        assert entry.actor_detail.startswith("POST /admin/operations/vshards/")
    assert not AuditEntry.objects.filter(  # each reconcile is part of its promotion's entry
        action="graph.rebuild", started__gte=since, process=acting.process_name()).exists()


@pytest.fixture
def throwaway_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A master/replica pair of its own holding shards 0-3, under its own ZooKeeper root."""
    base = int(settings.DATABASES["mysql001a"]["PORT"]) - 311
    ports = (base + 461, base + 462)
    root = tmp_path_factory.mktemp("admin-promote")
    master, replica = mysql_pair("mysqlp1a", "mysqlp1b", *ports, root)
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
        "PINSITE_SHARD_HOSTS": f"mysqlp1a=127.0.0.1:{ports[0]},mysqlp1b=127.0.0.1:{ports[1]}",
        "PINSITE_SHARD_PAIRS": "mysqlp1a:mysqlp1b",
        "PINSITE_SHARD_COUNT": "4",
        "PINSITE_ZK_ROOT": f"/pinsite-admin-{uuid.uuid4().hex[:8]}",
        "PINSITE_VAR": str(root / "var"),
        "PYTHONPATH": str(REPO),
    }
    try:
        yield environment
    finally:
        destroy(master, replica)


def _run(environment: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=REPO, env=environment,
                            capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
def test_shard_promotion_through_the_admin(throwaway_pair: dict[str, str]) -> None:
    _run(throwaway_pair, "manage.py", "shards", "init", "--quiet")
    since = timezone.now()
    outcome = json.loads(_run(throwaway_pair, "-m", "tests.admin.promote_through_admin",
                              "mysqlp1a").splitlines()[-1])
    assert (outcome["confirmation"], outcome["confirmed"]) == (200, 200)
    assert outcome["before"]["ranges"] == [
        {"range": [0, 3], "master": "mysqlp1a", "replica": "mysqlp1b"}]
    assert outcome["after"]["ranges"] == [
        {"range": [0, 3], "master": "mysqlp1b", "replica": None}]
    [message] = outcome["messages"]
    assert message.startswith("Promoted mysqlp1b in place of mysqlp1a for 4 shards")
    assert "fenced read-only" in message
    entry = the_entry("shards.promote", "mysqlp1a", since)
    assert (entry.outcome, entry.actor_kind) == ("ok", "admin")
    assert entry.actor_detail == "POST /admin/operations/shards/mysqlp1a/promote/ from 127.0.0.1"
    assert result_of(entry)["new_master"] == "mysqlp1b" and result_of(entry)["fenced"] is True


def test_account_deletion_asks_for_confirmation_then_starts(superuser: Client) -> None:
    pinner = create_pinner(unique_username("gone"), "a long passphrase ok")
    page = superuser.get(f"/admin/operations/pinners/{pinner.user_id}/delete/")
    assert page.status_code == 200 and "Delete the account of" in page.content.decode()
    assert pinner.account.is_active
    response = superuser.post(f"/admin/operations/pinners/{pinner.user_id}/delete/",
                              follow=True)
    assert "queued" in response.content.decode()
    pinner.account.refresh_from_db()
    assert not pinner.account.is_active
    assert (objects.get(pinner.user_id) or {}).get("deleting") is True


def test_staff_who_are_not_superusers_cannot_delete_accounts(staff: Client) -> None:
    pinner = create_pinner(unique_username("kept"), None)
    response = staff.post(f"/admin/operations/pinners/{pinner.user_id}/delete/")
    assert response.status_code == 403
    pinner.account.refresh_from_db()
    assert pinner.account.is_active


def test_the_pinner_list_action_confirms_then_deletes_the_selected_accounts(
        superuser: Client) -> None:
    doomed = [create_pinner(unique_username("bulk"), "a long passphrase ok") for _ in range(2)]
    form = {"action": "delete_accounts",
            "_selected_action": [str(pinner.pk) for pinner in doomed]}
    page = superuser.post("/admin/pins/pinner/", form)
    assert page.status_code == 200 and "Yes, delete 2 accounts" in page.content.decode()
    assert all(_active(pinner) for pinner in doomed)
    done = superuser.post("/admin/pins/pinner/", {**form, "confirmed": "yes"}, follow=True)
    assert "Deleting 2 account(s): queued." in done.content.decode()
    assert not any(_active(pinner) for pinner in doomed)


def _active(pinner: Pinner) -> bool:
    pinner.account.refresh_from_db()
    return bool(pinner.account.is_active)
