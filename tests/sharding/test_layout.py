"""A production-like layout: 4,096 logical shards over the two shard hosts."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sharding.schema import existing_tables, table_statements

REPO = Path(__file__).resolve().parents[2]


def _manage(environment: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=environment,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.slow
def test_4096_shards_are_created_on_their_masters_and_mapped(tmp_path: Path) -> None:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
                   "PINSITE_SHARD_COUNT": "4096", "PINSITE_ZK_ROOT": "/pinsite-layout-4096",
                   "PINSITE_VAR": str(tmp_path)}
    _manage(environment, "shards", "init", "--quiet")
    shown = json.loads(_manage(environment, "shards", "show", "--json"))
    ranges = [(row["range"], row["master"]) for row in shown["ranges"]]
    assert ranges == [([0, 2047], "mysql001a"), ([2048, 4095], "mysql002a")]
    for master, last in (("mysql001a", 2047), ("mysql002a", 4095)):
        tables = existing_tables(master)
        assert tables[f"db{last:05d}"] == set(table_statements())
        assert sum(1 for schema in tables if schema.startswith("db0")) >= 2048
