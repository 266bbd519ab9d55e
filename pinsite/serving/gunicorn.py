"""The production web server's configuration: ``gunicorn -c python:pinsite.serving.gunicorn``.

Threaded workers (:mod:`pinsite.serving.threaded`, gunicorn's ``gthread`` without its
hand-offs between threads) keep client connections alive between requests (a browser's or an
API client's next request skips the TCP handshake) and let a worker wait on several stores at
once; several worker processes use every core. Nothing is loaded before the fork, so each
worker opens its own MySQL, Redis, HBase, ZooKeeper and RabbitMQ connections.

Environment: ``PINSITE_BIND`` (default 127.0.0.1:8000), ``PINSITE_WEB_WORKERS`` and
``PINSITE_WEB_THREADS`` (default two per core, of two threads: :mod:`pinsite.serving.layout`),
``PINSITE_ACCESS_LOG`` (1 to log each request).
"""

from __future__ import annotations

import os
from typing import Any

from gunicorn.glogging import Logger
from prometheus_client.multiprocess import mark_process_dead

from pinsite import env
from pinsite.serving.layout import web_threads, web_workers

wsgi_app = "pinsite.wsgi:application"
bind = [env.text("PINSITE_BIND", "127.0.0.1:8000")]
workers = web_workers()
worker_class = "pinsite.serving.threaded.ThreadedWorker"
threads = web_threads()
keepalive = 15
timeout = 30
graceful_timeout = 20
max_requests = 50_000
max_requests_jitter = 5_000
ACCESS_LOG = env.flag("PINSITE_ACCESS_LOG", False)
accesslog = "-" if ACCESS_LOG else None
errorlog = "-"
proc_name = "pinsite-web"
# One line per event, the same shape as the site's own log lines.
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"format": "%(asctime)s %(levelname)s %(name)s [%(process)d] "
                                      "%(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line"}},
    "loggers": {"gunicorn.error": {"handlers": ["console"], "level": "INFO",
                                   "propagate": False},
                "gunicorn.access": {"handlers": ["console"], "level": "INFO",
                                    "propagate": False}},
}


class SiteLogger(Logger):
    """gunicorn's logger, with the access log only when asked for: gunicorn writes a line per
    request whenever ``logconfig_dict`` is set, whatever ``accesslog`` says."""

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
        if ACCESS_LOG:
            super().access(resp, req, environ, request_time)


logger_class = SiteLogger


def child_exit(server: Any, worker: Any) -> None:
    """A worker that exited leaves no live gauges behind in the metrics directory."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        mark_process_dead(worker.pid)
