"""Coordination in ZooKeeper: the process's client, watched JSON documents with last-known-good
copies (the shard map, the vshard map, the pulled boards), the host registry, elections, and
small JSON nodes. Below the sharding layer, above the toolkit; every kazoo call of pinsite is
here, and its failures leave as this package's own errors (:mod:`coordination.exceptions`)."""
