"""`@quire.jit`: specialize, compile, cache and launch frontend kernels.

    @quire.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        ...
    add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

A launch binds its arguments, computes the specialization key (Triton's:
constexpr values, pointer dtypes, integers equal to 1 folded to constexprs,
integers and addresses divisible by 16 marked `tile.divisibility`), and
looks the compiled kernel up in memory; a miss generates the MLIR
(compiler/code_generator.py), compiles it through libquire (whose PTX is
cached on disk, quire/_cache.py) and caches the generated source on disk
too. QUIRE_INTERPRET=1 (or @quire.jit(interpret=True)) runs launches in the
reference interpreter on host arrays instead (docs/language.md).
"""

import ast
import ctypes
import hashlib
import inspect
import json
import os
import struct
import sys
import textwrap
import threading

from .. import _args, _cache, _cuda, _kernel, _lib
from ..language import core
from ..compiler import code_generator


def _env_flag(name):
    return os.environ.get(name, "") not in ("", "0")


class _Parsed:
    """A function's AST with the offsets that map it to file positions."""

    def __init__(self, fn):
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise _kernel.CompilationError(
                f"@quire.jit needs the source of '{fn.__name__}': {e}")
        source = "".join(lines)
        dedented = textwrap.dedent(source)
        self.col_offset = len(lines[0]) - len(lines[0].lstrip()) if lines \
            else 0
        self.filename = fn.__code__.co_filename
        self.line_offset = first - 1
        self.source = dedented
        module = ast.parse(dedented)
        defs = [n for n in module.body if isinstance(n, ast.FunctionDef)]
        if not defs:
            raise _kernel.CompilationError(
                f"{self.filename}:{first}:1: error: @quire.jit needs a plain "
                "def function")
        self.tree = defs[0]


class Param:
    __slots__ = ("name", "index", "is_constexpr", "annotation", "default",
                 "do_not_specialize")

    def __init__(self, p, index, dns):
        self.name = p.name
        self.index = index
        ann = p.annotation
        self.is_constexpr = False
        self.annotation = None
        if ann is not inspect.Parameter.empty:
            if ann is core.constexpr or (isinstance(ann, str) and
                                         ann.split(".")[-1] == "constexpr"):
                self.is_constexpr = True
            elif isinstance(ann, core.dtype):
                self.annotation = ann
            elif isinstance(ann, str):
                name = ann.split(".")[-1]
                dt = {d: v for d, v in vars(core).items()
                      if isinstance(v, core.dtype)}.get(name)
                if dt is not None:
                    self.annotation = dt
        self.default = p.default
        self.do_not_specialize = p.name in dns or index in dns


_frontend_hash = None


def frontend_version():
    """A hash of the frontend's own sources: generated MLIR cached on disk
    is keyed on it."""
    global _frontend_hash
    if _frontend_hash is None:
        h = hashlib.sha256()
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for sub in ("language", "compiler", "runtime"):
            d = os.path.join(root, sub)
            for f in sorted(os.listdir(d)):
                if f.endswith(".py"):
                    with open(os.path.join(d, f), "rb") as fh:
                        h.update(f.encode() + b"\0" + fh.read())
        _frontend_hash = h.hexdigest()
    return _frontend_hash


# Torch dtypes by their str(), numpy typestrs: the pointee dtype.
_TORCH_DTYPES = {
    "torch.float16": core.float16, "torch.bfloat16": core.bfloat16,
    "torch.float32": core.float32, "torch.float64": core.float64,
    "torch.int8": core.int8, "torch.int16": core.int16,
    "torch.int32": core.int32, "torch.int64": core.int64,
    "torch.uint8": core.uint8, "torch.uint16": core.uint16,
    "torch.uint32": core.uint32, "torch.uint64": core.uint64,
    "torch.bool": core.int1, "torch.float8_e4m3fn": core.float8e4nv,
    "torch.float8_e5m2": core.float8e5,
}
_VIEW_DTYPES = {"f16": core.float16, "bf16": core.bfloat16,
                "f32": core.float32, "f64": core.float64, "i1": core.int1,
                "i8": core.int8, "u8": core.uint8, "i16": core.int16,
                "u16": core.uint16, "i32": core.int32, "u32": core.uint32,
                "i64": core.int64, "u64": core.uint64}

_torch_dtype_cache = {}


def _pointee(value, where):
    """(dtype, address) of a tensor argument, or None if not a tensor."""
    dt = getattr(value, "dtype", None)
    if dt is not None and hasattr(value, "data_ptr"):
        t = _torch_dtype_cache.get(dt)
        if t is None:
            t = _TORCH_DTYPES.get(str(dt))
            if t is None:
                raise TypeError(f"{where}: unsupported tensor dtype {dt}")
            _torch_dtype_cache[dt] = t
        return t, value.data_ptr()
    v = _args.view(value, where)
    if v is None:
        return None
    return _VIEW_DTYPES[v.dtype], v.ptr


def _int_type(v):
    if -2**31 <= v < 2**31:
        return core.int32
    if -2**63 <= v < 2**63:
        return core.int64
    if 0 <= v < 2**64:
        return core.uint64
    raise ValueError(f"integer {v} does not fit in 64 bits")


class CompiledKernel:
    """A specialization of a @quire.jit function, compiled.

    `asm` is a dict computed on first access: "source" (the frontend's
    MLIR), "tile" (after the tile pipeline), "llvm-mlir", "llvm" (LLVM IR),
    "ptx", "cubin" (needs ptxas). `metadata` holds the name, warps,
    threads, shared memory and signature; `n_regs`/`n_spills` are read from
    the driver (None without a GPU)."""

    def __init__(self, name, source, kernel, signature, constants, options):
        self.name = name
        self.source = source
        self.kernel = kernel
        self.signature = signature
        self.constants = constants
        self.num_warps = kernel.num_warps
        self.num_stages = kernel.num_stages
        self.metadata = {"name": name, "num_warps": kernel.num_warps,
                         "num_stages": kernel.num_stages,
                         "threads": kernel.threads,
                         "shared": kernel.shared_bytes, "sm": kernel.sm,
                         "signature": signature, "constants": constants,
                         "debug": options.get("debug", False)}
        self.asm = _Asm(self)
        self._attrs = None
        self._packing, self._convert = kernel._packing()
        self._local = threading.local()

    def __repr__(self):
        return f"<quire.CompiledKernel {self.name} {self.metadata['signature']}>"

    def _func_attrs(self):
        if self._attrs is None:
            try:
                device = _cuda.current_device()
                module = self.kernel._module(device)
                regs, local = ctypes.c_int(), ctypes.c_int()
                _cuda.check(_cuda._driver().cuFuncGetAttribute(
                    ctypes.byref(regs), 4, module.function),
                    "cuFuncGetAttribute")
                _cuda.check(_cuda._driver().cuFuncGetAttribute(
                    ctypes.byref(local), 3, module.function),
                    "cuFuncGetAttribute")
                self._attrs = (regs.value, local.value // 4)
            except _cuda.CudaError:
                self._attrs = (None, None)
        return self._attrs

    @property
    def n_regs(self):
        return self._func_attrs()[0]

    @property
    def n_spills(self):
        return self._func_attrs()[1]

    @property
    def shared(self):
        return self.kernel.shared_bytes

    def __getitem__(self, grid):
        """compiled[grid](*runtime_args): launch with the run-time
        arguments only (the signature's)."""
        def launch(*args, stream=None):
            self.kernel.launch(_args.check_grid(grid), *args, stream=stream)
        return launch

    def launch(self, grid, values, device, stream):
        """Packs `values` (pointer ints, ints, floats) and launches."""
        conv = self._convert
        vals = [v if c is None else c(v) for v, c in zip(values, conv)]
        packing = self._packing
        loc = self._local
        buf = getattr(loc, "buf", None)
        if buf is None:
            buf = ctypes.create_string_buffer(packing.size or 1)
            base = ctypes.addressof(buf)
            loc.buf = buf
            loc.ptrs = (ctypes.c_void_p * max(1, len(packing.offsets)))(
                *[base + off for off in packing.offsets])
        packing.struct.pack_into(buf, 0, *vals)
        _cuda.make_current(device)
        module = self.kernel._modules.get(device)
        if module is None:
            module = self.kernel._module(device)
        _launch(module.function, grid[0], grid[1], grid[2],
                self.kernel.threads, module.shared_bytes, stream, loc.ptrs)


_launch_fn = None


def _launch(function, gx, gy, gz, threads, shared, stream, ptrs):
    global _launch_fn
    fn = _launch_fn
    if fn is None:
        fn = _cuda._driver().cuLaunchKernel
        fn.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint,
                       ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                       ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        _launch_fn = fn
    status = fn(function, gx, gy, gz, threads, 1, 1, shared, stream, ptrs,
                None)
    if status:
        _cuda.check(status, "cuLaunchKernel")


class _Asm(dict):
    KINDS = ("source", "tile", "llvm-mlir", "llvm", "ptx", "cubin")

    def __init__(self, ck):
        super().__init__()
        self._ck = ck

    def __missing__(self, kind):
        ck = self._ck
        if kind == "source":
            value = ck.source
        elif kind == "ptx":
            value = ck.kernel.ptx
        elif kind in self.KINDS:
            value = ck.kernel.asm(kind)
        else:
            raise KeyError(f"{kind!r}: asm has {', '.join(self.KINDS)}")
        self[kind] = value
        return value

    def __contains__(self, kind):
        return kind in self.KINDS

    def keys(self):
        return list(self.KINDS)

    def __iter__(self):
        return iter(self.KINDS)

    def __len__(self):
        return len(self.KINDS)

    def items(self):
        return [(k, self[k]) for k in self.KINDS]

    def values(self):
        return [self[k] for k in self.KINDS]

    def get(self, kind, default=None):
        try:
            return self[kind]
        except KeyError:
            return default


_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg",
                   "max_registers", "stream", "enable_fp_fusion", "debug",
                   "sm", "wgmma", "warmup", "grid", "checked",
                   "launch_cooperative_grid", "enable_warp_specialization")


class JITFunction:
    """A @quire.jit function. `fn[grid](*args, **constexprs_and_options)`
    launches it; `fn.warmup(*args, grid=..., ...)` compiles without
    launching and returns the CompiledKernel."""

    def __init__(self, fn, version=None, do_not_specialize=None, debug=None,
                 noinline=None, interpret=None, repr=None,
                 launch_metadata=None):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError("@quire.jit decorates a Python function")
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.debug = debug
        self.interpret = interpret
        self.version = version
        self.signature = inspect.signature(fn)
        dns = set(do_not_specialize or ())
        self.params = [Param(p, i, dns) for i, p in
                       enumerate(self.signature.parameters.values())]
        for p in self.signature.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"@quire.jit function '{fn.__name__}' "
                                "cannot take *args or **kwargs")
        self.arg_names = [p.name for p in self.params]
        self._option_params = [n for n in ("num_warps", "num_stages")
                               if n in self.arg_names]
        self._parsed_src = None
        self._cache = {}       # device -> {key: CompiledKernel}
        self._hash = None
        self._lock = threading.Lock()
        self._binder = self._make_binder()

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"

    def _parsed(self):
        if self._parsed_src is None:
            self._parsed_src = _Parsed(self.fn)
        return self._parsed_src

    @property
    def src(self):
        return self._parsed().source

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"@quire.jit function '{self.__name__}' cannot be called "
            "directly; launch it with "
            f"{self.__name__}[grid](...) or call it from another kernel")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    # Binding -----------------------------------------------------------

    def _make_binder(self):
        """A function (generated once) binding a launch's arguments to the
        parameters in order, faster than inspect.Signature.bind."""
        names, defaults = [], {}
        for p in self.params:
            if p.default is inspect.Parameter.empty:
                names.append(p.name)
            else:
                defaults[f"_d{p.index}"] = p.default
                names.append(f"{p.name}=_d{p.index}")
        src = (f"def binder({', '.join(names + ['**_extra'])}):\n"
               f"    return ({''.join(p.name + ', ' for p in self.params)}),"
               " _extra\n")
        ns = dict(defaults)
        exec(src, ns)
        return ns["binder"]

    def _bind(self, args, kwargs):
        try:
            return self._binder(*args, **kwargs)
        except TypeError as e:
            msg = str(e).replace("binder()", f"{self.__name__}()")
            raise TypeError(msg) from None

    # Specialization ----------------------------------------------------

    def _spec(self, values, interpret):
        """The specialization key: one entry per parameter."""
        key = []
        for p, v in zip(self.params, values):
            if p.is_constexpr:
                if isinstance(v, core.constexpr):
                    v = v.value
                try:
                    hash(v)
                except TypeError:
                    raise TypeError(f"constexpr '{p.name}' must be hashable, "
                                    f"got {type(v).__name__}") from None
                key.append(("c", v))
                continue
            if v is None:
                key.append(("c", None))
            elif isinstance(v, bool):
                key.append(("b",) if p.annotation is None else
                           ("s", p.annotation))
            elif isinstance(v, int):
                if p.annotation is not None:
                    key.append(("s", p.annotation,
                                not p.do_not_specialize and v % 16 == 0))
                elif v == 1 and not p.do_not_specialize:
                    key.append(("c", 1))
                else:
                    key.append(("i", _int_type(v),
                                not p.do_not_specialize and v % 16 == 0))
            elif isinstance(v, float):
                key.append(("f",) if p.annotation is None else
                           ("s", p.annotation))
            elif isinstance(v, core.dtype):
                key.append(("c", v))
            else:
                pt = _pointee(v, f"argument '{p.name}' of "
                                 f"'{self.__name__}'")
                if pt is None:
                    if hasattr(type(v), "__index__"):
                        iv = v.__index__()
                        key.append(("i", _int_type(iv), iv % 16 == 0))
                        continue
                    if hasattr(type(v), "__float__"):
                        key.append(("f",))
                        continue
                    raise TypeError(
                        f"argument '{p.name}' of '{self.__name__}': cannot "
                        f"pass {type(v).__name__} to a kernel (tensors, "
                        "ints, floats, bools, None, dtypes)")
                dt, ptr = pt
                key.append(("p", dt, not p.do_not_specialize and
                            ptr % 16 == 0))
        return tuple(key)

    def _signature(self, key):
        """(constexpr scope values, run-time arg specs) of a key."""
        consts, specs = {}, []
        for p, k in zip(self.params, key):
            tag = k[0]
            if tag == "c":
                consts[p.name] = k[1]
            elif tag == "b":
                specs.append((p.name, core.int1, {}))
            elif tag == "i":
                attrs = {"tile.divisibility": "16 : i32"} if k[2] else {}
                specs.append((p.name, k[1], attrs))
            elif tag == "s":
                attrs = {"tile.divisibility": "16 : i32"} \
                    if len(k) > 2 and k[2] and k[1].is_int() else {}
                specs.append((p.name, k[1], attrs))
            elif tag == "f":
                specs.append((p.name, core.float32, {}))
            elif tag == "p":
                attrs = {"tile.divisibility": "16 : i32"} if k[2] else {}
                specs.append((p.name, core.pointer_type(k[1]), attrs))
        return consts, specs

    def cache_key(self):
        """A hash of this function's source and of what it depends on
        (called @quire.jit functions, global constexprs)."""
        if self._hash is None:
            self._hash = self._compute_hash(set())
        return self._hash

    def _compute_hash(self, seen):
        seen.add(id(self))
        h = hashlib.sha256(self.src.encode())
        h.update(repr(self.version).encode())
        names = sorted({n.id for n in ast.walk(self._parsed().tree)
                        if isinstance(n, ast.Name)})
        g = self.fn.__globals__
        for n in names:
            if n not in g:
                continue
            v = g[n]
            if isinstance(v, JITFunction):
                if id(v) not in seen:
                    h.update(f"{n}=jit:{v._compute_hash(seen)}".encode())
            elif isinstance(v, core.constexpr):
                h.update(f"{n}=c:{v.value!r}".encode())
            elif isinstance(v, (int, float, bool, str, core.dtype, tuple)):
                h.update(f"{n}={v!r}".encode())
        return h.hexdigest()

    # Compilation -------------------------------------------------------

    def _options(self, kwargs, interpret):
        debug = kwargs.get("debug")
        if debug is None:
            debug = self.debug
        if debug is None:
            debug = _env_flag("QUIRE_DEBUG")
        return {"debug": bool(debug) or interpret}

    def _source(self, key, options):
        """The MLIR text of a specialization (generated, or from disk)."""
        disk_key = None
        if _cache.enabled():
            disk_key = hashlib.sha256(json.dumps(
                [self.cache_key(), repr(key), sorted(options.items()),
                 frontend_version()]).encode()).hexdigest()
            path = os.path.join(_cache.cache_dir(), "frontend", disk_key[:2],
                                disk_key + ".mlir")
            try:
                with open(path, "r", encoding="utf-8") as f:
                    text = f.read()
                if text.endswith("\n// end\n"):
                    _cache.count("disk_hits")
                    return text
            except OSError:
                pass
        consts, specs = self._signature(key)
        text = code_generator.generate(self, consts, specs, options)
        text += "// end\n"
        if disk_key is not None:
            _write_atomic(path, text)
        return text

    def _compile(self, key, device, options, launch):
        interpret = launch["interpret"]
        source = self._source(key, options)
        consts, specs = self._signature(key)
        signature = {n: str(dt) for n, dt, _ in specs}
        constants = {n: v for n, v in consts.items()}
        if interpret:
            return _InterpretedKernel(self.__name__, source, signature,
                                      constants)
        sm = launch["sm"]
        if sm is None:
            sm = _cuda.compute_capability(device) if device is not None \
                else _kernel.resolve_sm(None)
        kernel = _kernel.compile(source.encode(), sm=sm,
                                 num_warps=launch["num_warps"],
                                 num_stages=launch["num_stages"],
                                 wgmma=launch["wgmma"],
                                 max_registers=launch["max_registers"],
                                 checked=launch["checked"],
                                 source_name=self._parsed().filename)
        return CompiledKernel(self.__name__, source, kernel, signature,
                              constants, options)

    # Launch ------------------------------------------------------------

    def _launch_options(self, extra):
        num_warps = extra.pop("num_warps", None)
        num_stages = extra.pop("num_stages", None)
        num_ctas = extra.pop("num_ctas", 1)
        if num_ctas not in (None, 1):
            raise ValueError("num_ctas > 1 (thread block clusters) is not "
                             "supported")
        maxnreg = extra.pop("maxnreg", None)
        max_registers = extra.pop("max_registers", None)
        if maxnreg is not None and max_registers is None:
            max_registers = maxnreg
        for k in ("enable_fp_fusion", "launch_cooperative_grid",
                  "enable_warp_specialization"):
            extra.pop(k, None)
        opts = {
            "num_warps": 4 if num_warps is None else num_warps,
            "num_stages": 2 if num_stages is None else num_stages,
            "max_registers": max_registers or 0,
            "wgmma": extra.pop("wgmma", True),
            "sm": extra.pop("sm", None),
            "checked": extra.pop("checked", False),
            "stream": extra.pop("stream", None),
            "interpret": bool(self.interpret) if self.interpret is not None
            else _env_flag("QUIRE_INTERPRET"),
        }
        return opts

    def run(self, *args, grid, warmup=False, **kwargs):
        values, extra = self._bind(args, kwargs)
        for name in self._option_params:
            # A constexpr named like a launch option (Triton's tutorials
            # declare `num_stages: tl.constexpr`) sets both.
            extra.setdefault(name, values[self.arg_names.index(name)])
        launch = self._launch_options(extra)
        debug_kw = {"debug": extra.pop("debug", None)}
        if extra:
            name = next(iter(extra))
            raise TypeError(f"{self.__name__}() got an unexpected keyword "
                            f"argument '{name}'")
        interpret = launch["interpret"]
        key = self._spec(values, interpret)
        options = self._options(debug_kw, interpret)
        device = None if interpret else _cuda.current_device()
        ckey = (key, launch["num_warps"], launch["num_stages"],
                launch["max_registers"], launch["wgmma"], launch["sm"],
                launch["checked"], options["debug"], interpret)
        per_device = self._cache.get(device)
        if per_device is None:
            per_device = self._cache.setdefault(device, {})
        kernel = per_device.get(ckey)
        if kernel is None:
            with self._lock:
                kernel = per_device.get(ckey)
                if kernel is None:
                    kernel = self._compile(key, device, options, launch)
                    per_device[ckey] = kernel
        if warmup:
            return kernel
        if callable(grid):
            meta = dict(zip(self.arg_names, values))
            meta["num_warps"] = launch["num_warps"]
            meta["num_stages"] = launch["num_stages"]
            grid = grid(meta)
        g = _grid(grid)
        if interpret:
            kernel.run(g, self.params, key, values)
            return kernel
        if g[0] == 0 or g[1] == 0 or g[2] == 0:
            return kernel
        runtime = []
        for p, k, v in zip(self.params, key, values):
            tag = k[0]
            if tag == "c":
                continue
            if tag == "p":
                if hasattr(v, "data_ptr"):
                    if not v.is_cuda:
                        raise ValueError(
                            f"argument '{p.name}' of '{self.__name__}' is a "
                            "CPU tensor; launches need CUDA tensors (or "
                            "QUIRE_INTERPRET=1 to run on the CPU)")
                    runtime.append(v.data_ptr())
                else:
                    view = _args.view(v, p.name)
                    if not view.is_cuda:
                        raise ValueError(
                            f"argument '{p.name}' of '{self.__name__}' is in "
                            "host memory; launches need CUDA arrays")
                    runtime.append(view.ptr)
            elif _is_float_tag(k):
                runtime.append(float(v))
            else:
                runtime.append(int(v))
        stream = launch["stream"]
        if stream is None:
            stream = _current_stream(device)
        else:
            stream = _cuda.stream_handle(stream, device)
        kernel.launch(g, runtime, device, stream)
        return kernel

    def warmup(self, *args, grid=None, **kwargs):
        """Compiles the specialization these arguments select and returns
        the CompiledKernel, launching nothing."""
        return self.run(*args, grid=grid or (1,), warmup=True, **kwargs)


def _is_float_tag(k):
    return k[0] == "f" or (k[0] == "s" and k[1].is_floating())


def _grid(grid):
    if type(grid) is tuple and 1 <= len(grid) <= 3 and \
            all(type(g) is int and g >= 0 for g in grid):
        n = len(grid)
        if n == 3:
            g = grid
        elif n == 2:
            g = (grid[0], grid[1], 1)
        else:
            g = (grid[0], 1, 1)
        if g[0] < 2**31 and g[1] <= 65535 and g[2] <= 65535:
            return g
    return _args.check_grid(grid)


_raw_stream = None


def _current_stream(device):
    """torch's current stream on `device` (0 without torch), cheaply."""
    global _raw_stream
    fn = _raw_stream
    if fn is None:
        torch = sys.modules.get("torch")
        getter = getattr(getattr(torch, "_C", None),
                         "_cuda_getCurrentRawStream", None) if torch else None
        if getter is None:
            return _cuda.stream_handle(None, device)
        fn = _raw_stream = getter
    return fn(device)


def _write_atomic(path, text):
    import tempfile
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        _cache.count("disk_write_errors")


class _InterpretedKernel:
    """A specialization run by the reference interpreter (QUIRE_INTERPRET):
    numpy arrays and CPU torch tensors are used in place; CUDA torch
    tensors are copied to the host and back."""

    def __init__(self, name, source, signature, constants):
        self.name = name
        self.source = source
        self.signature = signature
        self.constants = constants
        self.asm = {"source": source}
        self.metadata = {"name": name, "signature": signature,
                         "constants": constants, "interpreted": True}
        self.n_regs = self.n_spills = None

    def run(self, grid, params, key, values):
        host, copies = [], []
        for p, k, v in zip(params, key, values):
            if k[0] == "c":
                continue
            if k[0] == "p":
                if hasattr(v, "data_ptr") and getattr(v, "is_cuda", False):
                    import torch
                    h = torch.empty_strided(v.size(), v.stride(),
                                            dtype=v.dtype, device="cpu")
                    h.copy_(v)
                    copies.append((v, h))
                    v = h
                host.append(v)
            elif _is_float_tag(k):
                host.append(float(v))
            else:
                host.append(int(v))
        if 0 in grid:
            return
        try:
            _kernel.interpret(self.source, grid, *host)
        finally:
            for dev, h in copies:
                dev.copy_(h)


def jit(fn=None, *, version=None, do_not_specialize=None, debug=None,
        noinline=None, interpret=None, repr=None, launch_metadata=None):
    """Decorates a kernel written in quire.language (Triton's @triton.jit).
    `@quire.jit(debug=True)` compiles `tl.device_assert`s in;
    `interpret=True` runs it in the reference interpreter (as
    QUIRE_INTERPRET=1); `do_not_specialize` names parameters whose values
    should not be specialized on (== 1, divisible by 16)."""

    def decorator(f):
        return JITFunction(f, version=version,
                           do_not_specialize=do_not_specialize, debug=debug,
                           noinline=noinline, interpret=interpret)

    if fn is not None:
        return decorator(fn)
    return decorator
