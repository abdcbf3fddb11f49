"""The tools as packages: no module edits sys.path, no two modules import each other (directly or
round a longer circle, imports inside functions included), and the modules that the whole-model
benchmark (../shared/bench/models/export_onnx.py) imports flat, with tools/train/ on sys.path,
still import so.

    /usr/bin/python3 -m pytest tools/test_imports.py
"""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATH_EDIT = "sys.path." + "insert"  # spelled apart so that this file does not match itself


def modules():
    """{dotted name: path} of every Python module under tools/."""
    found = {}
    for path in (ROOT / "tools").rglob("*.py"):
        if "node_modules" in path.parts:
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(name, path, known):
    """The modules of `known` that module `name` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            named.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names)
    return {module for module in named if module in known and module != name}


def test_no_module_edits_the_import_path():
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    editing = [file for file in tracked.stdout.split()
               if (ROOT / file).exists() and PATH_EDIT in (ROOT / file).read_text(encoding="utf-8")]
    assert editing == []


def test_no_import_circle():
    known = modules()
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    circles, state, stack = [], {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for imported in sorted(graph[module]):
            if state.get(imported) == "open":
                circles.append(" -> ".join(stack[stack.index(imported):] + [imported]))
            elif imported not in state:
                visit(imported)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert circles == []


def test_the_benchmarks_flat_imports_of_tools_train_work():
    pytest.importorskip("torch")
    code = ("import safetensors, spec; from transformer import Transformer, positions; "
            "print(safetensors.__file__); assert hasattr(safetensors, 'read') and spec.safetensors is safetensors")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tools" / "train"), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", code], cwd="/", env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / "tools" / "train" / "safetensors.py")
