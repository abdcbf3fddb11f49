"""attnscope's tools: the data pipeline (data), training (train), evaluation (eval), attn align on a cluster
(cluster). Run a module from the repository's root: /usr/bin/python3 -m tools.train ... (tools/README.md)."""
