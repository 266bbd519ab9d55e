"""The operators' pages of the Django admin (loaded by the admin's autodiscovery).

The shard map, the graph's vshard map, an ID lookup, a pinner's follower state and smart feed,
the smart feed's health and the queues, read-only except for explicit actions
(``docs/admin.md``).
"""

from django.contrib import admin

from pinsite.admin.site import install

install(admin.site)
