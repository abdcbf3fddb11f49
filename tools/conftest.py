"""pytest's collection of the tools' tests: those of the training tools need Debian's PyTorch
(python3-torch, which ./run deps installs); without it they are left out, and the run says so."""
import importlib.util

NEEDS_TORCH = ["train/test_spec.py", "train/test_transformer.py", "train/test_reference.py", "train/test_multi.py",
               "train/captioner/*", "bench/test_caption_torch.py"]
collect_ignore_glob = [] if importlib.util.find_spec("torch") else NEEDS_TORCH


def pytest_report_header():
    if collect_ignore_glob:
        return "no PyTorch for this interpreter (apt-get install -y python3-torch): the training tools' tests are left out"
    return None
