"""The feed audit page: a day of the auditor's rounds plotted, a warning below 99.99 % recall,
the wrong entries found."""

from __future__ import annotations

from django.test import Client

from feed import audit, audit_rounds, storage
from feed.schema import Entry
from graph.actions import follow_board
from pins.selectors import get_pin
from tests.feed.helpers import new_board, new_pin, new_user
from tests.feed.running import RunningQueue
from toolkit.clock import now_us


def _audited_feed(running: RunningQueue, drop: bool) -> tuple[int, int]:
    owner, follower = new_user(), new_user()
    board = new_board(owner)
    follow_board(follower, board)
    pin = new_pin(owner, board)
    running.settle()
    if drop:
        entry = Entry(get_pin(pin).created_us, pin)
        storage.change_feed("standby", follower, now_us(), remove=[entry])
    audit_rounds.record(audit.audit_users([follower], window=0), "command")
    return follower, pin


def test_a_round_below_the_mark_is_a_warning_with_its_findings(running: RunningQueue,
                                                               staff: Client) -> None:
    follower, pin = _audited_feed(running, drop=True)
    content = staff.get("/admin/operations/audit/").content.decode()
    assert 'id="audit-warning"' in content and "is below 99.99%" in content
    assert "Recall (lowest per 10 min)" in content and "<svg" in content
    assert f"/admin/operations/pinners/{follower}/" in content
    assert f">{pin}</a></td><td>not delivered</td>" in content


def test_a_clean_round_shows_no_warning(running: RunningQueue, staff: Client) -> None:
    _audited_feed(running, drop=False)
    content = staff.get("/admin/operations/audit/").content.decode()
    assert 'id="audit-ok"' in content and 'id="audit-warning"' not in content
    assert "recall 1.0000, precision 1.0000" in content


def test_a_finding_links_to_the_explanation_of_its_pin(running: RunningQueue,
                                                       staff: Client) -> None:
    follower, pin = _audited_feed(running, drop=True)
    link = f"/admin/operations/pinners/{follower}/explain/?pin={pin}"
    assert link in staff.get("/admin/operations/audit/").content.decode()
    content = staff.get(link).content.decode()
    assert 'id="explain-following"' in content and 'id="explain-home"' in content
    assert "Following feed: present" in content
    assert '<tr data-code="absent"><td>feed:standby</td>' in content
    assert '<tr data-code="delivered"><td>feed:primary</td>' in content


def test_the_explanation_page_refuses_a_malformed_pin(staff: Client) -> None:
    user = new_user()
    content = staff.get(f"/admin/operations/pinners/{user}/explain/?pin=abc").content.decode()
    assert 'class="errornote"' in content and "not" in content
    assert staff.get("/admin/operations/pinners/123/explain/").status_code in (400, 404)
