"""Kernel arguments: tensors seen through one view, scalars range-checked.

Every value a user passes goes through here before it reaches the driver or
the interpreter, so the checks are strict and the messages name the argument:
a wrong dtype is a TypeError, a wrong device, shape, alignment or range a
ValueError. Tensors are read through duck typing, never by importing a
library: torch tensors (`data_ptr()`, `stride()`), anything with
`__cuda_array_interface__` (cupy, numba, torch) for the GPU, and anything with
`__array_interface__` (numpy) for the interpreter.
"""

import ctypes
import math
import operator
import struct

# Pointee spellings in kernel signatures -> dtype names used here. Integer
# pointees are signless: a signed or unsigned array of the width matches.
POINTEE_DTYPES = {
    "f16": ("f16",), "bf16": ("bf16",), "f32": ("f32",), "f64": ("f64",),
    "i1": ("i1",), "i8": ("i8", "u8"), "i16": ("i16", "u16"),
    "i32": ("i32", "u32"), "i64": ("i64", "u64"),
    "f8E4M3FN": ("f8E4M3FN",), "f8E5M2": ("f8E5M2",),
}
ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1,
            "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8,
            "u64": 8, "f8E4M3FN": 1, "f8E5M2": 1}
# What users call them (torch's and ml_dtypes' names), for messages.
DTYPE_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
               "f64": "float64", "i1": "bool", "i8": "int8", "u8": "uint8",
               "i16": "int16", "u16": "uint16", "i32": "int32",
               "u32": "uint32", "i64": "int64", "u64": "uint64",
               "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}
# Numpy has no 2-byte float but bf16 nor fp8: ml_dtypes' show up as void
# data, recognised by their dtype's name.
_NAMED_VOID = {("bfloat16", 2): "bf16", ("float8_e4m3fn", 1): "f8E4M3FN",
               ("float8_e5m2", 1): "f8E5M2"}
# The fp8 element types (the tile dialect's f8E4M3FN and f8E5M2).
FP8 = ("f8E4M3FN", "f8E5M2")
_TORCH_DTYPES = {"torch." + v: k for k, v in DTYPE_NAMES.items()}
_TYPESTR_KINDS = {("f", 2): "f16", ("f", 4): "f32", ("f", 8): "f64",
                  ("b", 1): "i1", ("i", 1): "i8", ("u", 1): "u8",
                  ("i", 2): "i16", ("u", 2): "u16", ("i", 4): "i32",
                  ("u", 4): "u32", ("i", 8): "i64", ("u", 8): "u64"}


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


class ArrayView:
    """What Quire needs to know about a tensor or array.

    `strides` are in elements; `device` is "cpu", a CUDA device index, or
    None for a CUDA array whose device is unknown (the current one)."""

    __slots__ = ("obj", "ptr", "dtype", "shape", "strides", "device",
                 "readonly")

    def __init__(self, obj, ptr, dtype, shape, strides, device, readonly):
        self.obj, self.ptr, self.dtype = obj, ptr, dtype
        self.shape, self.strides = tuple(shape), tuple(strides)
        self.device, self.readonly = device, readonly

    @property
    def is_cuda(self):
        return self.device != "cpu"

    @property
    def itemsize(self):
        return ITEMSIZE[self.dtype]

    @property
    def numel(self):
        return math.prod(self.shape)

    def span_bytes(self):
        """Bytes from the first element to the end of the last one."""
        if self.numel == 0:
            return 0
        return (sum((n - 1) * s for n, s in zip(self.shape, self.strides)) + 1
                ) * self.itemsize

    def dtype_name(self):
        return DTYPE_NAMES.get(self.dtype, self.dtype)


def _contiguous_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _interface_view(value, iface, where, device):
    """A view of an (__cuda_)array_interface__ dict."""
    kind = "__cuda_array_interface__" if device is None else "__array_interface__"
    if not isinstance(iface, dict):
        raise TypeError(f"{where}: {kind} is not a dict")
    shape, typestr, data = (iface.get("shape"), iface.get("typestr"),
                            iface.get("data"))
    if (not isinstance(shape, tuple) or not all(_is_int(n) and n >= 0
                                                for n in shape)):
        raise TypeError(f"{where}: {kind} has a malformed shape {shape!r}")
    if not isinstance(typestr, str) or len(typestr) < 3:
        raise TypeError(f"{where}: {kind} has a malformed typestr {typestr!r}")
    if (not isinstance(data, tuple) or len(data) != 2 or not _is_int(data[0])
            or not 0 <= data[0] < 2 ** 64):
        raise TypeError(f"{where}: {kind} has malformed data {data!r} "
                        "(expected (pointer, read_only))")
    order, code = typestr[0], typestr[1]
    try:
        size = int(typestr[2:])
    except ValueError:
        raise TypeError(f"{where}: {kind} has a malformed typestr "
                        f"{typestr!r}") from None
    if order == ">" and size > 1:
        raise ValueError(f"{where}: big-endian data ({typestr}) is not "
                         "supported")
    dtype = _TYPESTR_KINDS.get((code, size))
    if dtype is None:
        name = str(getattr(getattr(value, "dtype", None), "name", ""))
        dtype = _NAMED_VOID.get((name, size))
    if dtype is None:
        raise TypeError(f"{where}: unsupported element type {typestr!r}")
    itemsize = ITEMSIZE[dtype]
    strides = iface.get("strides")
    if strides is None:
        strides = _contiguous_strides(shape)
    else:
        if (not isinstance(strides, tuple) or len(strides) != len(shape) or
                not all(_is_int(s) for s in strides)):
            raise TypeError(f"{where}: {kind} has malformed strides "
                            f"{strides!r}")
        if any(s % itemsize for s in strides):
            raise ValueError(f"{where}: strides {strides} (bytes) are not "
                             f"multiples of the element size {itemsize}")
        strides = tuple(s // itemsize for s in strides)
    return ArrayView(value, data[0], dtype, shape, strides, device,
                     bool(data[1]))


_language_names = None


def _name_of(dtype):
    """The name here of a quire.language dtype (None for other objects):
    the inverse of the launcher's VIEW_DTYPES."""
    global _language_names
    if _language_names is None:
        from .runtime.launcher import VIEW_DTYPES  # it imports this module
        _language_names = {d.name: n for n, d in VIEW_DTYPES.items()}
    if type(dtype).__name__ != "dtype":
        return None
    return _language_names.get(getattr(dtype, "name", None))


class TensorWrapper:
    """A tensor or array seen by kernels as another element type of the
    same width (triton.TensorWrapper): `quire.reinterpret(x, dtype)`."""

    def __init__(self, base, dtype):
        self.base, self.dtype = base, dtype
        self.shape = tuple(getattr(base, "shape", ()))

    def data_ptr(self):
        return self.base.data_ptr()

    def stride(self, *dim):
        return self.base.stride(*dim)

    @property
    def device(self):
        return self.base.device

    @property
    def is_cuda(self):
        return bool(getattr(self.base, "is_cuda", False))

    def __getattr__(self, name):
        # The array interfaces of the base, so the wrapper is read like it.
        if name in ("__cuda_array_interface__", "__array_interface__"):
            return getattr(self.base, name)
        raise AttributeError(name)

    def __repr__(self):
        return f"TensorWrapper({self.dtype!r}, {type(self.base).__name__})"


def reinterpret(tensor, dtype):
    """`tensor`'s memory as elements of `dtype` (a quire.language dtype of
    the same width), e.g. uint8 bit patterns as tl.float8e4nv: what
    triton.reinterpret does. Nothing is copied."""
    name = _name_of(dtype)
    if name is None:
        raise TypeError(f"quire.reinterpret: expected a quire.language dtype "
                        f"(e.g. tl.float8e4nv), got {dtype!r}")
    if isinstance(tensor, TensorWrapper):
        tensor = tensor.base
    v = view(tensor, "quire.reinterpret")
    if v is None:
        raise TypeError(f"quire.reinterpret: expected a tensor or array, got "
                        f"{describe(tensor)}")
    if v.itemsize != ITEMSIZE[name]:
        raise TypeError(f"quire.reinterpret: {v.dtype_name()} elements are "
                        f"{v.itemsize} bytes, {DTYPE_NAMES[name]} ones "
                        f"{ITEMSIZE[name]}")
    return TensorWrapper(tensor, dtype)


def view(value, where):
    """An ArrayView of `value`, or None when it is not array-like."""
    if isinstance(value, TensorWrapper):
        v = view(value.base, where)
        name = _name_of(value.dtype)
        if v is None or name is None or v.itemsize != ITEMSIZE[name]:
            raise TypeError(f"{where}: a malformed TensorWrapper")
        return ArrayView(v.obj, v.ptr, name, v.shape, v.strides, v.device,
                         v.readonly)
    if (callable(getattr(value, "data_ptr", None)) and
            callable(getattr(value, "stride", None)) and
            hasattr(value, "dtype") and hasattr(value, "device")):
        dtype = _TORCH_DTYPES.get(str(value.dtype))
        if dtype is None:
            raise TypeError(f"{where}: unsupported dtype {value.dtype}")
        dev = value.device
        if getattr(dev, "type", None) == "cuda":
            device = dev.index
        elif getattr(dev, "type", None) == "cpu":
            device = "cpu"
        else:
            raise ValueError(f"{where}: tensors on {dev} are not supported")
        return ArrayView(value, int(value.data_ptr()), dtype,
                         tuple(value.shape), tuple(value.stride()), device,
                         False)
    if hasattr(value, "__cuda_array_interface__"):
        return _interface_view(value, value.__cuda_array_interface__, where,
                               None)
    if hasattr(value, "__array_interface__"):
        return _interface_view(value, value.__array_interface__, where, "cpu")
    return None


def describe(value):
    return "None" if value is None else type(value).__name__


def check_array(value, spec_type, where, host):
    """The view of a pointer argument: on the GPU (host False) or in host
    memory (host True), holding the pointee type of `spec_type`."""
    pointee = pointee_of(spec_type)
    v = view(value, where)
    want = "a numpy array" if host else "a CUDA tensor"
    if v is None:
        raise TypeError(f"{where}: expected {want}, got {describe(value)}")
    if host and v.is_cuda:
        raise ValueError(f"{where}: quire.interpret runs on the CPU; got a "
                         "CUDA tensor (pass a numpy array)")
    if not host and not v.is_cuda:
        raise ValueError(f"{where}: expected a CUDA tensor, got one on the "
                         "CPU (quire.interpret runs kernels on the CPU)")
    accepted = POINTEE_DTYPES.get(pointee)
    if accepted is None:
        raise TypeError(f"{where}: pointers to {pointee} are not supported")
    # The interpreter also takes bf16 as its uint16 bit patterns, since
    # numpy has no bfloat16.
    if host and pointee == "bf16":
        accepted = ("bf16", "u16")
    if host and pointee in FP8:
        accepted = (pointee, "u8", "i8")
    if v.dtype not in accepted:
        raise TypeError(f"{where}: expected {DTYPE_NAMES[accepted[0]]} data, "
                        f"got {v.dtype_name()}")
    if host and any(s < 0 for n, s in zip(v.shape, v.strides) if n > 1):
        raise ValueError(f"{where}: negative strides are not supported")
    return v


def pointee_of(spec_type):
    if not spec_type.startswith("!tile.ptr<") or not spec_type.endswith(">"):
        raise TypeError(f"not a pointer type: {spec_type}")
    return spec_type[len("!tile.ptr<"):-1]


def check_alignment(v, divisibility, where):
    if divisibility > 1 and v.ptr % divisibility:
        raise ValueError(f"{where}: address {v.ptr:#x} is not aligned to "
                         f"{divisibility} bytes as the kernel requires "
                         "(tile.divisibility)")


def to_int(value, where):
    """`value` as a Python int: ints and integer scalars (numpy, 0-d
    tensors), never bools, floats or strings."""
    if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool"):
        raise TypeError(f"{where}: expected an int, got a bool")
    if isinstance(value, (str, bytes, bytearray, float)):
        raise TypeError(f"{where}: expected an int, got {describe(value)}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: expected an int, got "
                        f"{describe(value)}") from None


def check_int(value, spec, where):
    """An integer argument: in range for its width (signed or unsigned) and
    a multiple of its divisibility. Returns the Python int."""
    bits = spec["bits"]
    if bits == 1:
        if isinstance(value, bool):
            return int(value)
        value = to_int(value, where)
        if value not in (0, 1):
            raise ValueError(f"{where}: {value} is not a bool (0 or 1)")
        return value
    value = to_int(value, where)
    lo, hi = -(1 << (bits - 1)), (1 << bits) - 1
    if not lo <= value <= hi:
        raise ValueError(f"{where}: {value} does not fit in {bits} bits "
                         f"(range [{lo}, {hi}])")
    div = spec.get("divisibility", 1)
    if div > 1 and value % div:
        raise ValueError(f"{where}: {value} is not a multiple of {div} as the "
                         "kernel requires (tile.divisibility)")
    return value


def int_param(value, bits):
    """A ctypes value with the two's-complement bits of `value`."""
    if bits == 1:
        return ctypes.c_uint8(value)
    return {8: ctypes.c_uint8, 16: ctypes.c_uint16, 32: ctypes.c_uint32,
            64: ctypes.c_uint64}[bits](value & ((1 << bits) - 1))


def signed64(value):
    """`value` (signed or unsigned 64-bit) as a signed 64-bit int."""
    return value - (1 << 64) if value >= 1 << 63 else value


_FLOAT_MAX = {16: 65504.0, 32: 3.4028234663852886e38}
_BF16_MAX = 3.3895313892515355e38


def check_float(value, spec, where):
    """A float argument: any real number that the argument's type can hold
    (inf and nan pass; finite values that would overflow do not)."""
    if isinstance(value, (bool, str, bytes, bytearray)) or \
            type(value).__name__ in ("bool_", "bool") or \
            not hasattr(type(value), "__float__"):
        raise TypeError(f"{where}: expected a float, got {describe(value)}")
    try:
        f = float(value)
    except OverflowError:
        raise ValueError(f"{where}: {value!r} overflows {spec['type']}") from None
    except (TypeError, ValueError):
        raise TypeError(f"{where}: expected a float, got "
                        f"{describe(value)}") from None
    limit = _BF16_MAX if spec["type"] == "bf16" else _FLOAT_MAX.get(spec["bits"])
    if limit is not None and math.isfinite(f) and abs(f) > limit:
        # Rounding to nearest would give inf for anything past the largest
        # finite value plus half an ulp; refusing is clearer than inf.
        raise ValueError(f"{where}: {f!r} overflows {spec['type']}")
    return f


def float_param(f, spec):
    """The ctypes value of float `f` for a `spec` argument."""
    t = spec["type"]
    if t == "f64":
        return ctypes.c_double(f)
    if t == "f32":
        return ctypes.c_float(f)
    if t == "f16":
        return ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", f))[0])
    if t == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", f))[0]
        if math.isnan(f):
            return ctypes.c_uint16(0x7FC0)
        bits += 0x7FFF + ((bits >> 16) & 1)  # round to nearest even
        return ctypes.c_uint16(bits >> 16)
    raise TypeError(f"scalar {t} arguments are not supported")


def check_grid(grid):
    """A launch grid as an (x, y, z) tuple: an int or 1 to 3 ints, each in
    [0, 2^31) and y, z below 65536. A zero dimension launches nothing."""
    if isinstance(grid, (list, tuple)):
        dims = list(grid)
    else:
        dims = [grid]
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"grid must have 1 to 3 dimensions, got {grid!r}")
    out = []
    for i, g in enumerate(dims):
        g = to_int(g, f"grid dimension {'xyz'[i]}")
        if g < 0:
            raise ValueError(f"grid dimension {'xyz'[i]} is negative: {g}")
        out.append(g)
    out += [1] * (3 - len(out))
    if out[0] >= 2 ** 31 or out[1] > 65535 or out[2] > 65535:
        raise ValueError(f"grid {tuple(out)} exceeds the CUDA limits "
                         "(x < 2^31, y and z <= 65535)")
    return tuple(out)
