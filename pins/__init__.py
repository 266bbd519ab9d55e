"""The content domain: pinners, boards, pins and repins, stored on the logical shards."""
