"""Run one action per service in threads, respecting an order between services."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from devstack.errors import DevstackError
from devstack.service import Service


class DependencyFailed(DevstackError):
    """A service was skipped because one it waits for failed."""


def run_ordered(services: Iterable[Service], action: Callable[[Service], object],
                after: Callable[[Service], Iterable[Service]],
                early: Callable[[Service], object] | None = None) -> dict[str, BaseException]:
    """Run ``action(s)`` for every service in its own thread, each once all of ``after(s)``
    (those among ``services``) are done; ``early(s)`` runs before that wait.

    Returns the errors by service name (empty when all succeeded).
    """
    chosen = {service.name: service for service in services}
    done = {name: threading.Event() for name in chosen}
    errors: dict[str, BaseException] = {}

    def work(service: Service) -> None:
        try:
            if early is not None:
                early(service)
            for other in after(service):
                if other.name in chosen:
                    done[other.name].wait()
                    if other.name in errors:
                        raise DependencyFailed(f"{service.name}: skipped, {other.name} failed")
            action(service)
        except BaseException as error:
            errors[service.name] = error
        finally:
            done[service.name].set()

    threads = [threading.Thread(target=work, args=(service,), name=f"devstack-{name}", daemon=True)
               for name, service in chosen.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
