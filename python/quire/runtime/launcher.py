"""The per-launch path of @quire.jit kernels, kept short.

A launch does four things: bind the arguments, compute the specialization
key, find the compiled kernel, pack and launch. Python's own binding does
the first: each JITFunction gets a generated function with the kernel's
parameters (`fast_launcher`). The key is one small function call per
argument (`key_function`), the same functions the compile path uses, so the
two can never disagree. Each specialization gets a generated function that
pulls the launch values out of the arguments (`extractor`) and one
struct.Struct that packs them; the driver call has its argtypes set once.
Anything unusual (extra options, the interpreter, a miss) takes the general
path in jit.py.
"""

import ctypes
import os
import struct
import sys

from .. import _args, _cuda
from ..language import core
from ..tools.tensor_descriptor import tma_box

# Torch dtypes by their str(); numpy/CUDA-array dtypes by _args' names.
TORCH_DTYPES = {
    "torch.float16": core.float16, "torch.bfloat16": core.bfloat16,
    "torch.float32": core.float32, "torch.float64": core.float64,
    "torch.int8": core.int8, "torch.int16": core.int16,
    "torch.int32": core.int32, "torch.int64": core.int64,
    "torch.uint8": core.uint8, "torch.uint16": core.uint16,
    "torch.uint32": core.uint32, "torch.uint64": core.uint64,
    "torch.bool": core.int1, "torch.float8_e4m3fn": core.float8e4nv,
    "torch.float8_e5m2": core.float8e5,
}
VIEW_DTYPES = {"f16": core.float16, "bf16": core.bfloat16,
               "f32": core.float32, "f64": core.float64, "i1": core.int1,
               "i8": core.int8, "u8": core.uint8, "i16": core.int16,
               "u16": core.uint16, "i32": core.int32, "u32": core.uint32,
               "i64": core.int64, "u64": core.uint64,
               "f8E4M3FN": core.float8e4nv, "f8E5M2": core.float8e5}
_dtype_cache = {}

ONE = ("c", 1)
NONE = ("c", None)
FLOAT = ("f",)
BOOL = ("b",)


def int_type(v):
    """The name of the dtype Triton gives an int argument."""
    if -2**31 <= v < 2**31:
        return "int32"
    if -2**63 <= v < 2**63:
        return "int64"
    if 0 <= v < 2**64:
        return "uint64"
    raise ValueError(f"integer {v} does not fit in 64 bits")


def _torch_dtype(dt, where):
    t = _dtype_cache.get(dt)
    if t is None:
        t = TORCH_DTYPES.get(str(dt))
        if t is None:
            raise TypeError(f"{where}: unsupported tensor dtype {dt}")
        t = _dtype_cache[dt] = t.name
    return t


# torch.Tensor once a torch tensor was passed, and the keys of torch tensors
# by (dtype, 16-byte aligned, on the GPU), so the launch path looks them up.
_torch_tensor_type = None
_tensor_keys = {}


def _remember_tensor_type(v, aligned, k):
    global _torch_tensor_type
    torch = sys.modules.get("torch")
    if torch is not None and type(v) is torch.Tensor:
        _torch_tensor_type = torch.Tensor
        _tensor_keys[(v.dtype, aligned, v.is_cuda)] = k


# Keys name dtypes by their str (cheap to hash); dtype() maps them back.
_I32 = ("i", "int32", False)
_I32_16 = ("i", "int32", True)


def dtype(name):
    return core.DTYPES[name]


def key_function(param, fn_name):
    """The specialization of one argument, as a small tuple of strings and
    bools: ("c", value) a compile-time constant, ("i", dtype, div16) an
    integer, ("s", dtype[, div16]) an annotated scalar, ("f",) a float,
    ("b",) a bool, ("p", dtype, aligned16, where) a tensor (where: "torch",
    "cpu", "view" for __cuda_array_interface__, "host" for host arrays),
    ("d", dtype, where, block_shape, padding, shapes div16, strides div16) a
    quire.tools.tensor_descriptor.TensorDescriptor."""
    ann = None if param.annotation is None else param.annotation.name
    dns = param.do_not_specialize
    where = f"argument '{param.name}' of '{fn_name}'"
    ann_int = ann is not None and param.annotation.is_int()
    if ann_int:
        bits = param.annotation.int_bitwidth
        lo = 0 if param.annotation.is_int_unsigned() else -(1 << (bits - 1))
        hi = (1 << bits) if param.annotation.is_int_unsigned() else \
            (1 << (bits - 1))

    def key(v):
        t = type(v)
        if t is _torch_tensor_type and ann is None:
            # The common launch argument first: a torch tensor (its dtype
            # names cached, the key tuples shared).
            k = _tensor_keys.get((v.dtype, not dns and v.data_ptr() & 15 == 0,
                                  v.is_cuda))
            if k is not None:
                return k
        if t is int:
            if ann is not None:
                if not ann_int:
                    return ("s", ann)
                if not lo <= v < hi:
                    raise ValueError(f"{where}: {v} does not fit in "
                                     f"{param.annotation!r}")
                return ("s", ann, not dns and v & 15 == 0)
            if -2**31 <= v < 2**31:
                if dns:
                    return _I32
                if v == 1:
                    return ONE
                return _I32_16 if v & 15 == 0 else _I32
            try:
                return ("i", int_type(v), not dns and v & 15 == 0)
            except ValueError:
                raise ValueError(f"{where}: the integer {v} does not fit in "
                                 "64 bits") from None
        if t is float:
            return FLOAT if ann is None else ("s", ann)
        if t is bool:
            return BOOL if ann is None else ("s", ann)
        if v is None:
            return NONE
        if t is _tensor_descriptor_type():
            return descriptor_key(v, dns)
        if t is _args.TensorWrapper:
            view = _args.view(v, where)
            torch_cuda = hasattr(v.base, "data_ptr") and v.is_cuda
            return ("p", VIEW_DTYPES[view.dtype].name, not dns and
                    view.ptr % 16 == 0, "torch" if torch_cuda else
                    "cpu" if hasattr(v.base, "data_ptr") else
                    "host" if view.device == "cpu" else "view")
        if hasattr(v, "data_ptr") and hasattr(v, "dtype"):
            aligned = not dns and v.data_ptr() & 15 == 0
            k = ("p", _torch_dtype(v.dtype, where), aligned,
                 "torch" if v.is_cuda else "cpu")
            _remember_tensor_type(v, aligned, k)
            return k
        if isinstance(v, core.dtype):
            return ("c", v)
        if getattr(v, "shape", None) == () and not hasattr(v, "data_ptr"):
            # A numpy scalar: a number, not an array.
            kind = getattr(getattr(v, "dtype", None), "kind", "")
            if kind == "b":
                return key(bool(v))
            if kind in "iu" and kind:
                return key(int(v))
            if kind == "f":
                return key(float(v))
        view = _args.view(v, where)
        if view is not None:
            return ("p", VIEW_DTYPES[view.dtype].name, not dns and
                    view.ptr % 16 == 0, "host" if view.device == "cpu"
                    else "view")
        if hasattr(t, "__index__") and not hasattr(t, "__float__") or \
                hasattr(t, "__index__") and float(v) == int(v):
            return key(int(v.__index__()))
        if hasattr(t, "__float__"):
            return key(float(v))
        raise TypeError(f"{where}: cannot pass {t.__name__} to a kernel "
                        "(tensors, ints, floats, bools, None, dtypes)")
    return key


_TensorDescriptor = None


def _tensor_descriptor_type():
    global _TensorDescriptor
    if _TensorDescriptor is None:
        from ..tools.tensor_descriptor import TensorDescriptor
        _TensorDescriptor = TensorDescriptor
    return _TensorDescriptor


def descriptor_key(d, dns=False):
    """The key of a TensorDescriptor argument (see key_function): its
    block shape and padding are compile-time; the shape's and the strides'
    divisibility by 16 are specialized on, as integer arguments are."""
    v = d._view
    torch_cuda = hasattr(v.obj, "data_ptr") and v.is_cuda
    where = "torch" if torch_cuda else "cpu" if hasattr(v.obj, "data_ptr") \
        else "host" if v.device == "cpu" else "view"
    return ("d", VIEW_DTYPES[v.dtype].name, where, tuple(d.block_shape),
            d.padding, tuple(not dns and s % 16 == 0 for s in d.shape),
            tuple(not dns and s % 16 == 0 for s in d.strides[:-1]))


def descriptor_ptr(d):
    """The base address of a TensorDescriptor at launch."""
    base = d.base
    if hasattr(base, "data_ptr") and not isinstance(base, _args.TensorWrapper):
        return base.data_ptr()
    return _args.view(base, "TensorDescriptor").ptr


def constexpr_key(param, fn_name):
    def key(v):
        if isinstance(v, core.constexpr):
            v = v.value
        try:
            hash(v)
        except TypeError:
            raise TypeError(f"constexpr '{param.name}' of '{fn_name}' must "
                            f"be hashable, got {type(v).__name__}") from None
        return ("c", v)
    return key


_CODES = {"i1": "B", "i8": "b", "i16": "h", "i32": "i", "i64": "q",
          "f32": "f", "f64": "d"}


def packing(params, key, tma=False):
    """(struct.Struct, extractor source lines) for a specialization: the
    launch values of the arguments, in the kernel signature's order (with
    `tma`, a descriptor TMA reads also passes its 128-byte tensor map)."""
    fmt, exprs, offsets, off = "<", [], [], 0

    def place(code, expr):
        nonlocal fmt, off
        size = struct.calcsize("<" + code)
        pad = -off % size
        fmt += "x" * pad + code
        off += pad
        offsets.append(off)
        off += size
        exprs.append(expr)

    for p, k in zip(params, key):
        tag, name = k[0], p.name
        if tag == "c":
            continue
        if tag == "d":
            # The base, the shape (i32), the strides but the last (i64).
            rank = len(k[3])
            place("Q", f"_desc_ptr({name})")
            for i in range(rank):
                place("i", f"{name}.shape[{i}]")
            for i in range(rank - 1):
                place("q", f"{name}.strides[{i}]")
            if tma and tma_box(dtype(k[1]).primitive_bitwidth, k[3], k[4]):
                place("128s", f"{name}._tensormap()")
        elif tag == "p":
            place("Q", f"{name}.data_ptr()" if k[3] == "torch" else
                  f"_view_ptr({name})")
        elif tag == "f":
            place("f", f"float({name})")
        elif tag == "b":
            place("B", f"(1 if {name} else 0)")
        else:
            dt = dtype(k[1])
            if dt.is_floating():
                if dt.mlir in ("f32", "f64"):
                    place(_CODES[dt.mlir], f"float({name})")
                else:
                    place("H", f"_half({name!r}, {name}, {dt.mlir!r})")
            else:
                unsigned = dt.is_int_unsigned() and not dt.is_bool()
                code = _CODES[dt.mlir]
                place(code.upper() if unsigned else code,
                      f"int({name})" if tag == "s" else name)
    return struct.Struct(fmt), offsets, exprs


def _view_ptr(v):
    return v.__cuda_array_interface__["data"][0]


def _half(name, v, t):
    return _args.float_param(float(v), {"type": t}).value


def make_extractor(params, key, tma=False):
    st, offsets, exprs = packing(params, key, tma)
    names = ", ".join(p.name for p in params)
    src = (f"def extract({names}):\n"
           f"    return ({''.join(e + ', ' for e in exprs)})\n")
    ns = {"_view_ptr": _view_ptr, "_half": _half, "_desc_ptr": descriptor_ptr}
    exec(src, ns)
    return st, offsets, ns["extract"]


class Slots:
    """A per-thread parameter buffer and the pointer array the driver
    reads (cuLaunchKernel copies the parameters before it returns)."""

    def __init__(self, st, offsets):
        self.buf = ctypes.create_string_buffer(max(st.size, 1))
        base = ctypes.addressof(self.buf)
        self.ptrs = (ctypes.c_void_p * max(1, len(offsets)))(
            *[base + o for o in offsets])


_launch_fn = None


def launch(function, grid, threads, shared, stream, ptrs):
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
    status = fn(function, grid[0], grid[1], grid[2], threads, 1, 1, shared,
                stream, ptrs, None)
    if status:
        _cuda.check(status, "cuLaunchKernel")


def current_device():
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_initialized():
                return torch._C._cuda_getDevice()
        except Exception:
            pass
    return _cuda.current_device()


_raw_stream = None


def current_stream(device):
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


def grid3(grid):
    if type(grid) is tuple:
        n = len(grid)
        if n == 1 and type(grid[0]) is int and 0 <= grid[0] < 2**31:
            return (grid[0], 1, 1)
        if n == 2 and type(grid[0]) is int and type(grid[1]) is int and \
                0 <= grid[0] < 2**31 and 0 <= grid[1] <= 65535:
            return (grid[0], grid[1], 1)
    return _args.check_grid(grid)


OPTIONS = ("num_warps", "num_stages", "maxnreg", "stream")

# os.environ's own dict (bytes keys on POSIX): every change made through
# os.environ shows in it, and a lookup skips encoding the name, which the
# launch path would otherwise pay twice per call.
_ENVIRON = getattr(os.environ, "_data", None)
if not (isinstance(_ENVIRON, dict) and
        all(isinstance(k, bytes) for k in list(_ENVIRON)[:1])):
    _ENVIRON = None


def env_value(name):
    """The environment variable `name` as bytes (b"" when unset), read as
    the generated launchers read it."""
    if _ENVIRON is not None:
        return _ENVIRON.get(name.encode(), b"")
    return os.environ.get(name, "").encode()


def _env_expr(name):
    """Source of an expression the generated launcher evaluates to
    env_value(name)."""
    if _ENVIRON is not None:
        return f"_environ.get({name.encode()!r}, b'')"
    return f"_env_value({name!r})"


def fast_launcher(jf):
    """The generated launch function of JITFunction `jf`: Python binds the
    arguments; the common case goes straight to the driver."""
    params = jf.params
    sig, names, keys = [], [], []
    ns = {"_general": jf._run_general, "_caches": jf._fast_cache,
          "_device": current_device, "_stream": current_stream,
          "_grid3": grid3, "_EMPTY": {}, "_environ": _ENVIRON,
          "_env_value": env_value, "_launch": launch}
    prologue = []
    ns.update(_I32=_I32, _I32_16=_I32_16, _ONE=ONE)
    for p in params:
        default = "" if p.default is p.empty else f"=_d{p.index}"
        if default:
            ns[f"_d{p.index}"] = p.default
        sig.append(p.name + default)
        names.append(p.name)
        ns[f"_k{p.index}"] = jf._key_fns[p.index]
        if p.is_constexpr:
            # True and 1, 4 and 4.0 compare equal but compile differently.
            keys.append(f"({p.name}, type({p.name}))")
        elif p.annotation is None and not p.do_not_specialize:
            # The common int case inline (key_function's rule), the rest
            # through the key function.
            v = p.name
            prologue.append(
                f"    _q{p.index} = (_ONE if {v} == 1 else _I32_16 if "
                f"{v} & 15 == 0 else _I32) if type({v}) is int and "
                f"-2147483648 <= {v} < 2147483648 else _k{p.index}({v})")
            keys.append(f"_q{p.index}")
        else:
            keys.append(f"_k{p.index}({p.name})")
    # Options the kernel does not take as parameters are keyword-only;
    # one it does (Triton's tutorials declare `num_stages: tl.constexpr`)
    # is both.
    options = [o for o in OPTIONS if o not in names]
    opt_value = {o: o for o in OPTIONS}
    if jf.interpret is None:
        interp = f"{_env_expr('QUIRE_INTERPRET')} not in (b'', b'0')"
    else:
        interp = "True" if jf.interpret else "False"
    debug = _env_expr("QUIRE_DEBUG") if jf.debug is None else "0"
    ns["_globals"] = jf._used_globals
    ns["_check_globals"] = jf._check_globals
    all_names = ", ".join(names)
    meta = ", ".join(f"{n!r}: {n}" for n in names)
    nw = opt_value["num_warps"]
    stages = opt_value["num_stages"]
    # Named after the kernel, so binding errors read `kernel() missing ...`.
    fname = jf.__name__ if jf.__name__.isidentifier() and \
        jf.__name__ not in ns and jf.__name__ not in names else "launch"
    src = f"""
def {fname}({", ".join(sig)}{"," if sig else ""} *, _quire_grid=None,
           {", ".join(o + "=None" for o in options)}{"," if options else ""}
           **_quire_extra):
    if _quire_extra or {interp}:
        return _general(({all_names}{"," if names else ""}), _quire_grid,
                        {nw}, {stages}, {opt_value["maxnreg"]},
                        {opt_value["stream"]}, _quire_extra)
{chr(10).join(prologue)}
    key = ({"".join(k + ", " for k in keys)}{nw}, {stages},
           {opt_value["maxnreg"]}, {debug})
    dev = _device()
    entry = _caches.get(dev, _EMPTY).get(key)
    if entry is None:
        return _general(({all_names}{"," if names else ""}), _quire_grid,
                        {nw}, {stages}, {opt_value["maxnreg"]},
                        {opt_value["stream"]}, _quire_extra)
    if _globals:
        _check_globals()
    grid = _quire_grid
    if callable(grid):
        grid = grid({{{meta}{", " if meta else ""}'num_warps': {nw} or 4,
                     'num_stages': 2 if {stages} is None else {stages}}})
    grid = _grid3(grid)
    if grid[0] and grid[1] and grid[2]:
        entry._launch(grid, entry._extract({all_names}), dev,
                      _stream(dev) if {opt_value["stream"]} is None else
                      entry._stream_handle({opt_value["stream"]}, dev))
    return entry
"""
    exec(src, ns)
    return ns[fname]
