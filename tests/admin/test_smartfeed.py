"""The smart feed's pages: a pinner's pools and materialized feed, the queued rebuild, the
generator's health, and the warnings shown when the pools cluster or Redis is down."""

from __future__ import annotations

from collections.abc import Iterator

import dramatiq
import pytest
from django.test import Client
from pytest_django import Settings

from feed.smart import generator, health, materialized, pools
from feed.smart.pools import Insert
from feed.smart.schema import Shown
from feed.store import pools as connections
from pins.models import Pinner
from tests.addresses import CLOSED
from tests.broker import rabbitmq_stopped
from tests.feed.helpers import CapturedQueue, new_board, new_pin, new_user
from toolkit.clock import now_us

HEALTH = "/admin/operations/smartfeed/"


def _page(user: int) -> str:
    return f"/admin/operations/pinners/{user}/smartfeed/"


def _messages(response: object) -> list[str]:
    return [str(message) for message in response.context["messages"]]  # type: ignore[attr-defined]


def pinner_with_smart_feed() -> tuple[int, int, int]:
    """A reader with one pin in their ``following`` pool, one in their materialized feed, a
    delivered chunk and an affinity; returns the reader and the two pins."""
    owner, reader = new_user("sfa"), new_user("sfa")
    board = new_board(owner)
    pooled, shown = new_pin(owner, board, "Pooled quiche"), new_pin(owner, board, "Shown tart")
    now = now_us()
    pools.insert([Insert(reader, "following", pooled, 1.25, now)])
    for cluster in ("primary", "standby"):  # a slow primary read falls over to the standby
        materialized.write(cluster, reader, [Shown(now, 0, shown, "interests")])
    pools.write_state(reader, generator.delivered({}, now, 12, {"following": 7, "related": 5}))
    pools.add_affinity(reader, {("b", board): 5})
    return reader, pooled, shown


@pytest.fixture
def pools_down(settings: Settings) -> Iterator[None]:
    """The pools cluster's address pointing at a closed port (the other clusters answer)."""
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "POOLS": CLOSED}
    connections.reset()
    yield
    connections.reset()


def test_the_pinner_page_shows_pools_chunks_and_the_materialized_head(staff: Client) -> None:
    reader, pooled, shown = pinner_with_smart_feed()
    response = staff.get(_page(reader))
    content = response.content.decode()
    assert response.status_code == 200
    assert response.context["sources"][0].source == "following"
    assert [pool.size for pool in response.context["sources"]] == [1, 0, 0, 0]
    assert '<td class="pool-size">1</td>' in content
    assert str(pooled) in content and "Pooled quiche" in content and "1.25" in content
    assert '<p class="home-entries">1 entries.</p>' in content
    assert str(shown) in content and "Shown tart" in content and "interests" in content
    assert "following 7, related 5" in content and "missed visits since: 0" in content
    assert "Rebuild pools" in content and f'{_page(reader)}rebuild/' in content
    assert "smartfeed-warning" not in content


def test_the_pools_cluster_down_is_a_warning(staff: Client, pools_down: None) -> None:
    reader = new_user("sfa")
    response = staff.get(_page(reader))
    content = response.content.decode()
    assert response.status_code == 200
    assert "Pools cluster unavailable" in content and "127.0.0.1:1" in content
    assert "0 entries." in content  # the materialized feed still answers


def test_the_page_is_linked_from_the_index_the_lookup_and_the_pinner(staff: Client,
                                                                       superuser: Client) -> None:
    reader = new_user("sfa")
    index = staff.get("/admin/").content.decode()
    assert 'href="/admin/operations/smartfeed/pinners/"' in index
    assert f'href="{HEALTH}"' in index
    for page in (f"/admin/operations/pinners/{reader}/", f"/admin/operations/lookup/?id={reader}"):
        assert f'href="{_page(reader)}"' in staff.get(page).content.decode()
    pk = Pinner.objects.get(user_id=reader).pk
    change = superuser.get(f"/admin/pins/pinner/{pk}/change/").content.decode()
    assert f'href="{_page(reader)}"' in change


def test_find_by_username_goes_to_the_smart_feed(staff: Client) -> None:
    reader = new_user("sfa")
    username = Pinner.objects.get(user_id=reader).account.username
    response = staff.get("/admin/operations/smartfeed/pinners/", {"q": username})
    assert response.status_code == 302 and response["Location"] == _page(reader)
    missing = staff.get("/admin/operations/pinners/12345/smartfeed/")
    assert missing.status_code == 200 and "not a user ID" in missing.content.decode()


def test_rebuild_pools_asks_first_then_queues_the_rebuild(superuser: Client) -> None:
    reader = new_user("sfa")
    with CapturedQueue(dramatiq.get_broker()).capturing() as queue:
        confirm = superuser.get(f"{_page(reader)}rebuild/")
        assert confirm.status_code == 200 and "Pins pooled by earlier fanouts" in \
            confirm.content.decode()
        assert queue.pending == []
        response = superuser.post(f"{_page(reader)}rebuild/", follow=True)
    assert response.redirect_chain[-1][0] == _page(reader)
    assert [(m.actor_name, m.args) for m in queue.pending] == [("smartfeed_rebuild", (reader,))]
    [message] = _messages(response)
    assert "queued" in message and str(reader) in message


@pytest.mark.alone
def test_a_broker_error_is_reported(superuser: Client) -> None:
    reader = new_user("sfa")
    with rabbitmq_stopped():
        response = superuser.post(f"{_page(reader)}rebuild/", follow=True)
    assert response.status_code == 200
    [message] = _messages(response)
    assert "not done" in message and "ConnectionClosed" in message


def test_rebuild_needs_a_superuser_and_the_csrf_token(staff: Client,
                                                      superuser: Client) -> None:
    reader = new_user("sfa")
    with CapturedQueue(dramatiq.get_broker()).capturing() as queue:
        assert staff.post(f"{_page(reader)}rebuild/").status_code == 403
        superuser.handler.enforce_csrf_checks = True  # type: ignore[attr-defined]
        assert superuser.post(f"{_page(reader)}rebuild/").status_code == 403
    assert queue.pending == []


@pytest.mark.parametrize("page", ["{page}", "{page}rebuild/", HEALTH,
                                  "/admin/operations/smartfeed/pinners/"])
def test_pages_refuse_non_staff(page: str, pinner_client: Client) -> None:
    url = page.format(page=_page(new_user("sfa")))
    with CapturedQueue(dramatiq.get_broker()).capturing() as queue:
        for client in (pinner_client, Client()):
            response = client.post(url) if url.endswith("rebuild/") else client.get(url)
            assert response.status_code == 302
            assert response["Location"].startswith("/admin/login/")
    assert queue.pending == []


def test_the_health_page_shows_the_last_hour(staff: Client) -> None:
    health.record("chunk", 3.0)
    response = staff.get(HEALTH)
    content = response.content.decode()
    summary = response.context["summary"]
    assert response.status_code == 200 and summary["outcomes"]["chunk"] >= 1
    assert summary["generator_ms"]["max"] >= 3.0
    assert f'<strong class="visits">{summary["visits"]} visits</strong>' in content
    assert f"<td>chunk</td><td>{summary['outcomes']['chunk']}</td>" in content
    for name in ("failed", "timeout", "unavailable", "p50", "p90", "p99", "max"):
        assert name in content
    assert "Redis unavailable" not in content


@pytest.mark.usefixtures("observations_down")
def test_redis_down_is_a_warning(staff: Client) -> None:
    response = staff.get(HEALTH)
    assert response.status_code == 200
    assert "Redis unavailable" in response.content.decode()
