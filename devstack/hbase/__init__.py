"""The local stack's HBase clusters: Apache HBase itself, fetched from Maven Central.

* :mod:`devstack.hbase.runtime` resolves HBase's jars with Maven (``pom.xml``) into a cache
  and finds a Java that HBase supports;
* :mod:`devstack.hbase.config` writes a cluster's ``hbase-site.xml`` and logging;
* :mod:`devstack.hbase.service` runs a cluster as two services, its server JVM (standalone
  master, region server and ZooKeeper) and its Thrift (v1) gateway;
* :mod:`devstack.hbase.probe` asks the gateway whether every region answers;
* :mod:`devstack.hbase.admin` flushes, major-compacts and lists regions (``ClusterAdmin.java``).

All of it is stdlib only, like the rest of devstack. See ``docs/hbase.md``.
"""
