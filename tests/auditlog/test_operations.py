"""Recording an operation: its entry is written when it starts and completed when it ends, a
failure with its error, an operation inside another as part of the outer one, the actor of
the context; a process that dies leaves its entry running, and a database that cannot take
the entry stops nothing."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.utils import timezone

from auditlog.operations import operation
from sharding.exceptions import PromotionError
from tests.addresses import database_at_closed_port
from tests.auditlog.helpers import recorded, the_entry
from toolkit import acting

REPO = Path(__file__).resolve().parents[2]


def _action() -> str:
    """An action name no other test (or run) records."""
    return f"tests.{uuid.uuid4().hex[:12]}"


def test_an_entry_is_running_while_the_operation_is_under_way_then_ok_with_its_result() -> None:
    action, since = _action(), timezone.now()
    with operation(action, "mysql001a", {"wait_seconds": 5.0, "vshards": (1, 2)}) as running:
        during = the_entry(action, "mysql001a", since)
        running.result = {"map_version": 7}
    after = the_entry(action, "mysql001a", since)
    assert (during.outcome, during.finished, during.seconds) == ("running", None, None)
    assert during.arguments == {"wait_seconds": 5.0, "vshards": [1, 2]}
    assert after.outcome == "ok" and after.error == "" and after.result == {"map_version": 7}
    assert after.seconds is not None and after.finished is not None
    assert after.finished >= after.started
    assert after.process == f"{socket.gethostname()}:{os.getpid()}"


def test_a_failed_operation_is_recorded_with_its_error_which_goes_on_up() -> None:
    action, since = _action(), timezone.now()
    with pytest.raises(PromotionError, match="no replica"), operation(action, "mysql009z"):
        raise PromotionError("mysql009z has no replica to promote")
    entry = the_entry(action, "mysql009z", since)
    assert entry.outcome == "failed" and entry.seconds is not None
    assert entry.error == "PromotionError: mysql009z has no replica to promote"


def test_an_operation_inside_another_is_part_of_the_outer_entry() -> None:
    outer, inner, since = _action(), _action(), timezone.now()
    with operation(outer, "redis001a"), operation(inner, "0-8191") as nested:
        nested.result = {"keys_rewritten": 3}
    assert the_entry(outer, "redis001a", since).result is None
    assert recorded(inner, "0-8191", since) == []


def test_the_actor_is_whoever_the_context_acts_for() -> None:
    action, since = _action(), timezone.now()
    with acting.acting_as(acting.admin("ops-ada", "POST /admin/operations/x/ from 10.0.0.7")), \
            operation(action, "by-admin"):
        pass
    with operation(action, "by-process"):
        pass
    by_admin, by_process = the_entry(action, "by-admin", since), the_entry(action, "by-process",
                                                                             since)
    assert (by_admin.actor_kind, by_admin.actor) == ("admin", "ops-ada")
    assert by_admin.actor_detail == "POST /admin/operations/x/ from 10.0.0.7"
    assert (by_process.actor_kind, by_process.actor) == ("process", acting.os_user())
    assert "pytest" in by_process.actor_detail


def test_passwords_in_urls_are_masked_in_command_lines() -> None:
    actor = acting.command_line(["/srv/pinsite/manage.py", "import", "legacy",
                                 "mysql://legacy:s3cret@10.0.0.9:3306/site", "--inline"])
    assert actor.detail == "manage.py import legacy mysql://legacy:***@10.0.0.9:3306/site --inline"


DIES_MID_OPERATION = """
import os
from auditlog.operations import operation
with operation({action!r}, "mysql001a"):
    os._exit(1)
"""


def test_an_operation_whose_process_dies_stays_running() -> None:
    action, since = _action(), timezone.now()
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
                   "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", DIES_MID_OPERATION.format(action=action)],
        cwd=REPO, env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    entry = the_entry(action, "mysql001a", since)
    assert (entry.outcome, entry.finished, entry.seconds) == ("running", None, None)
    assert entry.process != f"{socket.gethostname()}:{os.getpid()}"
    assert entry.actor_kind == "process" and entry.actor_detail.startswith("manage.py shell -c")


def test_the_operation_goes_on_when_the_log_cannot_be_written(
        caplog: pytest.LogCaptureFixture) -> None:
    action, since = _action(), timezone.now()
    done = False
    with database_at_closed_port("default"), \
            caplog.at_level(logging.WARNING, logger="pinsite.auditlog"), \
            operation(action, "mysql001a"):
        done = True
    assert done
    assert recorded(action, "mysql001a", since) == []
    assert "operator audit log unavailable (OperationalError" in caplog.text
    assert f"not recorded: {action} mysql001a: ok in" in caplog.text
