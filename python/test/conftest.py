"""Shared setup of Quire's pytest suite (run: python3 -m pytest python/test).

The package under test is whichever `import quire` finds: the build tree's
copy when PYTHONPATH=<build>/python (what check-quire-python does), else the
source tree's python/quire. Compiled kernels go to a per-session cache
directory, never ~/.cache/quire. Tests marked `gpu` launch kernels; they are
skipped, with the reason, where torch or a CUDA GPU is missing.
"""

import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")

try:
    import quire  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import quire  # noqa: F401

# Before any test compiles: keep the user's cache out of it.
os.environ["QUIRE_CACHE_DIR"] = tempfile.mkdtemp(prefix="quire-pytest-cache-")
os.environ.pop("QUIRE_NO_CACHE", None)


def ptxas_sm90a(ptx, name, verbose=False):
    """What `ptxas -arch=sm_90a` reports (its warnings and infos, such as
    C7515 for serialized wgmmas; with `verbose`, -v's registers and spills)
    on `ptx`, written to `name`.ptx in the test cache; skips the test
    without ptxas, fails it if ptxas rejects the PTX."""
    found = quire._ptxas.find()
    if found is None:
        pytest.skip("no ptxas")
    path = os.path.join(os.environ["QUIRE_CACHE_DIR"], name + ".ptx")
    with open(path, "w") as f:
        f.write(ptx)
    r = subprocess.run([found[0], "-arch=sm_90a", *(["-v"] if verbose else []),
                        path, "-o", os.devnull],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout + r.stderr


def _gpu_skip_reason():
    try:
        import torch
    except ImportError:
        return "needs torch with CUDA (torch is not installed)"
    if not torch.cuda.is_available():
        return "needs a CUDA GPU (torch.cuda.is_available() is False)"
    return None


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: launches kernels; needs torch and a CUDA GPU")


def pytest_collection_modifyitems(config, items):
    reason = None
    checked = False
    for item in items:
        if "gpu" in item.keywords:
            if not checked:
                reason, checked = _gpu_skip_reason(), True
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


def has_gpu():
    return _gpu_skip_reason() is None


def example(name):
    return os.path.join(EXAMPLES, name)


class FakeCudaArray:
    """A device array as cupy or numba would describe it, with no memory
    behind it: enough for every check that fails before a launch."""

    def __init__(self, shape, typestr="<f4", ptr=0x7F0000000000,
                 strides=None, readonly=False):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr,
            "data": (ptr, readonly), "strides": strides, "version": 3}
