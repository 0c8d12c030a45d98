"""ptxas at compile time: PTX assembled into a cubin once, cached on disk, so
a new process loads machine code and the driver does not JIT the PTX.

ptxas is found as Triton finds its own: $QUIRE_PTXAS (set and empty: none,
the kernels load as PTX), else the ptxas Triton
ships (triton/backends/nvidia/bin/ptxas, located without importing Triton),
else the CUDA toolkit's (/usr/local/cuda/bin/ptxas), else PATH. Without one
kernels load as PTX (the driver JITs them once per process). `ptxas -v`
gives the registers and spills each kernel uses, added to its metadata.
"""

import importlib.util
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

log = logging.getLogger("quire")

_found = {}
_lock = threading.Lock()


def _triton_ptxas():
    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = os.path.join(root, "backends", "nvidia", "bin", "ptxas")
        if os.access(path, os.X_OK):
            return path
    return None


def find():
    """(path, identity) of the ptxas to use, or None. The identity (path,
    size, modification time) keys the cached cubins without running ptxas
    in every process."""
    with _lock:
        if "ptxas" in _found:
            return _found["ptxas"]
    env = os.environ.get("QUIRE_PTXAS")
    if env == "":
        # Set and empty: no ptxas; kernels load as PTX.
        with _lock:
            _found["ptxas"] = None
        return None
    candidates = [env] if env else [
        _triton_ptxas(), "/usr/local/cuda/bin/ptxas", shutil.which("ptxas")]
    result = None
    for path in candidates:
        if path and os.access(path, os.X_OK) and os.path.isfile(path):
            st = os.stat(path)
            result = (path, f"{os.path.realpath(path)}:{st.st_size}:"
                            f"{st.st_mtime_ns}")
            break
    if env and result is None:
        log.warning("QUIRE_PTXAS=%s is not an executable ptxas; kernels "
                    "load as PTX", env)
    with _lock:
        _found["ptxas"] = result
    return result


_TARGET = re.compile(r"^\s*\.target\s+(sm_\w+)", re.M)
_FUNCTION = re.compile(r"Compiling entry function '(\w+)'")
_USED = re.compile(r"Used (\d+) registers")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def text_sizes(cubin):
    """{kernel: bytes of its machine code} of an ELF cubin: the sizes of
    its `.text.<kernel>` sections; {} for anything else."""
    return {k: len(v) for k, v in text_sections(cubin).items()}


def text_sections(cubin):
    """{kernel: its machine code} of an ELF cubin: the contents of its
    `.text.<kernel>` sections; {} for anything else."""
    import struct
    if len(cubin) < 64 or cubin[:5] != b"\x7fELF\x02" or cubin[5] != 1:
        return {}   # 64-bit little-endian ELF, as ptxas writes
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    if shentsize < 64 or shoff + shnum * shentsize > len(cubin) or \
            shstrndx >= shnum:
        return {}

    def section(i):
        name, _, _, _, off, size = struct.unpack_from(
            "<IIQQQQ", cubin, shoff + i * shentsize)
        return name, off, size
    _, str_off, str_size = section(shstrndx)
    names = cubin[str_off:str_off + str_size]
    code = {}
    for i in range(shnum):
        name, off, size = section(i)
        end = names.find(b"\0", name)
        label = names[name:end if end >= 0 else None].decode("ascii", "replace")
        if label.startswith(".text.") and off + size <= len(cubin):
            code[label[len(".text."):]] = cubin[off:off + size]
    return code


def assemble(ptx, ptxas):
    """(cubin bytes, {kernel: {"registers", "spill_stores", "spill_loads",
    "sass_instructions"}}) of `ptx` for the architecture its .target names
    (the machine instructions counted from the kernel's code section, 16
    bytes each since sm_70). Raises RuntimeError with ptxas's message when
    it fails."""
    m = _TARGET.search(ptx)
    if not m:
        raise RuntimeError("the PTX names no .target")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="quire-ptxas-") as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        res = subprocess.run([ptxas, f"-arch={m.group(1)}", "-O3", "-v", src,
                              "-o", out], capture_output=True, text=True,
                             timeout=600)
        if res.returncode != 0:
            raise RuntimeError(f"ptxas failed ({res.returncode}):\n"
                               f"{res.stderr.strip()}")
        with open(out, "rb") as f:
            cubin = f.read()
    stats, name = {}, None
    for line in res.stderr.splitlines():
        if (f := _FUNCTION.search(line)):
            name = f.group(1)
            stats[name] = {"registers": 0, "spill_stores": 0,
                           "spill_loads": 0}
        elif name and (u := _USED.search(line)):
            stats[name]["registers"] = int(u.group(1))
        elif name and (s := _SPILLS.search(line)):
            stats[name]["spill_stores"] = int(s.group(1))
            stats[name]["spill_loads"] = int(s.group(2))
    for kernel, size in text_sizes(cubin).items():
        if kernel in stats:
            stats[kernel]["sass_instructions"] = size // 16
    log.debug("ptxas %s: %d bytes of cubin in %.0f ms", m.group(1),
              len(cubin), (time.perf_counter() - start) * 1e3)
    return cubin, stats
