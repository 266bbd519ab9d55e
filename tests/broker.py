"""RabbitMQ down for real: the test stack's server stops its broker application
(``rabbitmqctl stop_app``), so open connections are closed and new ones refused, as when the
server dies, and every publish meets the broker errors that production meets
(``toolkit.queue.BROKER_ERRORS``). It is started again on the way out, however the block ends.

>>> with rabbitmq_stopped():
...     new_pin(owner, board)     # committed; the fast path's publish fails, the row stays
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

import dramatiq
from django.conf import settings

from devstack import Stack
from devstack.rabbitmq import RabbitMQ


@contextmanager
def rabbitmq_stopped() -> Iterator[None]:
    """Within the block, the stack's RabbitMQ accepts no connection."""
    stack = Stack(settings.PROFILE)
    rabbitmq = cast(RabbitMQ, stack.service("rabbitmq"))
    rabbitmq.ctl("stop_app")
    try:
        yield
    finally:
        rabbitmq.ctl("start_app")
        stack.wait_healthy("rabbitmq")
        dramatiq.get_broker().close()  # connections the stop closed are opened anew
