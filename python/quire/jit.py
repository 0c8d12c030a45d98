"""Compile tile kernels and launch them on device tensors.

    kernel = quire.compile("examples/vector_add.mlir")
    kernel[(blocks,)](x, y, out, n)

Arguments are checked against the kernel's signature before a launch: a
pointer takes a CUDA tensor (torch, or anything with
`__cuda_array_interface__`) of the pointee's dtype whose address honours the
argument's `tile.divisibility`; an integer takes a Python int in range and
divisible as declared; a float takes a Python number.
"""

import ctypes
import json
import os
import re
import shutil
import subprocess
import tempfile

from . import _cuda


class CompilationError(Exception):
    """The kernel did not compile; the message holds the located diagnostics."""


_POINTEE_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
}
_TYPESTR = {  # __cuda_array_interface__ typestr -> pointee
    "<f2": "f16", "<f4": "f32", "<f8": "f64", "|b1": "i1", "|i1": "i8",
    "<i2": "i16", "<i4": "i32", "<i8": "i64",
}


def _find_quirec():
    env = os.environ.get("QUIRE_QUIREC")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "build", "bin", "quirec"),
                      os.path.join(here, "bin", "quirec")):
        if os.path.exists(candidate):
            return os.path.abspath(candidate)
    found = shutil.which("quirec")
    if found:
        return found
    raise CompilationError("quirec not found: build Quire or set QUIRE_QUIREC")


class Kernel:
    """A compiled kernel: `kernel[grid](*args, stream=None)` launches it."""

    def __init__(self, ptx: str, meta: dict, sm: int):
        self.ptx = ptx
        self.meta = meta
        self.name = meta["name"]
        self.args = meta["args"]
        self.threads = meta["threads"]
        self.shared_bytes = meta["shared_bytes"]
        self.sm = sm
        self._module = None

    def __getitem__(self, grid):
        if isinstance(grid, int):
            grid = (grid,)
        if (not isinstance(grid, tuple) or not 1 <= len(grid) <= 3 or
                not all(isinstance(g, int) and g >= 1 for g in grid)):
            raise ValueError(
                f"grid must be 1 to 3 positive ints, got {grid!r}")
        grid = tuple(grid) + (1,) * (3 - len(grid))
        if any(g >= 2 ** 31 for g in grid) or grid[1] > 65535 or grid[2] > 65535:
            raise ValueError(f"grid {grid} exceeds the CUDA limits")

        def launch(*args, stream=None):
            params = self._params(args)
            if self._module is None:
                self._module = _cuda.Module(self.ptx.encode(), self.name,
                                            self.shared_bytes)
            _cuda.make_current(0)
            self._module.launch(grid, self.threads, params,
                                _stream_handle(stream))
        return launch

    def _params(self, args):
        if len(args) != len(self.args):
            raise TypeError(f"kernel '{self.name}' takes {len(self.args)} "
                            f"arguments, got {len(args)}")
        params = []
        for i, (spec, value) in enumerate(zip(self.args, args)):
            where = f"argument #{i} ({spec['type']}) of '{self.name}'"
            if spec["kind"] == "ptr":
                params.append(ctypes.c_uint64(_pointer(value, spec, where)))
            elif spec["kind"] == "int":
                params.append(_integer(value, spec, where))
            else:
                params.append(_float(value, spec, where))
        return params


def _stream_handle(stream):
    if stream is None:
        try:
            import torch
            return torch.cuda.current_stream().cuda_stream
        except ImportError:
            return 0
    if isinstance(stream, int):
        return stream
    return getattr(stream, "cuda_stream", 0)


def _pointer(value, spec, where):
    pointee = re.match(r"!tile\.ptr<(\w+)>", spec["type"]).group(1)
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
        if not getattr(value, "is_cuda", False):
            raise ValueError(f"{where}: expected a CUDA tensor, got one on "
                             f"{getattr(value, 'device', 'the CPU')}")
        dtype = str(value.dtype).replace("torch.", "")
        if dtype != _POINTEE_DTYPES[pointee]:
            raise TypeError(f"{where}: expected a {_POINTEE_DTYPES[pointee]} "
                            f"tensor, got {dtype}")
        address = value.data_ptr()
    elif hasattr(value, "__cuda_array_interface__"):
        cai = value.__cuda_array_interface__
        if _TYPESTR.get(cai["typestr"]) != pointee:
            raise TypeError(f"{where}: expected {pointee} data, got typestr "
                            f"{cai['typestr']}")
        address = cai["data"][0]
    else:
        raise TypeError(f"{where}: expected a CUDA tensor, got "
                        f"{type(value).__name__}")
    div = spec.get("divisibility", 1)
    if address % div:
        raise ValueError(f"{where}: address {address:#x} is not aligned to "
                         f"{div} bytes as the kernel requires")
    return address


def _integer(value, spec, where):
    if isinstance(value, bool) or not isinstance(value, int):
        if type(value).__name__.startswith(("int", "uint")) and hasattr(value, "item"):
            value = int(value)
        else:
            raise TypeError(f"{where}: expected an int, got {type(value).__name__}")
    bits = spec["bits"]
    lo, hi = -(1 << (bits - 1)), (1 << bits) - 1
    if not lo <= value <= hi:
        raise ValueError(f"{where}: {value} does not fit in {bits} bits")
    div = spec.get("divisibility", 1)
    if value % div:
        raise ValueError(f"{where}: {value} is not a multiple of {div} as the "
                         f"kernel requires")
    return {8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32,
            64: ctypes.c_int64}[bits](value if value <= (1 << (bits - 1)) - 1
                                      else value - (1 << bits))


def _float(value, spec, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: expected a float, got {type(value).__name__}")
    if spec["bits"] == 64:
        return ctypes.c_double(value)
    if spec["bits"] == 32:
        return ctypes.c_float(value)
    raise TypeError(f"{where}: scalar {spec['type']} arguments are not supported")


def compile(src, sm=None, num_warps=4, kernel=None):
    """Compiles a tile kernel (MLIR text or a path to a .mlir file)."""
    if not isinstance(num_warps, int) or num_warps < 1 or num_warps & (num_warps - 1) or num_warps > 32:
        raise ValueError(f"num_warps must be a power of two in [1, 32], got {num_warps!r}")
    if sm is None:
        sm = _cuda.compute_capability()
    if isinstance(src, str) and "\n" not in src and src.endswith(".mlir"):
        with open(src) as f:
            text, name = f.read(), src
    elif isinstance(src, str):
        text, name = src, "<string>"
    else:
        raise TypeError(f"src must be MLIR text or a .mlir path, got {type(src).__name__}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, os.path.basename(name) if name != "<string>" else "kernel.mlir")
        with open(path, "w") as f:
            f.write(text)
        meta_path = os.path.join(tmp, "meta.json")
        proc = subprocess.run(
            [_find_quirec(), path, f"--sm={sm}", f"--num-warps={num_warps}",
             "--emit=ptx", f"--meta-out={meta_path}"],
            capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompilationError(proc.stderr.replace(path, name).strip())
        with open(meta_path) as f:
            kernels = json.load(f)["kernels"]
    if kernel is None:
        if len(kernels) != 1:
            raise ValueError(f"the module has {len(kernels)} kernels; pass kernel=NAME")
        meta = kernels[0]
    else:
        matches = [k for k in kernels if k["name"] == kernel]
        if not matches:
            raise ValueError(f"no kernel named {kernel!r}; have "
                             f"{[k['name'] for k in kernels]}")
        meta = matches[0]
    return Kernel(proc.stdout, meta, sm)
