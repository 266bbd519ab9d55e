"""Promote a shard replica through the admin, in a process whose shard hosts are a throwaway
master/replica pair (the environment of ``test_actions``). Prints one JSON line: the status
codes of the confirmation page and of the confirmed post, the messages shown, and the map."""

from __future__ import annotations

import json
import os
import sys
import uuid

import django


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.test_settings")
    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.test.utils import setup_test_environment

    from sharding.topology import fresh_map

    setup_test_environment()
    master = sys.argv[1]
    account = get_user_model().objects.create_user(f"op{uuid.uuid4().hex[:12]}", "", "x",
                                                   is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(account)
    page = f"/admin/operations/shards/{master}/promote/"
    confirmation = client.get(page)
    before = fresh_map().to_json()
    done = client.post(page, follow=True)
    after = fresh_map().to_json()
    print(json.dumps({
        "confirmation": confirmation.status_code, "confirmed": done.status_code,
        "messages": [str(message) for message in done.context["messages"]],
        "before": before, "after": after}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
