"""What an operator does to a cluster beyond the Thrift gateway: flush a table's memstores,
major-compact it (and wait until it is done), list its regions, turn the block cache on for
its families (for tables created before the feed asked for it). Runs ``ClusterAdmin.java``
with HBase's own Admin API, configured by the gateway's ``hbase-site.xml``."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from devstack.errors import DevstackError
from devstack.hbase import runtime
from devstack.hbase.service import JDK11_FLAGS, QUICK_JIT, HBaseThrift
from devstack.service import Service

SOURCE = Path(__file__).with_name("ClusterAdmin.java")
COMMANDS = ("flush", "major-compact", "regions", "block-cache")
TIMEOUT = 180.0


def run(gateway: Service, command: str, table: str) -> str:
    """Run ``command`` on ``table`` of the cluster behind ``gateway``; its output."""
    if not isinstance(gateway, HBaseThrift):
        raise DevstackError(f"{gateway.name} is not an HBase gateway (hbase1, hbase2, hbase3)")
    if command not in COMMANDS:
        raise DevstackError(f"unknown HBase command {command!r}: use {', '.join(COMMANDS)}")
    gateway.prepare()
    classes = compiled()
    argv = [runtime.java(), "-Djava.net.preferIPv4Stack=true", *QUICK_JIT, *JDK11_FLAGS,
            f"-Dlog4j2.configurationFile={gateway.conf_dir / 'log4j2.properties'}",
            "-cp", f"{classes}:{gateway.conf_dir}:{runtime.classpath()}", SOURCE.stem,
            command, table]
    done = _run(argv, f"{command} {table} on {gateway.name}")
    return done.stdout


def compiled() -> Path:
    """The folder of ``ClusterAdmin.class``, compiled once per version of its source."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    classes = runtime.cache_dir() / f"hbase-{runtime.VERSION}-admin-{digest}"
    if not (classes / f"{SOURCE.stem}.class").is_file():
        scratch = classes.with_suffix(".tmp")
        scratch.mkdir(parents=True, exist_ok=True)
        javac = str(runtime.java_home() / "bin" / "javac")
        _run([javac, "-cp", runtime.classpath(), "-d", str(scratch), str(SOURCE)],
             f"compiling {SOURCE.name}")
        scratch.replace(classes)
    return classes


def _run(argv: list[str], what: str) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as error:
        raise DevstackError(f"{what} took over {TIMEOUT:.0f}s") from error
    except FileNotFoundError as error:
        raise DevstackError(f"{what}: {error.filename} is missing") from error
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise DevstackError(f"{what} failed:\n{tail}")
    return done
