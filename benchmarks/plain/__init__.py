"""The plain peer: the following feed's page as the simplest Django + DRF project would make it.

One database on the stack's MariaDB, Django's auth and DRF's token authentication, three
tables (boards, pins, follows of boards), and one view: the pins of the boards a user follows,
newest first, found by a join over the follows, paged by DRF's cursor pagination and written by
a ``ModelSerializer`` of the same thirteen fields as pinsite's pin. ``bench site --peer``
(:mod:`benchmarks.peer`) fills it with a million follows and serves it with the same gunicorn
layout as pinsite, to show where the sharded design costs more than the simplest thing that
could work, and where it wins.

It is a separate Django project (``DJANGO_SETTINGS_MODULE=benchmarks.plain.settings``): it
imports nothing of pinsite's.
"""
