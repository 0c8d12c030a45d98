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
import functools
import hashlib
import inspect
import json
import os
import re
import struct
import textwrap
import threading
import types

from .. import _args, _cache, _cuda, _kernel, _lib
from ..language import core
from ..compiler import code_generator
from . import launcher


_MISSING = object()


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
    empty = inspect.Parameter.empty

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


class CompiledKernel:
    """A specialization of a @quire.jit function, compiled.

    `asm` is a dict computed on first access: "source" (the frontend's
    MLIR), "tile" (after the tile pipeline), "llvm-mlir", "llvm" (LLVM IR),
    "ptx", "cubin" (needs ptxas). `metadata` holds the name, warps,
    threads, shared memory and signature; `n_regs`/`n_spills` (spilled
    32-bit registers) come from ptxas when it ran at compile time, else
    from the driver (None without a GPU)."""

    def __init__(self, name, source, kernel, signature, constants, options,
                 params, key):
        self.name = name
        self.source = source
        self.kernel = kernel
        self.signature = signature
        self.constants = constants
        self.num_warps = kernel.num_warps
        self.num_stages = kernel.num_stages
        self.metadata = _Metadata({"name": name, "num_warps": kernel.num_warps,
                         "num_stages": kernel.num_stages,
                         "threads": kernel.threads,
                         "shared": kernel.shared_bytes, "sm": kernel.sm,
                         "signature": signature, "constants": constants,
                         "debug": options.get("debug", False)})
        self.asm = _Asm(self)
        self._attrs = None
        self._struct, self._offsets, self._extract = \
            launcher.make_extractor(params, key, options.get("tma", False))
        self._local = threading.local()

    def __repr__(self):
        return f"<quire.CompiledKernel {self.name} {self.metadata['signature']}>"

    def _func_attrs(self):
        meta = self.kernel.metadata
        if self._attrs is None and "registers" in meta:
            # ptxas ran at compile time (quire/_ptxas.py): no GPU needed.
            self._attrs = (meta["registers"], meta["spill_stores"] // 4)
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

    def _init_handles(self):
        """Loads the module on the current device (Triton's name), so
        n_regs and n_spills are known before the first launch."""
        self._func_attrs()

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

    def _launch(self, grid, values, device, stream):
        """Packs `values` (what `_extract` pulled from the arguments) into
        this thread's parameter buffer and launches on `stream`."""
        slots = self._local.__dict__.get("slots")
        if slots is None:
            slots = self._local.slots = launcher.Slots(self._struct,
                                                       self._offsets)
        try:
            self._struct.pack_into(slots.buf, 0, *values)
        except struct.error as e:
            raise ValueError(f"the arguments of '{self.name}' do not fit "
                             f"its signature {self.signature}: {e}") from None
        _cuda.make_current(device)
        module = self.kernel._modules.get(device)
        if module is None:
            module = self.kernel._module(device)
        launcher.launch(module.function, grid, self.kernel.threads,
                        module.shared_bytes, stream, slots.ptrs)

    @staticmethod
    def _stream_handle(stream, device):
        return _cuda.stream_handle(stream, device)


class _Metadata(dict):
    """A dict whose keys also read as attributes (Triton's
    `kernel.metadata.shared`)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


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


# The compile options that are flags (launch options), with their defaults.
_FLAG_OPTIONS = tuple((o.name, o.default) for o in _lib.OPTIONS
                      if isinstance(o.default, bool))


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
        self._cache = {}       # device -> {full key: CompiledKernel}
        self._fast_cache = {}  # device -> {launch key: CompiledKernel}
        self._hash = None
        self._lock = threading.Lock()
        self._used_globals = []  # (globals dict, name, value) compiled in
        self._key_fns = [launcher.constexpr_key(p, fn.__name__)
                         if p.is_constexpr else
                         launcher.key_function(p, fn.__name__)
                         for p in self.params]
        self._launcher = launcher.fast_launcher(self)

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
        return functools.partial(self._launcher, _quire_grid=grid)

    # Specialization ----------------------------------------------------

    def _key(self, values):
        """Per parameter: a constexpr's (value, type), or its key function's
        tuple (launcher.key_function) -- what the fast launcher computes."""
        return tuple((v, type(v)) if p.is_constexpr else f(v)
                     for p, f, v in zip(self.params, self._key_fns, values))

    def _check_globals(self):
        """Triton's rule: a kernel compiled with a global's value must not
        run after the global changed."""
        for g, name, value in self._used_globals:
            now = g.get(name, _MISSING)
            if isinstance(now, core.constexpr):
                now = now.value
            if now is not value and now != value:
                raise RuntimeError(
                    f"global '{name}' changed from {value!r} to {now!r} "
                    f"since '{self.__name__}' was compiled with it; globals "
                    "a kernel reads are constants (pass the value as a "
                    "tl.constexpr argument instead)")

    def _norm_key(self, values):
        """The key with constexprs as ("c", value) entries."""
        return [("c", f(v)[1]) if p.is_constexpr else f(v)
                for p, f, v in zip(self.params, self._key_fns, values)]

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
                specs.append((p.name, launcher.dtype(k[1]), attrs))
            elif tag == "s":
                dt = launcher.dtype(k[1])
                attrs = {"tile.divisibility": "16 : i32"} \
                    if len(k) > 2 and k[2] and dt.is_int() else {}
                specs.append((p.name, dt, attrs))
            elif tag == "f":
                specs.append((p.name, core.float32, {}))
            elif tag == "p":
                attrs = {"tile.divisibility": "16 : i32"} if k[2] else {}
                specs.append((p.name,
                              core.pointer_type(launcher.dtype(k[1])), attrs))
            elif tag == "d":
                specs.append((p.name, code_generator.DescriptorArg(
                    launcher.dtype(k[1]), k[3], k[4], k[5], k[6]), {}))
        return consts, specs

    def cache_key(self):
        """A hash of this function's source and of what it depends on
        (called @quire.jit functions, global constants, Python helpers,
        module attributes), as they are now: computed at every compile,
        so a specialization generated after a global changed is keyed by
        the new value."""
        return self._compute_hash(set())

    def _compute_hash(self, seen):
        """The source with its position (locations are in the MLIR), and
        what its names reach: called @quire.jit functions, global
        constants, plain Python helpers (their source), module attributes
        it reads."""
        seen.add(id(self))
        parsed = self._parsed()
        h = hashlib.sha256(self.src.encode())
        h.update(f"{parsed.filename}:{parsed.line_offset}:"
                 f"{parsed.col_offset}:{self.version!r}".encode())
        tree = parsed.tree
        names = sorted({n.id for n in ast.walk(tree)
                        if isinstance(n, ast.Name)})
        g = self.fn.__globals__
        for n in names:
            if n in g:
                h.update(f"{n}={_describe_global(g[n], seen)}".encode())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and \
                    isinstance(node.value, ast.Name) and \
                    isinstance(g.get(node.value.id), types.ModuleType):
                v = getattr(g[node.value.id], node.attr, None)
                h.update(f"{node.value.id}.{node.attr}="
                         f"{_describe_global(v, seen)}".encode())
        return h.hexdigest()

    # Compilation -------------------------------------------------------

    def _options(self, kwargs, interpret):
        debug = kwargs.get("debug")
        if debug is None:
            debug = self.debug
        if debug is None:
            debug = _env_flag("QUIRE_DEBUG")
        return {"debug": bool(debug) or interpret,
                "tma": bool(kwargs.get("tma")) and not interpret}

    def _source(self, key, options):
        """The MLIR text of a specialization (generated, or from disk)."""
        disk_key = None
        if _cache.enabled():
            what = [k[:3] if k[0] == "p" else k[:2] + k[3:] if k[0] == "d"
                    else k for k in key]
            disk_key = hashlib.sha256(json.dumps(
                [self.cache_key(), repr(what), sorted(options.items()),
                 frontend_version()]).encode()).hexdigest()
            path = os.path.join(_cache.cache_dir(), "frontend", disk_key[:2],
                                disk_key + ".mlir")
            try:
                with open(path, "r", encoding="utf-8") as f:
                    text = f.read()
                if text.endswith("\n// end\n"):
                    _cache.count("disk_hits")
                    self._record_globals_of(text)
                    return text
            except OSError:
                pass
        consts, specs = self._signature(key)
        text, used = code_generator.generate(self, consts, specs, options,
                                             with_globals=True)
        self._record_globals(used)
        text += "// end\n"
        if disk_key is not None:
            _write_atomic(path, text)
        dump = os.environ.get("QUIRE_DUMP_DIR")
        if dump:
            # Every generated source, for reading or as fuzzing seeds.
            digest = hashlib.sha256(text.encode()).hexdigest()[:16]
            _write_atomic(os.path.join(dump, f"{self.__name__}-{digest}.mlir"),
                          text)
        return text

    def _mlir_name(self):
        """The name of the generated MLIR in diagnostics: its ops carry
        Python locations, so this shows only where the text itself is at
        fault (a frontend bug)."""
        return f"<MLIR of {self.__name__} from {self._parsed().filename}>"

    def _record_globals_of(self, text):
        """The globals a cached source was generated with (its header's
        `// globals:` line), at their current values, which the disk key
        says are the ones it was generated with."""
        for line in text.splitlines()[:3]:
            if line.startswith("// globals: "):
                g = self.fn.__globals__
                self._record_globals(
                    [(g, n, core._unwrap(g[n])) for n in line.split()[2:]
                     if n in g])

    def _record_globals(self, used):
        for g, name, value in used:
            if not any(e[0] is g and e[1] == name for e in
                       self._used_globals):
                self._used_globals.append((g, name, value))

    def _compile(self, key, device, options, launch):
        interpret = launch["interpret"]
        source = self._source(key, options)
        consts, specs = self._signature(key)
        signature = {n: str(dt) for n, dt, _ in specs}
        constants = {n: v for n, v in consts.items()}
        if interpret:
            return _InterpretedKernel(self.__name__, source, signature,
                                      constants, self._mlir_name())
        sm = launch["sm"]
        if sm is None:
            sm = _cuda.compute_capability(device) if device is not None \
                else _kernel.resolve_sm(None)
        kernel = _kernel.compile(source.encode(), sm=sm,
                                 num_warps=launch["num_warps"],
                                 num_stages=launch["num_stages"],
                                 max_registers=launch["max_registers"],
                                 producer_registers=launch[
                                     "producer_registers"],
                                 source_name=self._mlir_name(),
                                 **{option: launch[option]
                                    for option, _ in _FLAG_OPTIONS})
        return CompiledKernel(self.__name__, source, kernel, signature,
                              constants, options, self.params, key)

    # Launch ------------------------------------------------------------

    def _launch_options(self, num_warps, num_stages, maxnreg, stream, extra):
        num_ctas = extra.pop("num_ctas", 1)
        if num_ctas not in (None, 1):
            raise ValueError("num_ctas > 1 (thread block clusters) is not "
                             "supported")
        max_registers = extra.pop("max_registers", None)
        register_option = "max_registers"
        if maxnreg is not None and max_registers is None:
            max_registers, register_option = maxnreg, "maxnreg"
        producer_registers = extra.pop("producer_registers", 0)
        _kernel._check_producer_registers("producer_registers",
                                          producer_registers)
        for k in ("launch_cooperative_grid", "enable_warp_specialization"):
            extra.pop(k, None)
        # Checked here, so that the interpreter rejects what a GPU compile
        # would.
        if num_warps is not None:
            _kernel._check_num_warps(num_warps)
        if num_stages is not None:
            _kernel._check_num_stages("num_stages", num_stages)
        if max_registers is not None:
            _kernel._check_max_registers(register_option, max_registers)
        if extra.get("debug") is not None:
            _kernel.check_bool("debug", extra["debug"])
        sm = extra.pop("sm", None)
        if sm is not None:
            sm = _kernel.resolve_sm(sm)
        flags = {option: _kernel.check_bool(option, extra.pop(option, default))
                 for option, default in _FLAG_OPTIONS}
        _kernel.imply_tma_options(flags)
        return {
            "num_warps": 4 if num_warps is None else num_warps,
            "num_stages": 2 if num_stages is None else num_stages,
            "max_registers": max_registers or 0,
            "producer_registers": producer_registers,
            **flags,
            "sm": sm,
            "stream": stream,
            "interpret": bool(self.interpret) if self.interpret is not None
            else _env_flag("QUIRE_INTERPRET"),
        }

    def run(self, *args, grid, warmup=False, **kwargs):
        """Launches over `grid` (Triton's JITFunction.run); with
        warmup=True only compiles."""
        if warmup:
            kwargs["warmup"] = True
        return self._launcher(*args, _quire_grid=grid, **kwargs)

    def _run_general(self, values, grid, num_warps, num_stages, maxnreg,
                     stream, extra):
        """Every launch the fast launcher does not finish: the first of a
        specialization, extra options, the interpreter, bad arguments."""
        extra = dict(extra)
        warmup = extra.pop("warmup", False)
        plain = not extra
        launch = self._launch_options(num_warps, num_stages, maxnreg, stream,
                                      extra)
        debug = extra.pop("debug", None)
        if extra:
            name = next(iter(extra))
            raise TypeError(f"{self.__name__}() got an unexpected keyword "
                            f"argument '{name}'")
        interpret = launch["interpret"]
        fast_key = self._key(values) + (
            num_warps, num_stages, maxnreg,
            launcher.env_value("QUIRE_DEBUG") if self.debug is None else 0)
        norm = self._norm_key(values)
        device = None if interpret else launcher.current_device()
        # Host descriptors pass tensor maps only where TMA reads them (sm_90;
        # older GPUs' drivers may not encode them).
        sm = launch["sm"]
        if sm is None and device is not None and launch["tma"]:
            sm = _cuda.compute_capability(device)
        options = self._options(
            {"debug": debug, "tma": launch["tma"] and (sm or 0) >= 90},
            interpret)
        full_key = (fast_key, launch["sm"], options["debug"], interpret,
                    launch["max_registers"], launch["producer_registers"],
                    *(launch[option] for option, _ in _FLAG_OPTIONS))
        if self._used_globals:
            # Before any compile: nothing generated from changed globals.
            self._check_globals()
        per_device = self._cache.setdefault(device, {})
        kernel = per_device.get(full_key)
        if kernel is None:
            with self._lock:
                kernel = per_device.get(full_key)
                if kernel is None:
                    kernel = self._compile(norm, device, options, launch)
                    per_device[full_key] = kernel
        if self._used_globals:
            self._check_globals()  # those the compile just recorded
        if plain and not interpret:
            self._fast_cache.setdefault(device, {})[fast_key] = kernel
        if warmup:
            return kernel
        if callable(grid):
            meta = dict(zip(self.arg_names, values))
            meta["num_warps"] = launch["num_warps"]
            meta["num_stages"] = launch["num_stages"]
            grid = grid(meta)
        g = launcher.grid3(grid)
        if interpret:
            kernel.run(g, self.params, norm, values)
            return kernel
        for p, k in zip(self.params, norm):
            where = k[3] if k[0] == "p" else k[2] if k[0] == "d" else None
            if where in ("cpu", "host"):
                raise ValueError(
                    f"argument '{p.name}' of '{self.__name__}' "
                    f"{'has its base ' if k[0] == 'd' else 'is '}"
                    f"{'a CPU tensor' if where == 'cpu' else 'in host memory'}"
                    "; launches need CUDA tensors (or QUIRE_INTERPRET=1 to "
                    "run on the CPU)")
        if g[0] == 0 or g[1] == 0 or g[2] == 0:
            return kernel
        stream = launch["stream"]
        stream = launcher.current_stream(device) if stream is None else \
            _cuda.stream_handle(stream, device)
        kernel._launch(g, kernel._extract(*values), device, stream)
        return kernel

    def warmup(self, *args, grid=None, **kwargs):
        """Compiles the specialization these arguments select and returns
        the CompiledKernel, launching nothing."""
        return self.run(*args, grid=grid or (1,), warmup=True, **kwargs)


def _describe_global(v, seen):
    """What of a global a kernel's compiled code depends on, as text."""
    if isinstance(v, JITFunction):
        return "jit:" + (v._compute_hash(seen) if id(v) not in seen else
                         v.__qualname__)
    if isinstance(v, core.constexpr):
        v = v.value
    if isinstance(v, (int, float, bool, str, core.dtype, tuple, type(None))):
        return repr(v)
    if isinstance(v, types.FunctionType):
        try:
            return "py:" + inspect.getsource(v)
        except (OSError, TypeError):
            return "py:" + v.__qualname__
    return type(v).__name__


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

    def __init__(self, name, source, signature, constants, source_name):
        self.name = name
        self.source = source
        self.source_name = source_name
        self.signature = signature
        self.constants = constants
        self.asm = {"source": source}
        self.metadata = _Metadata({"name": name, "signature": signature,
                                   "constants": constants,
                                   "interpreted": True, "shared": 0})
        self.n_regs = self.n_spills = None

    def run(self, grid, params, key, values):
        host, copies, names = [], [], []

        def on_host(v):
            if hasattr(v, "data_ptr") and getattr(v, "is_cuda", False):
                import torch
                h = torch.empty_strided(v.size(), v.stride(),
                                        dtype=v.dtype, device="cpu")
                h.copy_(v)
                copies.append((v, h))
                return h
            return v
        for p, k, v in zip(params, key, values):
            if k[0] == "c":
                continue
            names.append(p.name)
            if k[0] == "d":
                # The base, the shape, the strides but the last (1).
                rank = len(v.shape)
                host += [on_host(v.base), *v.shape, *v.strides[:-1]]
                names[-1:] = ([f"{p.name}.base"] +
                              [f"{p.name}.shape[{i}]" for i in range(rank)] +
                              [f"{p.name}.strides[{i}]"
                               for i in range(rank - 1)])
            elif k[0] == "p":
                host.append(on_host(v))
            elif k[0] == "f" or (k[0] == "s" and
                                 launcher.dtype(k[1]).is_floating()):
                host.append(float(v))
            else:
                host.append(int(v))
        if 0 in grid:
            return
        try:
            _kernel.interpret(self.source, grid, *host,
                              source_name=self.source_name)
        except (TypeError, ValueError) as e:
            # Name the argument as the kernel's source does.
            text = re.sub(r"argument #(\d+) \(([^)]*)\) of '[^']*'",
                          lambda m: f"argument '{names[int(m.group(1))]}' "
                          f"({m.group(2)}) of '{self.name}'", str(e))
            raise type(e)(text) from None
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
