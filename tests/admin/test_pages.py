"""The operators' pages render for staff, and only for staff."""

from __future__ import annotations

import pytest
from django.test import Client

from coordination.zookeeper import delete_tree, root_path
from pins.actions import create_board, create_pin, create_pinner
from sharding import orchestrator
from tests.events.helpers import stale_row
from tests.pins.helpers import image_bytes, unique_username

PAGES = ["/admin/", "/admin/operations/shards/", "/admin/operations/vshards/",
         "/admin/operations/lookup/", "/admin/operations/pinners/", "/admin/operations/queues/",
         "/admin/operations/audit/", "/admin/pins/pinner/"]


@pytest.mark.parametrize("page", PAGES)
def test_pages_render_for_staff(page: str, staff: Client) -> None:
    response = staff.get(page)
    assert response.status_code == 200, response.content[:300]


@pytest.mark.parametrize("page", PAGES)
def test_pages_send_others_to_the_login_page(page: str, pinner_client: Client) -> None:
    response = pinner_client.get(page)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


@pytest.mark.parametrize("page", PAGES)
def test_pages_send_anonymous_visitors_to_the_login_page(page: str) -> None:
    assert Client().get(page)["Location"].startswith("/admin/login/")


def test_index_links_every_operations_page(staff: Client) -> None:
    content = staff.get("/admin/").content.decode()
    for page in PAGES[1:-1]:
        assert f'href="{page}"' in content


def test_shard_map_shows_ranges_hosts_and_lag(staff: Client) -> None:
    content = staff.get("/admin/operations/shards/").content.decode()
    for text in ("0-31", "32-63", "mysql001a", "mysql001b", "mysql002a", "Lag (s)",
                 "/admin/operations/shards/mysql001a/promote/"):
        assert text in content


def test_shard_map_lists_the_orchestrators_failovers(staff: Client) -> None:
    assert "Automatic failovers" in staff.get("/admin/operations/shards/").content.decode()
    orchestrator.record({"kind": "promoted", "master": "mysqlx1a", "replica": "mysqlx1b",
                         "fenced": True, "detail": "3 failed probes in a row; mysqlx1b had lost "
                                                   "it too"})
    try:
        content = staff.get("/admin/operations/shards/").content.decode()
        assert "mysqlx1a" in content and "mysqlx1b had lost it too" in content
    finally:
        delete_tree(root_path(orchestrator.HISTORY))


def test_vshard_map_shows_ranges_and_instances(staff: Client) -> None:
    content = staff.get("/admin/operations/vshards/").content.decode()
    for text in ("8192 vshards", "redis001a", "redis001b", "redis002b", "Link to master"):
        assert text in content


def test_lookup_decodes_the_golden_id(staff: Client) -> None:
    content = staff.get("/admin/operations/lookup/?id=241294492511762325").content.decode()
    assert "3429 (schema db03429)" in content and "1 (pin)" in content
    assert "7075733" in content and "not open in the shard map" in content


def test_lookup_shows_stored_json_and_lists(staff: Client) -> None:
    pinner = create_pinner(unique_username("adm"), None)
    board = create_board(pinner.user_id, "Operators' board")
    pin = create_pin(pinner.user_id, board.id, "Looked up", "", "", image_bytes())
    content = staff.get(f"/admin/operations/lookup/?id={board.id}").content.decode()
    assert "Operators&#x27; board" in content and "board_has_pins" in content
    assert str(pin.id) in content and f"&quot;owner_id&quot;: {pinner.user_id}" in content
    user_page = staff.get(f"/admin/operations/lookup/?id={pinner.user_id}").content.decode()
    assert "user_has_boards" in user_page and "follower state" in user_page


@pytest.mark.parametrize("text", ["abc", "-5", "99999999999999999999999", "0"])
def test_lookup_explains_bad_ids(text: str, staff: Client) -> None:
    response = staff.get("/admin/operations/lookup/", {"id": text})
    assert response.status_code == 200
    assert "is not an object ID" in response.content.decode()


def test_pinner_admin_is_read_only_and_searchable(staff: Client, superuser: Client) -> None:
    pinner = create_pinner(unique_username("search"), None)
    listing = superuser.get("/admin/pins/pinner/", {"q": pinner.username}).content.decode()
    assert str(pinner.user_id) in listing and "follower state" in listing
    by_id = superuser.get("/admin/pins/pinner/", {"q": str(pinner.user_id)}).content.decode()
    assert pinner.username in by_id
    assert superuser.get("/admin/pins/pinner/add/").status_code == 403
    assert superuser.post(f"/admin/pins/pinner/{pinner.pk}/delete/",
                          {"post": "yes"}).status_code == 403


def test_queues_page_shows_the_event_outbox_and_warns_about_old_rows(staff: Client) -> None:
    with stale_row(120) as (alias, _):
        content = staff.get("/admin/operations/queues/").content.decode()
    assert "Event outbox" in content and alias in content
    assert "WARNING: unsent for over 60 s" in content
