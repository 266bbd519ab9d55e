"""pinsite: Pinterest's sharded architecture as one Django monolith."""
