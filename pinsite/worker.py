"""Entry point of the queue workers: ``dramatiq pinsite.worker``.

Sets Django up (which configures the broker and its middleware: the events' relay, the
feed's queue depth sampler) and imports the ``tasks`` module of every installed pinsite app,
which declares its actors.
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
