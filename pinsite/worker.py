"""Entry point of the queue workers: ``dramatiq pinsite.worker``.

Sets Django up (which configures the broker), imports the ``tasks`` module of every installed
pinsite app, which declares its actors, and starts the thread that samples the queue depths
for the admin's queues dashboard (:mod:`feed.observe`; once per bucket across all processes).
"""

import importlib
import importlib.util

import django

django.setup()

from django.apps import apps  # noqa: E402

for app in apps.get_app_configs():
    module = f"{app.name}.tasks"
    if importlib.util.find_spec(module) is not None:
        importlib.import_module(module)

from feed import observe  # noqa: E402
from pinsite.admin.queues import queue_depths  # noqa: E402

observe.start_depth_sampler(queue_depths)
