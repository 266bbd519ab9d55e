"""Following: follow and unfollow users and boards, follower lists, the batch check."""

from __future__ import annotations

from rest_framework.test import APIClient

from pins.types import BOARD, USER
from sharding.ids import MAX_LOCAL, compose
from tests.api.helpers import Caller, error_of, new_board, new_caller


def test_follow_user_then_state_and_counts(alice: Caller, bob: Caller) -> None:
    response = alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    assert response.status_code == 200
    assert response.json() == {"following": True, "changed": True}
    assert alice.client.put(f"/api/v1/users/{bob.id}/follow/").json()["changed"] is False
    assert alice.client.get(f"/api/v1/users/{bob.id}/follow/").json() == {
        "following": True, "kind": "explicit"}
    assert alice.client.get(f"/api/v1/users/{bob.id}/").json()["follower_count"] == 1


def test_unfollow_user(alice: Caller, bob: Caller) -> None:
    alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    response = alice.client.delete(f"/api/v1/users/{bob.id}/follow/")
    assert response.json() == {"following": False, "changed": True}
    assert alice.client.get(f"/api/v1/users/{bob.id}/follow/").json() == {
        "following": False, "kind": None}


def test_following_one_board_follows_its_owner_implicitly(alice: Caller, bob: Caller) -> None:
    board = new_board(bob)
    assert alice.client.put(f"/api/v1/boards/{board.id}/follow/").json()["changed"] is True
    assert alice.client.get(f"/api/v1/boards/{board.id}/follow/").json()["following"] is True
    assert alice.client.get(f"/api/v1/users/{bob.id}/follow/").json()["kind"] == "implicit"
    assert alice.client.get(f"/api/v1/boards/{board.id}/").json()["follower_count"] == 1


def test_unfollowing_one_board_of_a_followed_user(alice: Caller, bob: Caller) -> None:
    kept, dropped = new_board(bob, "Kept"), new_board(bob, "Dropped")
    alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    alice.client.delete(f"/api/v1/boards/{dropped.id}/follow/")
    check = alice.client.get(f"/api/v1/me/follows/?boards={kept.id},{dropped.id}").json()
    assert check["boards"] == {str(kept.id): True, str(dropped.id): False}


def test_cannot_follow_oneself_or_ones_own_board(alice: Caller) -> None:
    response = alice.client.put(f"/api/v1/users/{alice.id}/follow/")
    assert response.status_code == 400 and "themselves" in error_of(response)["detail"]
    board = new_board(alice)
    assert alice.client.put(f"/api/v1/boards/{board.id}/follow/").status_code == 400


def test_followers_and_following_lists(alice: Caller, bob: Caller,
                                       anonymous: APIClient) -> None:
    carol = new_caller(display_name="Carol")
    alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    carol.client.put(f"/api/v1/boards/{new_board(bob).id}/follow/")
    followers = anonymous.get(f"/api/v1/users/{bob.id}/followers/").json()
    assert [(f["user"]["id"], f["explicit"]) for f in followers["items"]] == [
        (carol.id, False), (alice.id, True)]
    assert followers["items"][0]["user"]["display_name"] == "Carol"
    following = anonymous.get(f"/api/v1/users/{alice.id}/following/").json()
    assert [f["user"]["id"] for f in following["items"]] == [bob.id]


def test_follower_list_pages(bob: Caller, anonymous: APIClient) -> None:
    fans = [new_caller() for _ in range(3)]
    for fan in fans:
        fan.client.put(f"/api/v1/users/{bob.id}/follow/")
    first = anonymous.get(f"/api/v1/users/{bob.id}/followers/?limit=2").json()
    rest = anonymous.get(first["next"]).json()
    seen = [f["user"]["id"] for f in first["items"] + rest["items"]]
    assert seen == [fan.id for fan in reversed(fans)] and rest["next_cursor"] is None


def test_board_followers_include_the_owners_followers(alice: Caller, bob: Caller,
                                                      anonymous: APIClient) -> None:
    board = new_board(bob)
    alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    body = anonymous.get(f"/api/v1/boards/{board.id}/followers/").json()
    assert [(f["user"]["id"], f["explicit"]) for f in body["items"]] == [(alice.id, False)]


def test_batch_check_answers_every_id_asked(alice: Caller, bob: Caller) -> None:
    carol = new_caller()
    board = new_board(carol)
    alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    alice.client.put(f"/api/v1/boards/{board.id}/follow/")
    gone = compose(0, BOARD.type_id, MAX_LOCAL)
    response = alice.client.get(f"/api/v1/me/follows/?users={bob.id},{carol.id}"
                                f"&boards={board.id},{gone}")
    assert response.status_code == 200
    assert response.json() == {
        "users": {bob.id: True, carol.id: False},
        "boards": {str(board.id): True, str(gone): False}, "interests": {}}


def test_batch_check_refuses_ids_no_user_or_board_can_have(alice: Caller) -> None:
    board = new_board(alice)
    for query, field, bad in ((f"users={alice.id},{board.id}", "users", board.id),
                              (f"boards={board.id},1", "boards", 1)):
        response = alice.client.get(f"/api/v1/me/follows/?{query}")
        assert response.status_code == 400, query
        assert str(bad) in error_of(response)["fields"][field][0]


def test_batch_check_with_nothing_asked(alice: Caller) -> None:
    assert alice.client.get("/api/v1/me/follows/").json() == {"users": {}, "boards": {},
                                                              "interests": {}}


def test_batch_check_caps_the_number_of_ids(alice: Caller) -> None:
    ids = ",".join(str(n) for n in range(1, 102))
    response = alice.client.get(f"/api/v1/me/follows/?users={ids}")
    assert response.status_code == 400
    assert error_of(response)["fields"]["users"] == ["At most 100 IDs, comma-separated."]
    long_ids = ",".join(str(10**19 + n) for n in range(101))
    response = alice.client.get(f"/api/v1/me/follows/?boards={long_ids}")
    assert error_of(response)["fields"]["boards"] == ["At most 100 IDs, comma-separated."]
    slugs = ",".join(f"s{n}" for n in range(101))
    response = alice.client.get(f"/api/v1/me/follows/?interests={slugs}")
    assert error_of(response)["fields"]["interests"] == [
        "At most 100 interest slugs, comma-separated."]
    hundred = ",".join(str(compose(0, USER.type_id, n)) for n in range(1, 101))
    assert alice.client.get(f"/api/v1/me/follows/?users={hundred}").status_code == 200


def test_batch_check_rejects_malformed_lists(alice: Caller) -> None:
    for query in ("users=abc", "users=1,,2", "boards=1;2", "users=-5"):
        response = alice.client.get(f"/api/v1/me/follows/?{query}")
        assert response.status_code == 400, query


def test_follow_calls_need_a_pinner(anonymous: APIClient, bob: Caller) -> None:
    for method in ("get", "put", "delete"):
        response = getattr(anonymous, method)(f"/api/v1/users/{bob.id}/follow/")
        assert response.status_code == 401, method
    assert anonymous.get("/api/v1/me/follows/?users=1").status_code == 401
