"""Deleting an account reaches everything, on the real stack with a real queue worker: the
shards (MySQL), the graph (Redis and its edge log), both feed clusters (HBase), the media
folder, tokens, sessions, and the username."""

from __future__ import annotations

from pathlib import Path

import dramatiq
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from rest_framework.authtoken.models import Token

from accounts import actions
from feed.store.pools import CLUSTERS
from graph import actions as graph
from graph import keys, selectors, topology
from graph.interests import follow_interest
from graph.store import admin as redis_admin
from graph.tables import (
    INTEREST_FOLLOWED_BY_USER,
    USER_FOLLOWS_BOARD,
    USER_FOLLOWS_INTEREST,
    USER_FOLLOWS_USER,
)
from graph.vshards import vshard_of
from pins.actions import create_pinner, repin
from pins.actions.pinners import request_account_deletion
from pins.interests import interest
from pins.models import Pinner
from pins.selectors import get_pin
from pins.types import PIN_HAS_REPINS, USER_HAS_BOARDS, USER_HAS_PINS
from sharding import mappings, objects, slices
from tests.api.helpers import PASSWORD, new_caller
from tests.feed.helpers import feed_ids, new_board, new_pin, new_user
from tests.graph.helpers import verify_all
from tests.polling import wait_until

pytestmark = pytest.mark.slow


def _files(pin_id: int) -> list[Path]:
    pin = get_pin(pin_id)
    return [Path(settings.MEDIA_ROOT) / pin.image, Path(settings.MEDIA_ROOT) / pin.thumbnail]


def _redis_keys(user: int, boards: list[int]) -> dict[str, object]:
    names = keys.user_keys(user) + [name for board in boards for name in keys.board_keys(board)]
    instance = topology.master_for(vshard_of(user))
    return {name: value for name, value in redis_admin.read_values(instance, names).items()
            if value}


def _feed_row(user: int) -> dict[str, list[int]]:
    return {cluster: feed_ids(user, cluster) for cluster in CLUSTERS}


@pytest.mark.alone
def test_deleting_an_account_removes_everything_it_made_and_follows(
        worker: dramatiq.Worker) -> None:
    victim = new_caller()
    web = Client()
    assert web.login(username=victim.username, password=PASSWORD)
    other, saver, fan, board_fan = (new_user() for _ in range(4))
    others_board = new_board(other)
    theirs = new_pin(other, others_board, "Theirs")
    kept_by_repin, gone = (new_board(victim.user_id, name) for name in ("Kept", "Gone"))
    shared = new_pin(victim.user_id, kept_by_repin, "Shared")
    lonely = [new_pin(victim.user_id, gone, "Lonely"), new_pin(victim.user_id, gone, "Alone")]
    own_repin = repin(victim.user_id, theirs, gone).id
    saved = repin(saver, shared, new_board(saver)).id
    graph.follow_user(fan, victim.user_id)
    graph.follow_board(board_fan, gone)
    graph.follow_user(victim.user_id, other)
    graph.follow_board(victim.user_id, new_board(saver, "Followed"))
    follow_interest(victim.user_id, "travel")
    victims_pins = [shared, *lonely, own_repin]
    assert wait_until(lambda: set(victims_pins) <= set(feed_ids(fan))
                      and theirs in feed_ids(victim.user_id))
    lonely_files = [path for pin in lonely for path in _files(pin)]
    shared_files = _files(shared) + _files(theirs)

    response = victim.client.delete("/api/v1/me/")
    assert response.status_code == 202, response.content
    assert victim.client.get("/api/v1/me/").status_code == 401  # the token is refused
    assert web.get("/board/new/").status_code == 302  # the session is over

    assert wait_until(lambda: not Pinner.objects.filter(user_id=victim.user_id).exists(),
                      timeout=60)
    assert objects.get(victim.user_id) is None
    assert objects.get_many([kept_by_repin, gone, *victims_pins]) == {}
    assert mappings.count(USER_HAS_BOARDS, victim.user_id) == 0
    assert mappings.count(USER_HAS_PINS, victim.user_id) == 0
    assert not slices.contains(INTEREST_FOLLOWED_BY_USER, interest("travel").id,
                               victim.user_id)
    for table in (USER_FOLLOWS_USER, USER_FOLLOWS_BOARD, USER_FOLLOWS_INTEREST):
        assert mappings.count(table, victim.user_id) == 0
    assert not mappings.contains(USER_FOLLOWS_USER, fan, victim.user_id)
    # the graph drops a deleted board's follows when its board_deleted event reaches the worker,
    # which may come after the account's own rows are gone
    assert wait_until(lambda: not mappings.contains(USER_FOLLOWS_BOARD, board_fan, gone)
                      and _redis_keys(victim.user_id, [kept_by_repin, gone]) == {}, timeout=30)
    assert selectors.follow_kind(fan, victim.user_id) is None
    assert wait_until(lambda: not any(set(victims_pins) & set(ids)
                                      for reader in (fan, board_fan)
                                      for ids in _feed_row(reader).values()), timeout=60)
    assert wait_until(lambda: _feed_row(victim.user_id) == {c: [] for c in CLUSTERS})
    assert wait_until(lambda: not any(path.exists() for path in lonely_files), timeout=30)
    assert all(path.exists() for path in shared_files)  # the saver's repin still shows one
    assert objects.get(saved) is not None
    assert wait_until(lambda: not mappings.contains(PIN_HAS_REPINS, theirs, own_repin))
    assert not get_user_model().objects.filter(username=victim.username).exists()
    assert not Token.objects.filter(key=victim.token).exists()
    assert not [s for s in Session.objects.all()
                if s.get_decoded().get("_auth_user_id") == str(victim.user_id)]
    report = verify_all()
    assert report["difference_count"] == 0 and report["orphan_rows"] == 0, report
    assert create_pinner(victim.username, None).username == victim.username  # free again


def test_an_interrupted_deletion_finishes_when_run_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    victim, fan = new_user(), new_user()
    board = new_board(victim)
    new_pin(victim, board)
    graph.follow_user(fan, victim)
    request_account_deletion(victim)  # no worker runs here: the deletion is run by hand

    def killed(user_id: int) -> int:
        raise SystemExit("worker killed")

    monkeypatch.setattr(actions, "forget_user", killed)
    with pytest.raises(SystemExit):
        actions.delete_account(victim)
    assert objects.get(board) is None and objects.get(victim) is not None  # half done
    monkeypatch.undo()
    deleted = actions.delete_account(victim)
    assert deleted.boards == 0 and deleted.follows == 1
    assert objects.get(victim) is None
    assert not Pinner.objects.filter(user_id=victim).exists()
    assert not mappings.contains(USER_FOLLOWS_USER, fan, victim)
