"""pinsite's local service manager: MariaDB, Redis, ZooKeeper and RabbitMQ for development.

Stdlib only, so it runs with the system ``python3`` before any virtualenv exists::

    python3 -m devstack --profile test up
    eval "$(python3 -m devstack env)"

or from Python::

    from devstack import Stack
    stack = Stack("test")
    stack.up()
"""

from devstack.errors import DevstackError, StartError
from devstack.stack import Stack, StackError

__all__ = ["DevstackError", "Stack", "StackError", "StartError"]
