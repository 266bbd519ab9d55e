"""Elections: of the processes standing under one name, one leads at a time (a kazoo
``Election`` recipe under ``<ZK_ROOT>/<name>``); when it ends or its session is lost, the
next one takes over.

>>> stand("orchestrator/election", "host:12", lead, stop, retry_every=5.0)
>>> contenders("orchestrator/election")
['host:12', 'host:13']
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from kazoo.exceptions import KazooException

from coordination.zookeeper import failing_closed, root_path, zookeeper

log = logging.getLogger("pinsite.coordination")


def stand(name: str, identifier: str, lead: Callable[[], None], stop: threading.Event,
          retry_every: float) -> None:
    """Stand as ``identifier`` until ``stop`` is set: whenever elected, call ``lead()`` (which
    returns when it is done leading). A lost session (ZooKeeper down) ends the candidacy; it
    stands again ``retry_every`` seconds later. Raises :class:`CoordinationUnavailable` when
    ZooKeeper cannot be reached at the start."""
    election = zookeeper.require().Election(root_path(name), identifier)
    watcher = threading.Thread(target=lambda: (stop.wait(), election.cancel()), daemon=True)
    watcher.start()
    while not stop.is_set():
        try:
            election.run(lead)
        except KazooException as exc:
            log.warning("%s lost ZooKeeper (%r); standing again", identifier, exc)
            stop.wait(retry_every)


def contenders(name: str) -> list[str]:
    """The identifiers standing under ``name`` now, the leader first."""
    with failing_closed(f"list the contenders of {root_path(name)}"):
        found: list[str] = zookeeper.require().Election(root_path(name)).contenders()
    return found
