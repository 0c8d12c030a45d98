"""`import quire` without torch, numpy or a GPU, and compiling without them;
the library search order."""

import os
import subprocess
import sys

import quire
from quire import _lib

PKG_PARENT = os.path.dirname(os.path.dirname(quire.__file__))

BLOCK = ("import sys\n"
         "sys.modules['torch'] = None\n"   # `import torch` now raises
         "sys.modules['numpy'] = None\n"
         "sys.modules['cupy'] = None\n")


def _python(code, **env):
    e = dict(os.environ, PYTHONPATH=PKG_PARENT)
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e,
                          capture_output=True, text=True, timeout=300)


def test_import_needs_neither_torch_nor_numpy():
    proc = _python(BLOCK + "import quire, quire.ops, quire.testing\n"
                   "print(sorted(m for m in ('torch', 'numpy') if sys.modules.get(m)))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_import_does_not_load_libquire_or_the_driver():
    proc = _python("import quire, quire._lib, quire._cuda\n"
                   "print(quire._lib._lib, quire._cuda._lib)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "None None"


def test_compile_without_numpy(tmp_path):
    vadd = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                        "vector_add.mlir")
    proc = _python(BLOCK + f"import quire\nk = quire.compile({vadd!r}, sm=90)\n"
                   "print(k.name)", QUIRE_CACHE_DIR=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "vector_add"


def test_missing_library_is_a_clear_error(tmp_path):
    proc = _python("import quire\n"
                   "try:\n"
                   "    quire.compile('module {}', sm=90)\n"
                   "except quire.LibraryError as e:\n"
                   "    print('LibraryError', e)\n",
                   QUIRE_LIBRARY=str(tmp_path / "libquire.so"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("LibraryError libquire.so not found")
    assert "QUIRE_LIBRARY" in proc.stdout


def test_library_is_found():
    path = _lib.library_path()
    assert path and os.path.isfile(path)
    if not os.environ.get("QUIRE_LIBRARY"):
        here = os.path.dirname(os.path.abspath(quire.__file__))
        assert path in [os.path.normpath(p) for p in (
            os.path.join(here, "libquire.so"),
            os.path.join(here, "..", "..", "lib", "libquire.so"),
            os.path.join(here, "..", "..", "build", "lib", "libquire.so"))]
