"""The devstack service kind of the HBase Thrift development server (stdlib only).

The server needs thriftpy2, so it runs with the project's ``.venv`` Python::

    <repo>/.venv/bin/python -m devstack.hbase --host 127.0.0.1 --port P --data <home>/data
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from devstack import health
from devstack.profile import REPO_ROOT
from devstack.service import SINGLE, Service

VENV_PYTHON = REPO_ROOT / ".venv" / "bin" / "python"


class HBaseThrift(Service):
    """One ``python -m devstack.hbase`` process: its data (snapshot + log) in ``data/``."""

    kind: ClassVar[str] = "hbase"
    start_timeout: ClassVar[float] = 60.0
    stop_timeout: ClassVar[float] = 60.0

    def __init__(self, name: str, port: int, home: Path, *, role: str = SINGLE,
                 host: str = "127.0.0.1", python: Path = VENV_PYTHON) -> None:
        super().__init__(name, port, home, role=role, host=host)
        self.python = python

    @property
    def marker(self) -> str:
        return str(self.data_dir)

    def command(self) -> list[str]:
        return [str(self.python), "-m", "devstack.hbase", "--host", self.host,
                "--port", str(self.port), "--data", str(self.data_dir)]

    def environ(self) -> dict[str, str]:
        path = os.environ.get("PYTHONPATH")
        return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), path]))}

    def before_start(self) -> None:
        if not os.access(self.python, os.X_OK):
            raise self.failure(f"{self.python} is missing: create the virtualenv first "
                               "(`make setup`), the HBase server needs thriftpy2", logs=[])

    def probe(self) -> bool:
        return health.hbase_thrift_ok(self.host, self.port)
