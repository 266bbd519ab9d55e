"""The HBase Thrift1 development server, and its devstack service kind.

Two halves live here:

* :mod:`devstack.hbase.service` is the devstack service kind (stdlib only, like all of
  devstack); it runs the server with the project's ``.venv`` Python.
* everything else is the server itself (needs thriftpy2): ``python -m devstack.hbase --port P
  --data DIR``. It speaks happybase's own ``Hbase.thrift`` and keeps the HBase semantics pinsite
  relies on: byte-ordered rows and columns, timestamped versions, delete markers until a major
  compaction, atomic row mutations, scans, counters, and durability through a write-ahead log
  and snapshots. See ``docs/hbase.md``.

This file imports nothing, so the stdlib-only half can be used without thriftpy2.
"""
