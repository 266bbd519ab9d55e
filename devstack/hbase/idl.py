"""happybase's own ``Hbase.thrift``, loaded with thriftpy2, so the server speaks its exact protocol.

The file is found without importing happybase, and loaded under happybase's module name
(``Hbase_thrift``): thriftpy2 caches it, so in a process that also uses happybase both share
the same struct classes.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import thriftpy2

MODULE_NAME = "Hbase_thrift"


def idl_path() -> Path:
    """The path of ``Hbase.thrift`` inside the installed happybase package."""
    spec = importlib.util.find_spec("happybase")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("happybase is not installed: its Hbase.thrift defines the protocol")
    return Path(next(iter(spec.submodule_search_locations))) / "Hbase.thrift"


hbase: Any = thriftpy2.load(str(idl_path()), module_name=MODULE_NAME)
