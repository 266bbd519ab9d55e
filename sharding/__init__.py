"""The sharded MySQL data layer: IDs, the shard map, the router and the object/mapping store."""
