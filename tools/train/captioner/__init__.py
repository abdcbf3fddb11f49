"""Show, Attend and Tell (Xu et al. 2015) on OpenMoji scenes: the captioner's file format
(fileformat.py), its numpy reference forward pass (reference.py), the PyTorch model (model.py),
training (train.py) and evaluation (evaluate.py). Run from the repository root:
python3 -m tools.train.captioner.train, ... .evaluate, ... .make_fixture."""
