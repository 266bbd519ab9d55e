"""Log filters: one line per event.

A queue worker whose message fails because a store is down logs the failure with its whole
traceback, at ERROR, on every retry: while a cluster is down that is hundreds of tracebacks a
minute for one known cause. So do the web pages and the API, which answer such a request with
a 503. :class:`OutageLines` turns each such record into one WARNING line that names the
error; a failure of any other kind keeps its traceback. :class:`AnsweredOutages` drops
Django's own "Service Unavailable" line for those 503s: the view logged the outage already.

Attached in ``LOGGING``: ``OutageLines`` to ``dramatiq.worker.WorkerThread`` and to the
console handler (pinsite's loggers), ``AnsweredOutages`` to ``django.request``.
"""

from __future__ import annotations

import logging

from toolkit.errors import StoreUnavailable


class OutageLines(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, StoreUnavailable):
            record.msg = f"{record.getMessage()} {type(error).__name__}: {error}"
            record.args = ()
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class AnsweredOutages(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "status_code", None) != 503
