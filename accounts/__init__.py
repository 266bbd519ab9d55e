"""A pinner's account as a whole: deleting it reaches the content, the graph and the feeds."""
