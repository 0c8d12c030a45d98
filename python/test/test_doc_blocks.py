"""The Python code blocks of README.md and docs/python.md run as written.

A block fenced ```python runs in a fresh process from the repository root
with QUIRE_INTERPRET=1 (numpy arrays through the interpreter, as the README
says); ```python gpu runs where torch sees a GPU; ```python excerpt marks
what is not a program (signatures, a part of an engine) and is not run."""

import os
import re
import subprocess
import sys

import pytest

import quire
from conftest import ROOT, has_gpu

DOCS = ["README.md", os.path.join("docs", "python.md")]
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.M | re.S)


def _blocks():
    out = []
    for doc in DOCS:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            text = f.read()
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((doc, line, m.group(1).strip(), m.group(2)))
    return out


BLOCKS = _blocks()


def test_every_block_is_marked_known():
    assert {kind for _, _, kind, _ in BLOCKS} <= {"", "gpu", "excerpt"}
    for doc in DOCS:
        assert any(d == doc and k == "" for d, _, k, _ in BLOCKS), doc


@pytest.mark.parametrize("doc, line, kind, code", [
    pytest.param(*b, id=f"{b[0]}:{b[1]}") for b in BLOCKS if b[2] != "excerpt"])
def test_block_runs(doc, line, kind, code, tmp_path):
    if kind == "gpu" and not has_gpu():
        pytest.skip("needs torch with CUDA")
    env = dict(os.environ, QUIRE_CACHE_DIR=str(tmp_path / "cache"))
    if kind == "":
        env["QUIRE_INTERPRET"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(quire.__file__))] +
        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    script = tmp_path / "block.py"  # @quire.jit reads its source
    script.write_text(code)
    res = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"{doc}:{line}\n{res.stderr}"
