"""Quire: a tile-language compiler for NVIDIA GPUs with first-class paged loads.

    import quire
    import quire.language as tl

    @quire.jit                                           # Triton's @triton.jit
    def add(x, y, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out + offs, tl.load(x + offs, mask=offs < n) +
                 tl.load(y + offs, mask=offs < n), mask=offs < n)
    add[(quire.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

    kernel = quire.compile("examples/vector_add.mlir")   # PTX + metadata
    kernel[(blocks,)](x, y, out, n)                      # launch (torch/cupy)
    quire.interpret(kernel, (blocks,), xh, yh, oh, n)    # CPU reference run
    quire.ops.paged_decode_attention(q, k_cache, v_cache, block_table, lens)
    quire.testing.do_bench(lambda: kernel[(blocks,)](x, y, out, n))

`import quire` needs neither torch nor numpy nor a GPU, and loads the
compiler (libquire.so, see quire/_lib.py for where it is looked for) only on
first use; launching a kernel needs the CUDA driver.
"""

from . import language, ops, runtime, testing, tools
from ._args import TensorWrapper, reinterpret
from ._cuda import CudaError
from ._lib import LibraryError
from ._kernel import (CompilationError, InterpreterError, Kernel, compile,
                      interpret, signature)
from .runtime import (CompiledKernel, Config, JITFunction, autotune,
                      heuristics, jit)

__all__ = ["CompilationError", "CompiledKernel", "Config", "CudaError",
           "InterpreterError", "JITFunction", "Kernel", "LibraryError",
           "autotune", "cache_info", "cdiv", "compile", "compiler_version",
           "heuristics", "interpret", "jit", "language", "next_power_of_2",
           "ops", "reinterpret", "runtime", "set_allocator", "signature",
           "testing", "tools", "TensorWrapper"]


def _version():
    """QUIRE_VERSION: from quire/VERSION (written by the build, shipped in
    the wheel), or in the source tree from CMakeLists.txt itself."""
    import os
    import re
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        with open(os.path.join(here, "VERSION")) as f:
            return f.read().strip()
    except OSError:
        pass
    try:
        with open(os.path.join(here, "..", "..", "CMakeLists.txt")) as f:
            m = re.search(r'set\(QUIRE_VERSION "([^"]+)"\)', f.read())
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


__version__ = _version()


def compiler_version():
    """The version of the loaded libquire.so and its build ID."""
    from . import _lib
    return {"version": _lib.version(), "build_id": _lib.build_id(),
            "library": _lib.library_path()}


def cache_info():
    """This process's compile cache counters (compiles, disk_hits,
    disk_misses, memory_hits, disk_write_errors; assembles and
    cubin_disk_hits: ptxas runs and cubins found on disk) and the cache
    directory."""
    from . import _cache
    with _cache._lock:
        info = dict(_cache.stats)
    info["dir"] = _cache.cache_dir()
    info["enabled"] = _cache.enabled()
    return info


def cdiv(x, y):
    """ceil(x / y) for ints (triton.cdiv)."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n (triton.next_power_of_2)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


_allocator = None


def set_allocator(allocator):
    """Accepts Triton's allocator of global scratch memory (a callable of
    (size, alignment, stream)), which Triton's kernels set before they make
    tensor descriptors: Quire's tl.make_tensor_descriptor needs no scratch
    memory, so the allocator is kept and never called. None clears it."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"quire.set_allocator: expected a callable of "
                        f"(size, alignment, stream) or None, got "
                        f"{type(allocator).__name__}")
    _allocator = allocator
