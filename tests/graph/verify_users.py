"""Verify some users' graph keys in one process (``graph verify --user`` for each, without a
process per user): ``python -m tests.graph.verify_users --users 1,2,3`` prints a JSON object
of each user's differences, as ``graph verify --json`` lists them."""

from __future__ import annotations

import argparse
import json
import os

import django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", required=True)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.test_settings")
    django.setup()
    from graph import repair

    found = {user: [d.to_json() for d in repair.verify_user(int(user)).differences]
             for user in options.users.split(",")}
    print(json.dumps(found))


if __name__ == "__main__":
    main()
