"""Kernels compiled with quirec flags (pass options the Python binding does
not expose), for ablations: `compile_with(src, kernel, flags, num_warps)`
returns a quire.Kernel. $QUIRE_QUIREC names the quirec binary (default
build/bin/quirec)."""

import json
import os
import subprocess
import tempfile

from common import ROOT
from quire import Kernel

QUIREC = os.environ.get("QUIRE_QUIREC", os.path.join(ROOT, "build", "bin", "quirec"))


def compile_with(src, kernel, flags, num_warps, sm=90):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.mlir")
        with open(path, "w") as f:
            f.write(src)
        meta = os.path.join(tmp, "meta.json")
        ptx = subprocess.run([QUIREC, path, f"--sm={sm}", f"--num-warps={num_warps}",
                              f"--meta-out={meta}", *flags], check=True,
                             capture_output=True, text=True).stdout
        with open(meta) as f:
            kernels = json.load(f)["kernels"]
    info = [k for k in kernels if k["name"] == kernel][0]
    return Kernel(src, "k.mlir", sm, num_warps, ptx, info)
