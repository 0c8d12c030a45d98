"""Specializing, compiling and launching the ops' @quire.jit kernels.

The ops validate their arguments once (validation.py), so they do not
launch through `kernel[grid](...)`, which would check and key every
argument again on each call. A specialization is named here explicitly: the
constexprs and absent (None) parameters, and for each run-time parameter
its dtype and the divisibility facts the arguments guarantee. Its MLIR is
generated once per process by the frontend's code generator (the same text
`kernel.warmup(...)` would compile for the same facts), compiled through
libquire (whose PTX is cached on disk by source) and launched through one
packed parameter buffer (Kernel._launch_trusted). numpy arrays run the same
source in the reference interpreter.
"""

import threading

from .. import _kernel
from ..compiler import code_generator
from ..language import core
from ..runtime.launcher import VIEW_DTYPES
from ..tools.tensor_descriptor import TensorDescriptor

I32, I64, F32 = core.int32, core.int64, core.float32

# The views' dtypes as the frontend's (uint16 host arrays: bf16 bits).
DTYPES = dict(VIEW_DTYPES, u16=core.bfloat16)

_specs = {}
_kernels = {}
_lock = threading.Lock()


def ptr(view):
    """The pointer type of an argument's view (uint16 host arrays are bf16
    bit patterns)."""
    return core.pointer_type(DTYPES[view.dtype])


class Specialization:
    """One specialization of kernel `fn`: its MLIR text `source` (function
    `name`), `order`, the names of its run-time parameters in the order
    the launch passes them, the `num_stages` it compiles with and its other
    compile `options` ((name, value) pairs of quire.compile keywords, such
    as pingpong)."""

    __slots__ = ("fn", "name", "source", "order", "num_stages", "options")

    def __init__(self, fn, name, consts, args, num_stages=2, options=()):
        params = [p.name for p in fn.params]
        missing = [n for n in params if n not in consts and n not in args]
        extra = [n for n in list(consts) + list(args) if n not in params]
        if missing or extra:
            raise AssertionError(f"{fn.__name__}: specialization lacks "
                                 f"{missing}, has unknown {extra}")
        specs = []
        for p in fn.params:
            if p.name in consts:
                continue
            dt, div = args[p.name]
            attrs = {"tile.divisibility": f"{div} : i32"} if div > 1 else {}
            specs.append((p.name, dt, attrs))
        self.fn = fn
        self.name = name
        self.num_stages = num_stages
        self.options = tuple(options)
        self.order = [n for n, _, _ in specs]
        # Tensor descriptor parameters (code_generator.DescriptorArg) take
        # their tensor maps: the launch passes TensorDescriptors for them.
        tma = any(isinstance(dt, code_generator.DescriptorArg)
                  for _, dt, _ in specs)
        self.source = code_generator.generate(fn, consts, specs,
                                              {"debug": False, "tma": tma},
                                              name=name)


def constant_strides(strides, names, on):
    """((name, value), ...) of the strides `names` from `strides` when `on`
    (the ops' gathered rows: a thread's consecutive rows are then constant
    multiples of a compile-time stride, immediate offsets), else ()."""
    return tuple((n, strides[n]) for n in names) if on else ()


def as_constants(consts, args, pairs):
    """Moves the run-time parameters named in `pairs` ((name, value), from
    constant_strides) from `args` into `consts` with those values."""
    for name, value in pairs:
        del args[name]
        consts[name] = value


def specialize(fn, name, consts, args, num_stages=2, options=()):
    """The Specialization of `fn` with `consts` ({param: compile-time value},
    absent parameters as None) and `args` ({param: (dtype, divisibility)}),
    compiled with `num_stages` (cp.async staging depth) and `options`,
    generated once per process."""
    key = (fn, name, tuple(sorted(consts.items())),
           tuple(sorted(args.items(), key=lambda kv: kv[0])), num_stages,
           tuple(options))
    spec = _specs.get(key)
    if spec is None:
        spec = Specialization(fn, name, consts, args, num_stages, options)
        with _lock:
            spec = _specs.setdefault(key, spec)
    return spec


def compiled(spec, sm, num_warps, wgmma=True, checked=False,
             early_dots=False, wide_fp8_operands=True):
    """`spec` compiled for `sm`, once per process per option set (with the
    spec's own options)."""
    key = (spec, sm, num_warps, wgmma, checked, early_dots, wide_fp8_operands)
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = _kernel.compile(spec.source, sm=sm, num_warps=num_warps,
                                 wgmma=wgmma, checked=checked,
                                 early_dots=early_dots,
                                 wide_fp8_operands=wide_fp8_operands,
                                 num_stages=spec.num_stages,
                                 **dict(spec.options),
                                 source_name=f"<MLIR of {spec.name}>")
        with _lock:
            kernel = _kernels.setdefault(key, kernel)
    return kernel


def interpret(spec, grid, values):
    """Runs `spec` over `grid` in the reference interpreter; `values` maps
    the run-time parameters to numpy arrays and numbers."""
    _kernel.interpret(spec.source, grid, *[values[n] for n in spec.order],
                      kernel=spec.name, source_name=f"<MLIR of {spec.name}>")


def descriptor_params(d, base):
    """The kernel parameters of tensor descriptor `d` over the tensor at
    address `base`: the base, the shape, the strides but the last, and the
    tensor map (the parameters code_generator.DescriptorArg makes)."""
    return [base, *d.shape, *d.strides[:-1], d._tensormap()]


def launch(kernel, spec, grid, values, address, device):
    """Launches `kernel` (compiled from `spec`) on `device`'s current
    stream; `values` maps parameters to numbers or to tensors, which go in
    as their `address[id(tensor)]`. The op has validated everything."""
    args = []
    for n in spec.order:
        a = values[n]
        if isinstance(a, (int, float)):
            args.append(a)
            continue
        if isinstance(a, TensorDescriptor):
            args += descriptor_params(
                a, address.get(id(a.base)) or a.base.data_ptr())
            continue
        ptr = address.get(id(a))
        if ptr is None:
            # A tensor the op made itself (a scratch buffer, the lse).
            ptr = a.data_ptr() if hasattr(a, "data_ptr") else \
                a.__cuda_array_interface__["data"][0]
        args.append(ptr)
    if device is None:
        from .. import _cuda
        device = _cuda.current_device()
    kernel._launch_trusted(grid, args, device)
