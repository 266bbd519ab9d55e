"""A pinner's follower state, the log comparison and the confirmed rebuild."""

from __future__ import annotations

from django.test import Client

from graph import keys
from graph.actions import follow_board, follow_user
from graph.selectors import follower_count
from graph.store import admin as redis_admin
from graph.topology import master_for
from graph.vshards import vshard_of
from pins.actions import create_board, create_pinner
from tests.api.helpers import unique_username


def _pinner() -> int:
    return int(create_pinner(unique_username("fs"), None).user_id)


def test_state_shows_every_set_and_board(staff: Client) -> None:
    owner, fan, other = _pinner(), _pinner(), _pinner()
    board = create_board(owner, "Followed board")
    follow_user(fan, owner)
    follow_board(other, board.id)
    content = staff.get(f"/admin/operations/pinners/{owner}/").content.decode()
    assert keys.user_key(owner, keys.FOLLOWERS) in content
    assert "explicit followers" in content and "Followed board" in content
    assert f"vshard {vshard_of(owner)} on {master_for(vshard_of(owner))}" in content
    assert "The feed is empty." in content


def test_find_by_username_goes_to_the_state(staff: Client) -> None:
    pinner = create_pinner(unique_username("find"), None)
    response = staff.get("/admin/operations/pinners/", {"q": pinner.username})
    assert response.status_code == 302
    assert response["Location"] == f"/admin/operations/pinners/{pinner.user_id}/"


def test_unknown_pinner_is_explained(staff: Client) -> None:
    response = staff.get("/admin/operations/pinners/", {"q": "nobody-by-this-name"})
    assert "No pinner is called" in response.content.decode()
    missing = staff.get("/admin/operations/pinners/12345/")
    assert missing.status_code == 200 and "not a user ID" in missing.content.decode()


def test_verify_reports_a_difference_and_rebuild_repairs_it(staff: Client,
                                                            superuser: Client) -> None:
    owner, fan = _pinner(), _pinner()
    follow_user(fan, owner)
    followers = keys.user_key(owner, keys.FOLLOWERS)
    redis_admin.delete_keys(master_for(vshard_of(owner)), [followers])
    assert follower_count(owner) == 0
    page = f"/admin/operations/pinners/{owner}/"
    verified = staff.get(page, {"verify": "1"}).content.decode()
    assert "<strong>1 differences</strong>" in verified and followers in verified

    confirmation = superuser.get(f"{page}rebuild/")
    assert confirmation.status_code == 200 and "Yes, do it" in confirmation.content.decode()
    assert follower_count(owner) == 0
    done = superuser.post(f"{page}rebuild/", follow=True)
    assert "1 differences found, 1 keys rewritten" in done.content.decode()
    assert follower_count(owner) == 1
    assert "<strong>0 differences</strong>" in staff.get(page, {"verify": "1"}).content.decode()


def test_rebuild_is_for_superusers_only(staff: Client) -> None:
    page = f"/admin/operations/pinners/{_pinner()}/rebuild/"
    assert "Only superusers" in staff.get(page).content.decode()
    assert staff.post(page).status_code == 403


def test_rebuild_needs_the_csrf_token(superuser: Client) -> None:
    owner = _pinner()
    superuser.handler.enforce_csrf_checks = True  # type: ignore[attr-defined]
    assert superuser.post(f"/admin/operations/pinners/{owner}/rebuild/").status_code == 403
