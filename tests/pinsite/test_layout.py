"""The web's layout: two worker processes per core, of two threads, unless the environment
says otherwise; gunicorn's configuration, ``runsite`` and ``bench site`` share it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

from pinsite.serving import layout


def test_two_workers_per_core_of_two_threads_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PINSITE_WEB_WORKERS", raising=False)
    monkeypatch.delenv("PINSITE_WEB_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert (layout.web_workers(), layout.web_threads()) == (12, 2)


def test_gunicorn_takes_the_layout_the_environment_sets() -> None:
    env = {**os.environ, "PINSITE_WEB_WORKERS": "5", "PINSITE_WEB_THREADS": "3"}
    shown = subprocess.run(
        [sys.executable, "-c", "from pinsite.serving import gunicorn as g; "
                               "print(g.workers, g.threads, g.worker_class)"],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["5", "3", "pinsite.serving.threaded.ThreadedWorker"]
