"""The following feed on HBase: storage, fanout actors, dual clusters, speculative reads."""
