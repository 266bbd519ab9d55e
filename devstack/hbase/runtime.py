"""Apache HBase's jars and the Java that runs them, resolved once and cached.

``pom.xml`` beside this module names the release; Maven resolves it from Maven Central into
its local repository (``~/.m2``) and writes the classpath to a file in the user's cache
(``~/.cache/pinsite/``), which later starts of any profile and any clone reuse. Nothing else
is downloaded, and nothing is built.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

from devstack.errors import DevstackError
from devstack.process import exclusive, find_program

POM = Path(__file__).with_name("pom.xml")
VERSION = re.search(r"<hbase.version>([^<]+)</hbase.version>", POM.read_text())[1]  # type: ignore[index]
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
RESOLVE_TIMEOUT = 1800.0
# The Java releases HBase 2.6 supports (its book's support matrix); a newer one is refused.
SUPPORTED_JAVA = (17, 11)
JAVA_HOMES = tuple(Path(f"/usr/lib/jvm/java-{release}-openjdk-amd64") for release in SUPPORTED_JAVA)


class HBaseRuntimeError(DevstackError):
    """HBase's jars or a Java it supports could not be found or fetched."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pinsite"


def classpath_file() -> Path:
    return cache_dir() / f"hbase-{VERSION}.classpath"


@cache
def classpath() -> str:
    """The jars of HBase's server and Thrift gateway, fetched with Maven on first use (checked
    once per process: an ``up`` of six JVMs reads the list and its 250 jars once)."""
    jars = _cached_jars()
    if jars is None:
        with exclusive(cache_dir() / "hbase.lock", timeout=RESOLVE_TIMEOUT):
            jars = _cached_jars() or _resolve()
    return os.pathsep.join(jars)


def _cached_jars() -> list[str] | None:
    """The cached classpath, if every jar in it is still there."""
    try:
        jars = classpath_file().read_text().strip().split(os.pathsep)
    except OSError:
        return None
    return jars if jars != [""] and all(os.path.isfile(jar) for jar in jars) else None


def _resolve() -> list[str]:
    mvn = find_program("mvn")
    target = classpath_file()
    scratch = target.with_suffix(".tmp")
    print(f"devstack: fetching Apache HBase {VERSION} from Maven Central (once; about 110 MB)",
          file=sys.stderr, flush=True)
    argv = [mvn, "-B", "-q", "-f", str(POM), f"{DEPENDENCY_PLUGIN}:build-classpath",
            f"-Dmdep.outputFile={scratch}", "-Dmdep.includeScope=runtime"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT,
                              env={**os.environ, "JAVA_HOME": str(java_home())})
    except FileNotFoundError as error:
        raise HBaseRuntimeError(f"Maven is missing ({mvn}): it fetches HBase's jars") from error
    except subprocess.TimeoutExpired as error:
        raise HBaseRuntimeError(f"Maven did not fetch HBase {VERSION} within "
                                f"{RESOLVE_TIMEOUT:.0f}s") from error
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise HBaseRuntimeError(f"Maven could not fetch HBase {VERSION} (exit "
                                f"{done.returncode}):\n{tail}")
    scratch.replace(target)
    jars = _cached_jars()
    if not jars:
        raise HBaseRuntimeError(f"Maven wrote no usable classpath to {target}")
    return jars


@cache
def java_home() -> Path:
    """A Java that HBase supports: ``PINSITE_JAVA_HOME``, else the system's Java 17 (or 11),
    else the ``java`` on the path if it is one of those."""
    configured = os.environ.get("PINSITE_JAVA_HOME")
    candidates: list[Path | None] = ([Path(configured)] if configured
                                     else [*JAVA_HOMES, _path_java_home()])
    for home in candidates:
        if home is not None and _release(home) in SUPPORTED_JAVA:
            return home
    wanted = " or ".join(map(str, SUPPORTED_JAVA))
    where = f"PINSITE_JAVA_HOME={configured}" if configured else "this machine"
    raise HBaseRuntimeError(f"HBase {VERSION} needs Java {wanted}; {where} has none "
                            "(set PINSITE_JAVA_HOME to one)")


def java() -> str:
    return str(java_home() / "bin" / "java")


def _path_java_home() -> Path | None:
    found = find_program("java")
    return Path(os.path.realpath(found)).parent.parent if os.path.isfile(found) else None


def _release(home: Path) -> int | None:
    """The feature release of the JDK in ``home`` (from its ``release`` file or ``-version``)."""
    try:
        text = (home / "release").read_text()
        match = re.search(r'JAVA_VERSION="(\d+)', text)
    except OSError:
        try:
            done = subprocess.run([str(home / "bin" / "java"), "-version"], capture_output=True,
                                  text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        match = re.search(r'version "(\d+)', done.stderr)
    return int(match[1]) if match else None
