"""The follower graph: Redis virtual shards, the durable edge log, verify and rebuild."""
