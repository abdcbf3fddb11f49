"""Benchmarks beside their peers; the captioner's PyTorch and ONNX side (caption_torch.py) is Python."""
