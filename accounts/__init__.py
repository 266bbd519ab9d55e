"""A pinner's account as a whole: deleting it reaches the content, the graph and the feeds;
exporting it gathers everything pinsite holds about the pinner into one zip."""
