"""Entry point of the queue workers: ``dramatiq pinsite.worker``.

Sets Django up (which configures the broker and its middleware: the events' relay, the
feed's queue depth sampler) and imports the ``tasks`` module of every installed pinsite app,
which declares its actors.
"""

import django

django.setup()

from pinsite.backlog import import_actors  # noqa: E402

import_actors()
