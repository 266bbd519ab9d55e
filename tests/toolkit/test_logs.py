"""A queue message that fails because a store is down logs one WARNING line naming the error;
any other failure keeps its ERROR and its traceback (the logging set up by the settings)."""

from __future__ import annotations

import logging

import pytest

from feed.exceptions import FeedUnavailable
from graph.exceptions import GraphUnavailable
from toolkit.logs import OutageLines

WORKER = logging.getLogger("dramatiq.worker.WorkerThread")


def failed(error: Exception) -> None:
    try:
        raise error
    except Exception:
        WORKER.error("Failed to process message %s with unhandled exception.", "deliver(1)",
                     exc_info=True)


@pytest.mark.parametrize("error", [FeedUnavailable("HBase primary failed: refused"),
                                   GraphUnavailable("redis001a is down")])
def test_a_store_outage_is_one_warning_line(error: Exception,
                                            caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=WORKER.name):
        failed(error)
    [record] = caplog.records
    assert record.levelname == "WARNING" and record.exc_info is None
    assert record.getMessage() == ("Failed to process message deliver(1) with unhandled "
                                   f"exception. {type(error).__name__}: {error}")
    assert "Traceback" not in caplog.text


def test_any_other_failure_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=WORKER.name):
        failed(KeyError("a bug"))
    [record] = caplog.records
    assert record.levelname == "ERROR" and record.exc_info is not None
    assert "Traceback" in caplog.text and "KeyError" in caplog.text


def test_a_page_or_api_outage_is_one_line_without_djangos_second_one(
        caplog: pytest.LogCaptureFixture) -> None:
    [console] = [handler for handler in logging.getLogger("pinsite").handlers
                 if any(isinstance(f, OutageLines) for f in handler.filters)]
    try:
        raise GraphUnavailable("redis001a is down")
    except GraphUnavailable as exc:
        record = logging.getLogger("pinsite.web").makeRecord(
            "pinsite.web", logging.ERROR, __file__, 1, "a store could not serve %s", ("/",),
            (type(exc), exc, exc.__traceback__))
    assert console.filter(record)
    assert (record.levelname, record.exc_info) == ("WARNING", None)
    assert record.getMessage() == "a store could not serve / GraphUnavailable: redis001a is down"
    with caplog.at_level(logging.INFO, logger="django.request"):
        request_log = logging.getLogger("django.request")
        request_log.error("Service Unavailable: %s", "/x/", extra={"status_code": 503})
        request_log.error("Internal Server Error: %s", "/y/", extra={"status_code": 500})
    assert [r.getMessage() for r in caplog.records] == ["Internal Server Error: /y/"]
