"""attn align over a file on a Dask cluster (align.py)."""
