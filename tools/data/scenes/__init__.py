"""Captioned scenes of OpenMoji objects for the image captioner (docs/DATA_CARD.md): objects.py
lists the kinds, sprites.py rasterizes their SVGs (librsvg), grammar.py writes captions and
generate.py makes and draws scenes, deterministic from a seed. `python3 -m tools.data.scenes
--help` writes scenes to disk."""
