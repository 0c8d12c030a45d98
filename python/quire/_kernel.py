"""Compile tile kernels through libquire, launch them on device tensors, or
run them on host arrays in the reference interpreter.

    kernel = quire.compile("examples/vector_add.mlir")
    kernel[(blocks,)](x, y, out, n)                 # torch / cupy tensors
    quire.interpret(kernel, (blocks,), xh, yh, oh, n)  # numpy arrays

Arguments are checked against the kernel's signature before anything runs: a
pointer takes a tensor of the pointee's dtype (on the GPU whose address
honours the argument's `tile.divisibility`, in bytes; on the host any numpy
array, in place); an integer takes an int in range for its width, signed or
unsigned, and divisible as declared; a float takes a real number its type can
hold. Compiled kernels are cached in memory and on disk (quire/_cache.py).
"""

import ctypes
import hashlib
import logging
import os
import re
import subprocess
import sys
import threading
import time

from . import _args, _cache, _cuda, _lib, _ptxas

log = logging.getLogger("quire")

SUPPORTED_SMS = (80, 86, 89, 90)

_DIAG_RE = re.compile(
    r"^(?P<file>.*?):(?P<line>\d+):(?P<column>\d+): "
    r"(?P<severity>error|warning|note|remark): (?P<message>.*)$")


class CompilationError(Exception):
    """The kernel did not compile (or parse). `str(e)` and `e.diagnostics`
    hold every MLIR diagnostic with its location and source line; `e.errors`
    lists them parsed as dicts with file, line, column, severity and message.
    """

    def __init__(self, diagnostics, source_name=None):
        self.diagnostics = diagnostics.strip() or "compilation failed"
        self.source_name = source_name
        self.errors = []
        for line in self.diagnostics.splitlines():
            m = _DIAG_RE.match(line)
            if m:
                d = m.groupdict()
                d["line"], d["column"] = int(d["line"]), int(d["column"])
                self.errors.append(d)
        super().__init__(self.diagnostics)

    @property
    def location(self):
        """(file, line, column) of the first error, or None."""
        for d in self.errors:
            if d["severity"] == "error":
                return d["file"], d["line"], d["column"]
        return None


class InterpreterError(RuntimeError):
    """A kernel failed in the reference interpreter: an out-of-bounds,
    misaligned or read-only access, or an unsupported op. The message names
    the op's location and the program id."""


def _read_source(src):
    """(source bytes, name for diagnostics) of MLIR text or a file path."""
    if isinstance(src, (bytes, bytearray, memoryview)):
        return bytes(src), "<string>"
    if isinstance(src, os.PathLike):
        path = os.fspath(src)
    elif isinstance(src, str):
        if "\n" in src or not src.strip().endswith((".mlir", ".mlir.in")):
            return src.encode("utf-8", "surrogatepass"), "<string>"
        path = src.strip()
    else:
        raise TypeError("src must be MLIR text (str or bytes) or a path to a "
                        f".mlir file, got {_args.describe(src)}")
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    with open(path, "rb") as f:
        return f.read(), path


def _check_num_warps(num_warps):
    n = _args.to_int(num_warps, "num_warps")
    if n < 1 or n > 32 or n & (n - 1):
        raise ValueError(f"num_warps must be a power of two in [1, 32], got {n}")
    return n


def check_bool(option, value):
    """`value` of the compile option `option`, which must be a bool."""
    if not isinstance(value, bool):
        raise TypeError(f"{option} must be True or False, got "
                        f"{_args.describe(value)}")
    return value


def _check_max_registers(option, value):
    if (isinstance(value, bool) or not isinstance(value, int)
            or not (value == 0 or 24 <= value <= 255)):
        raise ValueError(f"{option} must be 0 or an int in [24, 255], "
                         f"got {value!r}")


def _check_num_stages(option, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{option} must be an int in [0, 8], got "
                         f"{_args.describe(value)}")
    if not 0 <= value <= 8:
        raise ValueError(f"{option} must be an int in [0, 8], got {value}")


def _check_producer_registers(option, value):
    if (isinstance(value, bool) or not isinstance(value, int)
            or not (value == 0 or (24 <= value <= 256 and value % 8 == 0))):
        raise ValueError(f"{option} must be 0 or a multiple of 8 in "
                         f"[24, 256], got {value!r}")


# Options that are not flags (check_bool checks those).
_OPTION_CHECKS = {"max_registers": _check_max_registers,
                  "num_stages": _check_num_stages,
                  "producer_registers": _check_producer_registers}


def _check_kernel_name(kernel):
    if kernel is None:
        return None
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be a kernel name (str) or None, got "
                        f"{_args.describe(kernel)}")
    if "\0" in kernel:
        raise ValueError("kernel name contains a NUL character")
    return kernel.lstrip("@")


def resolve_sm(sm):
    """`sm` checked, or the current GPU's compute capability for None."""
    if sm is None:
        try:
            sm = _cuda.compute_capability(_cuda.current_device())
        except _cuda.CudaError as e:
            raise _cuda.CudaError(
                f"sm=None means the GPU's compute capability, but {e}. Pass "
                f"sm= (one of {', '.join(map(str, SUPPORTED_SMS))}) to compile "
                "without a GPU") from None
        if sm not in SUPPORTED_SMS:
            raise ValueError(f"the GPU is sm_{sm}; Quire generates code for "
                             f"sm {', '.join(map(str, SUPPORTED_SMS))}")
        return sm
    sm = _args.to_int(sm, "sm")
    if sm not in SUPPORTED_SMS:
        raise ValueError(f"sm must be one of "
                         f"{', '.join(map(str, SUPPORTED_SMS))}, got {sm}")
    return sm


def _pick(kernels, name):
    if name is None:
        if len(kernels) != 1:
            raise ValueError(f"the module has {len(kernels)} kernels "
                             f"({', '.join(k['name'] for k in kernels)}); "
                             "pass kernel=NAME")
        return kernels[0]
    for k in kernels:
        if k["name"] == name:
            return k
    raise ValueError(f"no kernel named {name!r}; the module has "
                     f"{', '.join(k['name'] for k in kernels) or 'none'}")


class Kernel:
    """A compiled kernel: `kernel[grid](*args, stream=None)` launches it.

    Attributes: `name`, `args` (the signature: kind, type, bits,
    divisibility per argument), `threads`, `shared_bytes`, `sm`, `num_warps`,
    `options` (the compile options, quire._lib.OPTIONS, each also an
    attribute: `checked`, `num_stages`, ...), `ptx`, `cubin` (the PTX assembled by ptxas at compile time,
    what launches load; None without a ptxas: the driver JITs the PTX),
    `metadata` (this kernel's entry of the metadata JSON, with `registers`,
    `spill_stores` and `spill_loads` when ptxas ran), `source`.
    """

    def __init__(self, source, source_name, sm, num_warps, ptx, meta,
                 cubin=None, options=None):
        self.source = source
        self.source_name = source_name
        self.sm = sm
        self.num_warps = num_warps
        # The compile options (_lib.OPTIONS), also as attributes.
        self.options = {**_lib.OPTION_DEFAULTS, **(options or {})}
        for option, value in self.options.items():
            setattr(self, option, value)
        self.ptx = ptx
        self.cubin = cubin
        self.metadata = meta
        self.name = meta["name"]
        self.args = meta["args"]
        self.threads = meta["threads"]
        self.shared_bytes = meta["shared_bytes"]
        self._modules = {}
        self._lock = threading.Lock()
        self._packing_cache = None
        self._asm = {}

    def __repr__(self):
        sig = ", ".join(a["type"] for a in self.args)
        return (f"<quire.Kernel {self.name}({sig}) sm_{self.sm} "
                f"{self.num_warps} warps{', checked' if self.checked else ''}>")

    def __getitem__(self, grid):
        grid = _args.check_grid(grid)
        return lambda *args, stream=None: self.launch(grid, *args,
                                                      stream=stream)

    def asm(self, kind="ptx"):
        """This module compiled to `kind` with the kernel's options: "tile",
        "llvm-mlir", "llvm", "ptx", "cubin" (bytes; needs ptxas) or "meta"."""
        if kind not in _lib.EMIT_KINDS:
            raise ValueError(f"kind must be one of {', '.join(_lib.EMIT_KINDS)}")
        if kind == "ptx":
            return self.ptx
        if kind == "cubin" and self.cubin is not None:
            return self.cubin
        cached = self._asm.get(kind)
        if cached is not None:
            return cached
        res = _lib.compile(self.source, self.source_name, self.sm,
                           self.num_warps, kind, **self.options)
        if not res.ok:
            raise CompilationError(res.diagnostics, self.source_name)
        out = res.output if kind == "cubin" else res.output.decode(
            "utf-8", "replace")
        self._asm[kind] = out
        return out

    def _where(self, i):
        return f"argument #{i} ({self.args[i]['type']}) of '{self.name}'"

    def params(self, args):
        """ctypes values for `args` and the CUDA device of its tensors
        (None when no tensor names one). Raises TypeError/ValueError."""
        if len(args) != len(self.args):
            raise TypeError(f"kernel '{self.name}' takes {len(self.args)} "
                            f"arguments, got {len(args)}")
        params, devices = [], set()
        for i, (spec, value) in enumerate(zip(self.args, args)):
            where = self._where(i)
            if spec["kind"] == "ptr":
                v = _args.check_array(value, spec["type"], where, host=False)
                _args.check_alignment(v, spec.get("divisibility", 1), where)
                if v.device is not None:
                    devices.add(v.device)
                params.append(ctypes.c_uint64(v.ptr))
            elif spec["kind"] == "int":
                params.append(_args.int_param(
                    _args.check_int(value, spec, where), spec["bits"]))
            elif spec["kind"] == "float":
                f = _args.check_float(value, spec, where)
                if spec["type"] not in ("f16", "bf16", "f32", "f64"):
                    raise TypeError(f"{where}: scalar arguments of this type "
                                    "are not supported")
                params.append(_args.float_param(f, spec))
            elif spec["kind"] == "tensormap":
                # A CUtensorMap by value (quire._cuda.encode_tensormap).
                if not isinstance(value, (bytes, bytearray)) or \
                        len(value) != 128:
                    raise TypeError(f"{where}: a !tile.tensormap argument "
                                    f"takes the 128 bytes of a tensor map "
                                    f"(quire._cuda.encode_tensormap), got "
                                    f"{_args.describe(value)}")
                params.append((ctypes.c_uint8 * 128).from_buffer_copy(value))
            else:
                raise TypeError(f"{where}: arguments of this type cannot be "
                                "passed")
        if len(devices) > 1:
            raise ValueError(f"kernel '{self.name}': tensors are on several "
                             f"devices (cuda:{', cuda:'.join(map(str, sorted(devices)))})")
        return params, (devices.pop() if devices else None)

    def _packing(self):
        """The kernel's parameter packing and a converter per argument,
        built once (quire.ops launches through it)."""
        packing = self._packing_cache
        if packing is None:
            codes, convert = [], []
            for spec in self.args:
                if spec["kind"] == "ptr":
                    codes.append("Q")
                    convert.append(None)
                elif spec["kind"] == "tensormap":
                    # (The 128 bytes of a CUtensorMap.)
                    codes.append("128s")
                    convert.append(None)
                elif spec["kind"] == "int":
                    bits = max(8, spec["bits"])
                    codes.append({8: "B", 16: "H", 32: "I", 64: "Q"}[bits])
                    mask = (1 << bits) - 1
                    convert.append(lambda v, m=mask: v & m)
                else:
                    t = spec["type"]
                    codes.append({"f64": "d", "f32": "f"}.get(t, "H"))
                    convert.append(None if t in ("f32", "f64") else
                                   lambda v, s=spec: _args.float_param(v, s).value)
            packing = (_cuda.ArgPacking(codes), convert)
            self._packing_cache = packing
        return packing

    def _launch_trusted(self, grid, values, device):
        """Launch on `device`'s current torch stream with `values` already
        checked against the signature by the caller (quire.ops): pointers
        as ints, integers in range, floats representable. Packs them
        without a second round of checks."""
        packing, convert = self._packing()
        values = [v if c is None else c(v) for v, c in zip(values, convert)]
        handle = _cuda.stream_handle(None, device)
        _cuda.make_current(device)
        self._module(device).launch_packed(grid, self.threads, packing, values,
                                           handle)

    def _module(self, device):
        module = self._modules.get(device)
        if module is None:
            with self._lock:
                module = self._modules.get(device)
                if module is None:
                    image = self.cubin if self.cubin is not None else \
                        self.ptx.encode()
                    module = _cuda.Module(image, self.name,
                                          self.shared_bytes, device)
                    self._modules[device] = module
        return module

    def launch(self, grid, *args, stream=None):
        """Same as `kernel[grid](*args, stream=stream)`. A grid with a zero
        dimension checks the arguments and launches nothing."""
        grid = _args.check_grid(grid)
        params, device = self.params(args)
        if 0 in grid:
            return
        if device is None:
            device = _cuda.current_device()
        handle = _cuda.stream_handle(stream, device)
        _cuda.make_current(device)
        self._module(device).launch(grid, self.threads, params, handle)


_kernels = {}
_kernels_lock = threading.Lock()


def imply_tma_options(options):
    """producer_warpgroup is a kind of warp_specialize, which needs
    tma_release, which needs tma: asking for one turns on what it needs (in
    place)."""
    if options.get("producer_warpgroup"):
        options["warp_specialize"] = True
    if options.get("warp_specialize"):
        options["tma_release"] = True
    if options.get("tma_release"):
        options["tma"] = True


def compile(src, sm=None, num_warps=4, kernel=None, checked=False,
            num_stages=2, wgmma=True, max_registers=0, source_name=None,
            raise_paged_loads=True, forward_stores=True, dump_ir=None,
            async_wgmma=False, early_dots=False, enable_fp_fusion=True,
            wide_fp8_operands=True, tma=True, tma_release=False,
            warp_specialize=False, producer_warpgroup=False, pingpong=False,
            gathered_rows=False, producer_registers=0,
            overlap_softmax=False, early_release=True,
            ordered_release=False, convert_after_wait=False,
            skip_unit_rescale=False, split_iterations=False):
    """Compiles a tile kernel: `src` is MLIR text (str or bytes) or a path to
    a .mlir file. `sm` defaults to the current GPU's compute capability;
    `kernel` names the kernel when the module has several. `checked=True`
    compiles paged loads in checked mode (quirec --paged-checked): every
    tile.paged_load needs `num_blocks`, and a block-table entry outside
    [0, num_blocks) is never read through; the kernel prints it to stdout
    and traps, so the launch fails (and the CUDA context with it). Results
    are cached in memory and on disk ($QUIRE_CACHE_DIR, default
    ~/.cache/quire). `num_stages` (Triton's name) is how many iterations
    ahead a loop's dot operands are copied into shared memory with cp.async
    (quirec --async-stages); 0 or 1 turns the staging off. `wgmma` (sm_90,
    with the staging on) runs the dots whose B operand is staged on Hopper's
    warpgroup tensor cores (quirec --wgmma); False keeps mma.sync.
    `async_wgmma=True` (with wgmma) keeps the wgmma groups of a loop that
    only carries their accumulators (a matmul's K loop) running while the
    next iteration waits for its copies (quirec --async-wgmma; copies run
    num_stages - 2 iterations ahead, or with fewer than 4 stages num_stages
    - 1, each iteration refilling the stage the previous one read after its
    wait and a barrier). `early_dots=True` (with wgmma and num_stages >= 3) issues a
    staged loop's first dot, when it reads registers from before the loop
    and a loop-invariant accumulator (attention's scores Q K^T), one
    iteration early, so it runs during the softmax (quirec --early-dots).
    `overlap_softmax=True` (with warp_specialize) issues an attention
    loop's P V in the next iteration right after that iteration's scores,
    both async, so it runs during the softmax (quirec --overlap-softmax);
    there K's stage goes back to the producer once the scores retire
    (`early_release`, default True; quirec --early-release), False
    releases it with V's after P V; `ordered_release=True` waits for P V,
    and releases V's stage, after the softmax's row sums, so P V runs
    during the softmax (quirec --ordered-release).
    `convert_after_wait=True` converts the softmax's P to the dot's operand
    after the wait for P V, so the new P is not live beside the old one in
    flight (quirec --convert-after-wait).
    `skip_unit_rescale=True` skips an attention loop's rescale of its
    accumulator by exp(m - m_new) in a warp whose factors are all 1, with
    the same results (quirec --skip-unit-rescale).
    `split_iterations=True` splits a dot loop whose body branches on its
    induction variable (an attention loop's mask of its last tiles) where
    the branch turns: the iterations before it run without the branch, in
    the same software pipeline (quirec --split-iterations).
    `pingpong=True` (with wgmma, num_stages >= 3 and 8 warps) runs the two
    warpgroups of an attention loop (two dots, the second's A computed from
    the first's result) half an iteration apart, so one's softmax runs
    beside the other's dots (quirec --pingpong).
    `gathered_rows=True` (quirec --gathered-rows; off by default: timed,
    it moves no kernel, docs/performance.md) gives each thread of a load
    whose rows are gathered through a loaded index (a paged tile's
    block-table entries) consecutive rows of one page, so it loads one
    index for them; False keeps its rows the lanes and warps apart.
    `enable_fp_fusion` (Triton's name, default True; quirec --fp-fusion)
    lets multiplies and adds contract into fma; False rounds each.
    `wide_fp8_operands` (default True; quirec --wide-fp8-operands) lets the
    mma.sync dots over fp8 tiles staged as bytes renumber their fragments so
    each lane reads 16 consecutive bytes; False reads them one or two
    bytes at a time.
    `tma` (default True; sm_90, with wgmma) stages the wgmma operands a
    kernel reads through tensor maps (`!tile.tensormap` arguments; the jit
    passes a host TensorDescriptor's when it is on and the target is sm_90)
    with TMA and mbarriers (quirec --tma); False stages them with cp.async.
    `tma_release=True` (implies tma) lets each warp release the stage it read
    through an mbarrier that the refilling thread waits on, instead of a
    CTA barrier per iteration (quirec --tma-release). `warp_specialize=True`
    (implies tma_release) gives such a loop's copies to a producer warp, one
    warp more per CTA, and loops staged with cp.async to producer warps, as
    many as num_warps (quirec --warp-specialize); `producer_warpgroup=True`
    (implies warp_specialize) to a producer warpgroup, four warps more,
    that gives its registers to the consumer warpgroups with setmaxnreg
    and for cp.async loops issues every consumer warpgroup's copies (quirec
    --producer-warpgroup). `producer_registers` is the registers per thread
    that warpgroup keeps (quirec --producer-registers; 0, the default: 24
    for TMA copies, an estimate of the cp.async copies' addresses' needs;
    else a multiple of 8 in [24, 256]), the consumers sharing the rest.
    `max_registers` caps the registers per thread of each kernel (quirec
    --max-registers, PTX .maxnreg; 0: no cap, else 24..255), trading spills
    for resident warps. `raise_paged_loads` (quirec --raise-paged-loads)
    turns loads whose offsets the kernel builds from block-table entries
    into tile.paged_load; False leaves them as written. `forward_stores`
    (quirec --forward-stores) lets a load of what the program itself just
    stored (offsets built in a scratch buffer and read back) read the
    stored values, and drops barriers that then order nothing; False
    leaves them as written. `source_name` names MLIR text in diagnostics.
    `dump_ir=True` (default: $QUIRE_DUMP_IR=1, as MLIR_ENABLE_DUMP is for
    Triton) compiles even when the kernel is cached and prints the IR after
    every pass of the pipeline to stderr. Raises CompilationError with the
    located diagnostics."""
    source, name = _read_source(src)
    if source_name is not None:
        name = str(source_name)
    num_warps = _check_num_warps(num_warps)
    kernel = _check_kernel_name(kernel)
    options = {"checked": checked, "num_stages": num_stages, "wgmma": wgmma,
               "max_registers": max_registers,
               "raise_paged_loads": raise_paged_loads,
               "forward_stores": forward_stores, "async_wgmma": async_wgmma,
               "early_dots": early_dots, "enable_fp_fusion": enable_fp_fusion,
               "wide_fp8_operands": wide_fp8_operands, "tma": tma,
               "tma_release": tma_release,
               "warp_specialize": warp_specialize,
               "producer_warpgroup": producer_warpgroup,
               "producer_registers": producer_registers,
               "overlap_softmax": overlap_softmax,
               "early_release": early_release,
               "ordered_release": ordered_release,
               "convert_after_wait": convert_after_wait,
               "skip_unit_rescale": skip_unit_rescale,
               "split_iterations": split_iterations,
               "pingpong": pingpong, "gathered_rows": gathered_rows}
    for option, value in options.items():
        _OPTION_CHECKS.get(option, check_bool)(option, value)
    imply_tma_options(options)
    sm = resolve_sm(sm)
    if dump_ir is None:
        dump_ir = os.environ.get("QUIRE_DUMP_IR", "") not in ("", "0")
    elif not isinstance(dump_ir, bool):
        raise TypeError(f"dump_ir must be True, False or None, got "
                        f"{_args.describe(dump_ir)}")
    # A checked kernel's reports print the source name: it is part of the
    # output, so of the key. Options at their defaults are left out of it.
    key = _cache.key(source, sm=sm, num_warps=num_warps, emit="ptx",
                     **({"name": name} if checked else {}),
                     **{option: value for option, value in options.items()
                        if value != _lib.OPTION_DEFAULTS[option]})
    with _kernels_lock:
        cached = None if dump_ir else _kernels.get((key, kernel, name))
    if cached is not None:
        _cache.count("memory_hits")
        return cached
    entry = None if dump_ir else _cache.load(key)
    if entry is not None:
        _cache.count("disk_hits")
        ptx, metadata = entry["output"].decode(), entry["metadata"]
    else:
        _cache.count("disk_misses")
        _cache.count("compiles")
        start = time.perf_counter()
        res = _lib.compile(source, name, sm, num_warps, "ptx", dump_ir,
                           **options)
        if dump_ir:
            sys.stderr.write(res.ir_dump)
            sys.stderr.flush()
        if not res.ok:
            raise CompilationError(res.diagnostics, name)
        ptx, metadata = res.output.decode("utf-8", "replace"), res.metadata
        log.info("compiled %s for sm_%d in %.0f ms", name, sm,
                 (time.perf_counter() - start) * 1e3)
        _cache.store(key, res.output, "", metadata, res.diagnostics)
    meta = _pick(metadata["kernels"], kernel)
    cubin, meta = _assembled(ptx, meta, name)
    result = Kernel(source, name, sm, num_warps, ptx, meta, cubin, options)
    with _kernels_lock:
        result = _kernels.setdefault((key, kernel, name), result)
    return result


def _assembled(ptx, meta, source_name):
    """(cubin, metadata) of a compiled module: the PTX assembled by ptxas
    (cached on disk by the PTX text and the ptxas file), the kernel's
    registers and spills added to its metadata; (None, meta) without a
    ptxas, or when it fails (logged: the driver then JITs the PTX)."""
    found = _ptxas.find()
    if found is None:
        return None, meta
    path, identity = found
    # stats: what assemble() reports (2: with sass_instructions).
    ckey = _cache.key(ptx.encode(), emit="cubin", ptxas=identity, stats=2)
    entry = _cache.load(ckey)
    if entry is not None:
        _cache.count("cubin_disk_hits")
        cubin, stats = entry["output"], entry["metadata"]
    else:
        try:
            cubin, stats = _ptxas.assemble(ptx, path)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            log.warning("ptxas (%s) could not assemble %s; it loads as PTX: "
                        "%s", path, source_name, e)
            return None, meta
        _cache.count("assembles")
        _cache.store(ckey, cubin, "", stats, "")
    if meta["name"] in stats:
        meta = dict(meta, **stats[meta["name"]])
    return cubin, meta


_signatures = {}


def signature(src, kernel=None):
    """The metadata entry of a kernel in `src` from parsing alone (no
    pipeline runs, so it works for kernels the GPU backend rejects)."""
    source, name = _read_source(src)
    return _signature(source, name, _check_kernel_name(kernel))


def _signature(source, name, kernel):
    digest = hashlib.sha256(source).hexdigest()
    kernels = _signatures.get(digest)
    if kernels is None:
        res = _lib.kernel_info(source, name)
        if not res.ok:
            raise CompilationError(res.diagnostics, name)
        kernels = _signatures.setdefault(digest, res.metadata["kernels"])
    return _pick(kernels, kernel)


def interpret(src_or_kernel, grid, *args, kernel=None, source_name=None):
    """Runs a kernel on the CPU in Quire's reference interpreter, one program
    of `grid` after another, with the tile dialect's exact semantics.

    `src_or_kernel` is a Kernel from quire.compile, MLIR text or a .mlir
    path. Pointer arguments take numpy arrays (anything with
    `__array_interface__`, or CPU torch tensors) of the pointee's dtype;
    bf16 also takes uint16 arrays of bit patterns. Kernels write into the
    arrays in place; read-only arrays are inputs, and a store into one is an
    error. Every access is checked: an out-of-bounds one raises
    InterpreterError naming the op's location and the program id (programs
    that ran before keep their writes). `source_name` names MLIR text in
    diagnostics."""
    if isinstance(src_or_kernel, Kernel):
        if kernel is not None and kernel != src_or_kernel.name:
            raise ValueError(f"kernel={kernel!r} but the Kernel is "
                             f"{src_or_kernel.name!r}")
        source, name = src_or_kernel.source, src_or_kernel.source_name
        meta = src_or_kernel.metadata
    else:
        source, name = _read_source(src_or_kernel)
        if source_name is not None:
            name = str(source_name)
        meta = _signature(source, name, _check_kernel_name(kernel))
    grid = _args.check_grid(grid)
    specs = meta["args"]
    kname = meta["name"]
    if len(args) != len(specs):
        raise TypeError(f"kernel '{kname}' takes {len(specs)} arguments, got "
                        f"{len(args)}")
    c_args = []
    for i, (spec, value) in enumerate(zip(specs, args)):
        where = f"argument #{i} ({spec['type']}) of '{kname}'"
        a = _lib.InterpArg()
        if spec["kind"] == "ptr":
            v = _args.check_array(value, spec["type"], where, host=True)
            span = v.span_bytes()
            a.kind, a.read_only = _lib.INTERP_BUFFER, int(v.readonly)
            a.data, a.bytes = (v.ptr or None) if span else None, span
        elif spec["kind"] == "int":
            a.kind = _lib.INTERP_INT
            a.int_value = _args.signed64(_args.check_int(value, spec, where))
        elif spec["kind"] == "float":
            a.kind = _lib.INTERP_FLOAT
            a.float_value = _args.check_float(value, spec, where)
        else:
            raise TypeError(f"{where}: arguments of this type cannot be passed")
        c_args.append(a)
    if 0 in grid:
        return
    res = _lib.interpret(source, name, kname, grid, c_args)
    if not res.ok:
        raise InterpreterError(res.diagnostics.strip())
