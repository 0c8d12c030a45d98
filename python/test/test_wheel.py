"""The wheel (cmake --build build --target quire-wheel): its name and tags,
libquire.so inside the package, and an install into a fresh directory that
imports and runs a kernel with nothing from the source or build tree.
check-quire builds the wheel first and names it in $QUIRE_WHEEL."""

import os
import subprocess
import sys
import zipfile

import pytest

import quire

WHEEL = os.environ.get("QUIRE_WHEEL")
pytestmark = pytest.mark.skipif(
    not WHEEL, reason="QUIRE_WHEEL is not set (check-quire builds the wheel "
    "and sets it; or cmake --build build --target quire-wheel)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))


def test_name_tags_and_contents():
    assert os.path.basename(WHEEL) == \
        f"quire-{quire.__version__}-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(WHEEL) as z:
        names = set(z.namelist())
        info = f"quire-{quire.__version__}.dist-info"
        wheel = z.read(f"{info}/WHEEL").decode()
        meta = z.read(f"{info}/METADATA").decode()
        version = z.read("quire/VERSION").decode().strip()
    assert "quire/libquire.so" in names
    assert "quire/language/core.py" in names and "quire/ops/unified.py" in names
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    assert "Tag: py3-none-linux_x86_64" in wheel
    assert "Root-Is-Purelib: false" in wheel
    assert f"Version: {quire.__version__}" in meta
    assert version == quire.__version__


def test_version_has_one_source():
    # CMake's QUIRE_VERSION reaches the package, the wheel and the library.
    assert quire.__version__ == quire.compiler_version()["version"]


def test_installed_wheel_runs_a_kernel(tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                    "--no-deps", "--no-index", "--disable-pip-version-check",
                    "--target", str(target), WHEEL], check=True,
                   capture_output=True)
    script = f"""
import numpy as np, quire, quire.language as tl
assert quire.__file__.startswith({str(target)!r}), quire.__file__
lib = quire.compiler_version()["library"]
assert lib == {str(target / "quire" / "libquire.so")!r}, lib

@quire.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m),
             mask=m)

x, y = np.random.rand(1000).astype(np.float32), np.random.rand(1000).astype(np.float32)
out = np.full(1000, np.nan, np.float32)
add[(4,)](x, y, out, 1000, BLOCK=256)
assert (out == x + y).all()
ptx = quire.compile({os.path.join(ROOT, "examples", "vector_add.mlir")!r}, sm=90).asm("ptx")
assert ".entry" in ptx
print(quire.__version__)
"""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "QUIRE_LIBRARY")}
    env["PYTHONPATH"] = str(target)
    env["QUIRE_INTERPRET"] = "1"
    env["QUIRE_CACHE_DIR"] = str(tmp_path / "cache")
    (tmp_path / "hello.py").write_text(script)  # @quire.jit reads source
    res = subprocess.run([sys.executable, "hello.py"], env=env,
                         cwd=str(tmp_path), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == quire.__version__
