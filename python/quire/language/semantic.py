"""The semantics of quire.language: type promotion, broadcasting and the ops
each builtin emits (Triton's `language/semantic.py` rules, docs/language.md).

Every function takes its operands as tensors or Python numbers (constexprs)
and the builder `b` (compiler/ir.py), emits tile-dialect MLIR and returns
tensors. User mistakes raise core.CompileTimeError; the code generator adds
the Python location.
"""

import math
import struct

from . import core as tl

def _err(msg):
    return tl.CompileTimeError(msg)


def is_num(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, tl.tensor)


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------

def number_dtype(v):
    """The dtype Triton gives a Python number."""
    if isinstance(v, bool):
        return tl.int1
    if isinstance(v, int):
        if -2**31 <= v < 2**31:
            return tl.int32
        if 2**31 <= v < 2**32:
            return tl.uint32
        if -2**63 <= v < 2**63:
            return tl.int64
        if 2**63 <= v < 2**64:
            return tl.uint64
        raise _err(f"integer {v} does not fit in 64 bits")
    if isinstance(v, float):
        a = abs(v)
        if a == math.inf or a == 0.0 or v != v or \
                2.0**-126 <= a <= (2 - 2.0**-23) * 2.0**127:
            return tl.float32
        return tl.float64
    raise _err(f"{type(v).__name__} is not a number")


def _float_bits(value, dt):
    value = float(value)
    if dt.is_fp64():
        return struct.unpack("<Q", struct.pack("<d", value))[0], 16
    if dt.is_fp16():
        try:
            return struct.unpack("<H", struct.pack("<e", value))[0], 4
        except OverflowError:
            return (0xFC00 if value < 0 else 0x7C00), 4
    try:
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:
        bits = 0xFF800000 if value < 0 else 0x7F800000
    if dt.is_fp32():
        return bits, 8
    if dt.is_bf16():
        if value != value:
            return 0x7FC0, 4
        bits += 0x7FFF + ((bits >> 16) & 1)
        return (bits >> 16) & 0xFFFF, 4
    if dt.is_fp8e4nv() or dt.is_fp8e5():
        return _fp8_bits(value, dt), 2
    raise _err(f"constants of type {dt!r} are not supported")


def _fp8_bits(value, dt):
    """The fp8 bits of `value` rounded to nearest even, saturating at the
    largest finite value as cvt.rn.satfinite does (docs/language.md)."""
    e4 = dt.is_fp8e4nv()
    mbits, bias = (3, 7) if e4 else (2, 15)
    largest, largest_bits, nan = ((448.0, 0x7E, 0x7F) if e4 else
                                  (57344.0, 0x7B, 0x7E))
    if value != value:
        return nan
    sign = 0x80 if math.copysign(1.0, value) < 0 else 0
    a = abs(value)
    if a >= largest:
        return sign | largest_bits
    exp = max(math.frexp(a)[1] - 1, 1 - bias) if a else 1 - bias
    n = round(a / 2.0 ** (exp - mbits))  # exact quotient; ties to even
    if n >= 2 << mbits:
        exp, n = exp + 1, n >> 1
    if n < 1 << mbits:  # subnormal (or zero)
        return sign | n
    return sign | ((exp + bias) << mbits) | (n - (1 << mbits))


def const_text(value, dt):
    """The MLIR literal of `value` as `dt` (ints wrap to the width's
    two's complement; floats as exact bit patterns)."""
    if dt.is_bool():
        if not isinstance(value, bool) and value not in (0, 1):
            raise _err(f"{value} is not a valid int1 value")
        return "true" if value else "false"
    if dt.is_int():
        if isinstance(value, float):
            if value != value or value in (math.inf, -math.inf):
                raise _err(f"cannot convert {value} to {dt!r}")
            value = int(value)
        n = dt.int_bitwidth
        v = int(value)
        if not -(1 << (n - 1)) <= v < (1 << n):
            raise _err(f"integer {v} does not fit in {dt!r}")
        v &= (1 << n) - 1
        if v >= 1 << (n - 1):
            v -= 1 << n
        return str(v)
    if dt.is_floating():
        bits, width = _float_bits(value, dt)
        return f"0x{bits:0{width}X}"
    raise _err(f"cannot make a constant of type {dt!r}")


def const(b, value, dt, shape=None):
    if shape:
        ty = tl.block_type(dt, shape)
        h = b.op(f"arith.constant dense<{const_text(value, dt)}> : {ty.mlir}",
                 [], ty.mlir)
        return tl.tensor(h, ty)
    if dt.is_bool():
        h = b.op(f"arith.constant {const_text(value, dt)}", [], "i1")
    else:
        h = b.op(f"arith.constant {const_text(value, dt)} : {dt.mlir}", [],
                 dt.mlir)
    return tl.tensor(h, dt)


def to_tensor(x, b, dt=None, shape=None):
    """`x` (a tensor or number) as a tensor; numbers become constants of
    `dt` (default: their own dtype) and `shape`."""
    if isinstance(x, tl.tensor):
        return x
    if isinstance(x, tl.constexpr):
        x = x.value
    if not is_num(x):
        raise _err(f"expected a tensor or a number, got "
                   f"{type(x).__name__}")
    return const(b, x, dt or number_dtype(x), shape)


def shape_of(shape):
    """A block shape from constexprs: a list of positive ints."""
    shape = tl._unwrap(shape)
    if isinstance(shape, (int,)) and not isinstance(shape, bool):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise _err(f"a shape must be a list of constexpr ints, got "
                   f"{type(shape).__name__}")
    out = []
    for s in shape:
        s = tl._unwrap(s)
        if isinstance(s, tl.tensor):
            raise _err("shape dimensions must be constexprs (compile-time "
                       "ints), got a run-time value")
        if not isinstance(s, int) or isinstance(s, bool) or s < 1:
            raise _err(f"shape dimensions must be positive ints, got {s!r}")
        out.append(s)
    return out


def _check_pow2_shape(shape, what):
    for s in shape:
        if s & (s - 1):
            raise _err(f"{what}: shape {list(shape)} has a dimension that is "
                       "not a power of two")


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------

def splat(x, shape, b):
    ty = tl.block_type(x.dtype, shape)
    h = b.op(f"tile.splat {{0}} : {x.type.mlir} -> {ty.mlir}", [x.handle],
             ty.mlir)
    return tl.tensor(h, ty)


def expand_dims(x, axis, b):
    if not x.type.is_block():
        return splat(x, [1], b)
    rank = len(x.shape)
    if not -rank - 1 <= axis <= rank:
        raise _err(f"expand_dims axis {axis} is out of range for a rank-"
                   f"{rank} tensor")
    if axis < 0:
        axis += rank + 1
    shape = list(x.shape)
    shape.insert(axis, 1)
    ty = tl.block_type(x.dtype, shape)
    h = b.op(f"tile.expand_dims {{0}} : {x.type.mlir} -> {ty.mlir}",
             [x.handle], ty.mlir, attrs={"axis": f"{axis} : i32"})
    return tl.tensor(h, ty)


def reshape(x, shape, what, b):
    """`x` with `shape`, where the two shapes differ only by dimensions of
    size 1 (their other sizes the same, in the same order): the size-1
    dimensions of `x` are dropped (a max over one element, which holds
    whatever the layout replicates) and those of `shape` inserted. Other
    reshapes move elements between threads, which Quire does not do.
    `shape` None: all of `x` in one dimension (tl.ravel)."""
    x = tl._unwrap(x)
    if not isinstance(x, tl.tensor) or not x.type.is_block():
        raise _err(f"{what} needs a block tensor")
    src = list(x.shape)
    shape = [math.prod(src)] if shape is None else shape_of(shape)
    if [d for d in src if d != 1] != [d for d in shape if d != 1]:
        n_src, n_dst = math.prod(src), math.prod(shape)
        if n_src != n_dst:
            raise _err(f"{what}: {src} has {n_src} elements, {shape} has "
                       f"{n_dst}")
        raise _err(f"{what} from {src} to {shape} is not supported: only "
                   "dimensions of size 1 may be added or removed (other "
                   "reshapes move elements between threads)")
    for axis in reversed(range(len(src))):
        if src[axis] == 1 and len(x.shape) > 1:
            x = reduce("max", x, axis, b)
    for axis, d in enumerate(shape):
        if d == 1 and len(x.shape) < len(shape):
            x = expand_dims(x, axis, b)
    return x


def expand_dims_n(x, axis, b):
    x = to_tensor(x, b)
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in axes:
        if not isinstance(a, int):
            raise _err("expand_dims axis must be a constexpr int")
    rank = len(x.shape) + len(axes)
    axes = sorted(a + rank if a < 0 else a for a in axes)
    for a in axes:
        x = expand_dims(x, a, b)
    return x


def broadcast_to(x, shape, b):
    """`x` broadcast to `shape` (missing leading dimensions added)."""
    if is_num(x):
        return const(b, x, number_dtype(x), shape)
    shape = list(shape)
    if not x.type.is_block():
        return splat(x, shape, b) if shape else x
    if list(x.shape) == shape:
        return x
    if len(x.shape) > len(shape):
        raise _err(f"cannot broadcast shape {x.shape} to {shape}")
    while len(x.shape) < len(shape):
        x = expand_dims(x, 0, b)
    for have, want in zip(x.shape, shape):
        if have != want and have != 1:
            raise _err(f"cannot broadcast shape {x.shape} to {shape}")
    if list(x.shape) == shape:
        return x
    ty = tl.block_type(x.dtype, shape)
    h = b.op(f"tile.broadcast {{0}} : {x.type.mlir} -> {ty.mlir}", [x.handle],
             ty.mlir)
    return tl.tensor(h, ty)


def broadcast_shapes(a, b_):
    a, b_ = list(a), list(b_)
    if not a:
        return b_
    if not b_:
        return a
    n = max(len(a), len(b_))
    a = [1] * (n - len(a)) + a
    b_ = [1] * (n - len(b_)) + b_
    out = []
    for x, y in zip(a, b_):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise _err(f"incompatible shapes for broadcasting: "
                       f"{a} and {b_}")
    return out


def broadcast_values(x, y, b):
    shape = broadcast_shapes(getattr(x, "shape", []), getattr(y, "shape", []))
    return broadcast_to(x, shape, b), broadcast_to(y, shape, b)


# ---------------------------------------------------------------------------
# Type promotion (Triton's computation_type_impl)
# ---------------------------------------------------------------------------

def integer_promote(a, c):
    if a.int_signedness == c.int_signedness:
        return a if a.int_bitwidth > c.int_bitwidth else c
    if a.is_int_unsigned():
        return a if a.int_bitwidth >= c.int_bitwidth else c
    return c if c.int_bitwidth >= a.int_bitwidth else a


def computation_type(a, a_num, c, c_num, div_or_mod):
    if a_num != c_num:
        scalar, tensor_ty = (a, c) if a_num else (c, a)
        if scalar.kind() <= tensor_ty.kind():
            if div_or_mod and (tensor_ty.is_fp16() or tensor_ty.is_bf16()):
                return tl.float32
            return tensor_ty
    if a.is_fp64() or c.is_fp64():
        return tl.float64
    if a.is_fp32() or c.is_fp32():
        return tl.float32
    if a.is_fp16() or c.is_fp16():
        return tl.float32 if div_or_mod else tl.float16
    if a.is_bf16() or c.is_bf16():
        if div_or_mod:
            return tl.float32
        return tl.bfloat16 if a.is_bf16() and c.is_bf16() else tl.float32
    if a.is_fp8() and c.is_fp8():
        return a if a == c else tl.float16
    if not a.is_int() or not c.is_int():
        raise _err(f"unexpected operand types {a!r} and {c!r}")
    if div_or_mod and a.int_signedness != c.int_signedness:
        raise _err(f"cannot use /, // or % with {a!r} and {c!r}: they have "
                   "different signedness; cast them to the same signedness")
    return integer_promote(a, c)


def _int_overflows(v, tensor_ty):
    if isinstance(v, bool) or not isinstance(v, int) or \
            not tensor_ty.is_int() or tensor_ty.is_bool():
        return False
    n = tensor_ty.int_bitwidth
    return not -(1 << (n - 1)) <= v < (1 << n)


def _scalar_ty(x):
    return number_dtype(x) if is_num(x) else x.dtype


def _shape(x):
    return [] if is_num(x) else list(x.shape)


def _materialize(x, dt, shape, b):
    """Number or tensor `x` as a tensor of `dt` with `shape`."""
    if is_num(x):
        # Triton converts a Python number to the target type (floats to
        # integers truncate, as a cast does).
        if dt.is_int() and not dt.is_bool() and isinstance(x, float):
            if x != x or x in (math.inf, -math.inf):
                raise _err(f"cannot convert {x} to {dt!r}")
            x = int(x)
        return const(b, x, dt, shape)
    if not isinstance(x, tl.tensor):
        raise _err(f"expected a tensor or a number, got {type(x).__name__}")
    return broadcast_to(cast(x, dt, b), shape, b)


def binary_operands(x, y, b, op, allow_lhs_ptr=False, allow_rhs_ptr=False,
                    arithmetic=True, div_or_mod=False):
    """The two operands converted to their common type and shape."""
    x, y = tl._unwrap(x), tl._unwrap(y)
    for v in (x, y):
        if not (is_num(v) or isinstance(v, tl.tensor)):
            raise _err(f"unsupported operand type for {op}: "
                       f"{type(v).__name__}")
    xt, yt = _scalar_ty(x), _scalar_ty(y)
    shape = broadcast_shapes(_shape(x), _shape(y))
    x_num, y_num = is_num(x), is_num(y)
    # A Python int that the tensor's integer type cannot hold (as signed or
    # unsigned bits) takes part in the promotion: x_i32 + 2**40 is int64.
    if x_num and not y_num and _int_overflows(x, yt):
        x_num = False
    if y_num and not x_num and _int_overflows(y, xt):
        y_num = False
    if xt.is_ptr() and not allow_lhs_ptr or yt.is_ptr() and not allow_rhs_ptr:
        raise _err(f"unsupported operand types for {op}: {xt!r} and {yt!r}")
    if xt.is_ptr() or yt.is_ptr():
        if xt.is_ptr() and yt.is_ptr():
            raise _err(f"unsupported operand types for {op}: two pointers")
        ptr, off = (x, y) if xt.is_ptr() else (y, x)
        if is_num(off):
            if not isinstance(off, int):
                raise _err(f"cannot offset a pointer by {off!r}")
            off = const(b, off, number_dtype(off) if not isinstance(off, bool)
                        else tl.int32, shape)
        else:
            if not off.dtype.is_int():
                raise _err(f"pointer offsets must be integers, got "
                           f"{off.dtype!r}")
            off = broadcast_to(off, shape, b)
        ptr = broadcast_to(ptr, shape, b)
        return (ptr, off) if xt.is_ptr() else (off, ptr)
    if arithmetic:
        ret = computation_type(xt, x_num, yt, y_num, div_or_mod)
        for v, n in ((x, is_num(x)), (y, is_num(y))):
            if n and isinstance(v, int) and v < 0 and ret.is_int_unsigned():
                raise _err(f"cannot perform {op} between an unsigned tensor "
                           f"and the negative scalar {v}")
        if ret.is_fp8() and op != "tl.where":
            raise _err(f"{op} on {ret!r} values is not supported: fp8 is "
                       "loaded, stored and converted; compute after "
                       ".to(tl.float16) or .to(tl.float32)")
    else:
        ret = None
    xs = _materialize(x, ret or xt, shape, b)
    ys = _materialize(y, ret or yt, shape, b)
    return xs, ys


def _binary(name, x, y, b, ty=None):
    ty = ty or x.type
    h = b.op(f"{name} {{0}}, {{1}} : {x.type.mlir}", [x.handle, y.handle],
             ty.mlir)
    return tl.tensor(h, ty)


def _with_scalar(ty, dt):
    return tl.block_type(dt, ty.shape) if ty.is_block() else dt


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------

def addptr(ptr, off, b):
    if not off.dtype.is_int():
        raise _err(f"pointer offsets must be integers, got {off.dtype!r}")
    bits = off.dtype.int_bitwidth
    if bits < 32:
        off = cast(off, tl.int32, b)
    elif bits == 32 and off.dtype.is_int_unsigned():
        off = cast(off, tl.int64, b)
    elif off.dtype.is_int_unsigned():
        off = cast(off, tl.int64, b)
    h = b.op(f"tile.addptr {{0}}, {{1}} : {ptr.type.mlir}, {off.type.mlir}",
             [ptr.handle, off.handle], ptr.type.mlir)
    return tl.tensor(h, ptr.type)


def add(x, y, b):
    x, y = binary_operands(x, y, b, "+", True, True)
    if y.dtype.is_ptr():
        x, y = y, x
    if x.dtype.is_ptr():
        return addptr(x, y, b)
    return _binary("arith.addf" if x.dtype.is_floating() else "arith.addi",
                   x, y, b)


def sub(x, y, b):
    x, y = binary_operands(x, y, b, "-", True, False)
    if x.dtype.is_ptr():
        return addptr(x, minus(y, b), b)
    return _binary("arith.subf" if x.dtype.is_floating() else "arith.subi",
                   x, y, b)


def mul(x, y, b):
    x, y = binary_operands(x, y, b, "*")
    return _binary("arith.mulf" if x.dtype.is_floating() else "arith.muli",
                   x, y, b)


def truediv(x, y, b, ieee_rounding=False):
    """x / y. As in Triton, an f32 quotient is the GPU's full-range
    approximate division (div.full.f32, within 2 ulp: `fastmath<arcp>` on
    the arith.divf) unless `ieee_rounding` asks for the correctly rounded
    one (tl.math.div_rn, tl.math.fdiv(ieee_rounding=True))."""
    x, y = binary_operands(x, y, b, "/", div_or_mod=True)
    if x.dtype.is_int():
        x, y = cast(x, tl.float32, b), cast(y, tl.float32, b)
    if x.dtype == tl.float32 and not ieee_rounding:
        h = b.op(f"arith.divf {{0}}, {{1}} fastmath<arcp> : {x.type.mlir}",
                 [x.handle, y.handle], x.type.mlir)
        return tl.tensor(h, x.type)
    return _binary("arith.divf", x, y, b)


def floordiv(x, y, b):
    x, y = binary_operands(x, y, b, "//", div_or_mod=True)
    if not x.dtype.is_int():
        raise _err(f"// needs integer operands, got {x.dtype!r} (use / for "
                   "floats)")
    return _binary("arith.divui" if x.dtype.is_int_unsigned() else
                   "arith.divsi", x, y, b)


def mod(x, y, b):
    x, y = binary_operands(x, y, b, "%", div_or_mod=True)
    if x.dtype.is_floating():
        return _binary("arith.remf", x, y, b)
    return _binary("arith.remui" if x.dtype.is_int_unsigned() else
                   "arith.remsi", x, y, b)


def cdiv(x, div, b):
    return floordiv(sub(add(x, div, b), 1, b), div, b)


def _int_operands(x, y, b, op):
    x, y = tl._unwrap(x), tl._unwrap(y)
    for v in (x, y):
        t = _scalar_ty(v) if (is_num(v) or isinstance(v, tl.tensor)) else None
        if t is None or not t.is_int():
            got = repr(t) if t is not None else type(v).__name__
            raise _err(f"{op} needs integer operands, got {got}")
    return binary_operands(x, y, b, op)


def and_(x, y, b):
    x, y = _int_operands(x, y, b, "&")
    return _binary("arith.andi", x, y, b)


def or_(x, y, b):
    x, y = _int_operands(x, y, b, "|")
    return _binary("arith.ori", x, y, b)


def xor_(x, y, b):
    x, y = _int_operands(x, y, b, "^")
    return _binary("arith.xori", x, y, b)


def shl(x, y, b):
    x, y = _int_operands(x, y, b, "<<")
    return _binary("arith.shli", x, y, b)


def shr(x, y, b):
    x, y = _int_operands(x, y, b, ">>")
    return _binary("arith.shrui" if x.dtype.is_int_unsigned() else
                   "arith.shrsi", x, y, b)


def minus(x, b):
    x = to_tensor(tl._unwrap(x), b)
    if x.dtype.is_ptr():
        raise _err("cannot negate a pointer")
    if x.dtype.is_floating():
        h = b.op(f"arith.negf {{0}} : {x.type.mlir}", [x.handle], x.type.mlir)
        return tl.tensor(h, x.type)
    return _binary("arith.subi", const(b, 0, x.dtype, x.shape), x, b)


def invert(x, b):
    x = to_tensor(tl._unwrap(x), b)
    if not x.dtype.is_int():
        raise _err(f"~ needs an integer operand, got {x.dtype!r}")
    ones = const(b, True if x.dtype.is_bool() else -1, x.dtype, x.shape) \
        if not x.dtype.is_int_unsigned() or x.dtype.is_bool() else \
        const(b, (1 << x.dtype.int_bitwidth) - 1, x.dtype, x.shape)
    return _binary("arith.xori", x, ones, b)


def to_bool(x, b):
    x = to_tensor(tl._unwrap(x), b)
    if x.dtype.is_bool():
        return x
    return cast(x, tl.int1, b)


def not_(x, b):
    x = to_bool(x, b)
    return _binary("arith.xori", x, const(b, True, tl.int1, x.shape), b)


def logical_and(x, y, b):
    x, y = broadcast_values(to_bool(x, b), to_bool(y, b), b)
    return _binary("arith.andi", x, y, b)


def logical_or(x, y, b):
    x, y = broadcast_values(to_bool(x, b), to_bool(y, b), b)
    return _binary("arith.ori", x, y, b)


_CMP = {  # op: (float predicate, signed, unsigned)
    "<": ("olt", "slt", "ult"), ">": ("ogt", "sgt", "ugt"),
    "<=": ("ole", "sle", "ule"), ">=": ("oge", "sge", "uge"),
    "==": ("oeq", "eq", "eq"), "!=": ("une", "ne", "ne"),
}


def compare(op, x, y, b):
    x, y = binary_operands(x, y, b, op)
    f, s, u = _CMP[op]
    ty = _with_scalar(x.type, tl.int1)
    if x.dtype.is_floating():
        name, pred = "arith.cmpf", f
    else:
        name, pred = "arith.cmpi", u if x.dtype.is_int_unsigned() else s
    h = b.op(f"{name} {pred}, {{0}}, {{1}} : {x.type.mlir}",
             [x.handle, y.handle], ty.mlir)
    return tl.tensor(h, ty)


def pow(x, y, b):
    x, y = tl._unwrap(x), tl._unwrap(y)
    if isinstance(y, int) and not isinstance(y, bool) and 0 <= y <= 64:
        x = to_tensor(x, b)
        result, base, n = None, x, y
        if n == 0:
            return const(b, 1, x.dtype, x.shape)
        while n:
            if n & 1:
                result = base if result is None else mul(result, base, b)
            n >>= 1
            if n:
                base = mul(base, base, b)
        return result
    x, y = binary_operands(x, y, b, "**")
    if not x.dtype.is_floating():
        raise _err("** with a run-time or negative exponent needs floats")
    # x ** y = exp2(y * log2(x)), for x > 0 (as an approximate pow).
    return math_unary("exp2", mul(y, math_unary("log2", x, b), b), b)


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------

def cast(x, dst, b, bitcast=False):
    x, dst = tl._unwrap(x), tl._unwrap(dst)
    if not isinstance(dst, tl.dtype) or isinstance(dst, tl.block_type):
        raise _err(f"expected a dtype to convert to, got {dst!r}")
    if is_num(x):
        return const(b, x, dst)
    src = x.dtype
    if src == dst:
        return x
    dst_ty = _with_scalar(x.type, dst)
    if (dst.is_fp8() or src.is_fp8()) and not bitcast:
        return _cast_fp8(x, src, dst, b)
    if src.is_ptr() or dst.is_ptr():
        raise _err(f"cannot convert {src!r} to {dst!r}: pointer casts are "
                   "not supported")

    def conv(name, v, to):
        h = b.op(f"{name} {{0}} : {v.type.mlir} to {to.mlir}", [v.handle],
                 to.mlir)
        return tl.tensor(h, to)

    if bitcast:
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise _err(f"cannot bitcast {src!r} to {dst!r}: widths differ")
        if src.mlir == dst.mlir:
            return tl.tensor(x.handle, dst_ty)
        return conv("arith.bitcast", x, dst_ty)
    if src.is_floating() and dst.is_floating():
        if src.is_fp16() and dst.is_bf16() or src.is_bf16() and dst.is_fp16():
            x = conv("arith.extf", x, _with_scalar(x.type, tl.float32))
            return conv("arith.truncf", x, dst_ty)
        return conv("arith.extf" if dst.primitive_bitwidth >
                    src.primitive_bitwidth else "arith.truncf", x, dst_ty)
    if src.is_int() and dst.is_int():
        if dst.is_bool():
            return compare("!=", x, 0, b)
        if src.mlir == dst.mlir:
            return tl.tensor(x.handle, dst_ty)  # signedness only
        if dst.int_bitwidth < src.int_bitwidth:
            return conv("arith.trunci", x, dst_ty)
        return conv("arith.extsi" if src.is_int_signed() else "arith.extui",
                    x, dst_ty)
    if src.is_floating() and dst.is_int():
        if dst.is_bool():
            return compare("!=", x, 0.0, b)
        return conv("arith.fptoui" if dst.is_int_unsigned() else
                    "arith.fptosi", x, dst_ty)
    if src.is_int() and dst.is_floating():
        return conv("arith.sitofp" if src.is_int_signed() else "arith.uitofp",
                    x, dst_ty)
    raise _err(f"cannot convert {src!r} to {dst!r}")


def _cast_fp8(x, src, dst, b):
    """Conversions from and to fp8. The GPU converts fp8 to and from f16,
    bf16 and f32 (cvt.rn.satfinite: values past the largest finite one
    saturate); anything else goes through f32, and fp8 to fp8 through f16,
    which holds both fp8 formats exactly."""
    direct = (tl.float16, tl.bfloat16, tl.float32)
    if src.is_fp8() and dst.is_fp8():
        return cast(cast(x, tl.float16, b), dst, b)
    if src.is_fp8() and dst not in direct:
        return cast(cast(x, tl.float32, b), dst, b)
    if dst.is_fp8() and src not in direct:
        return cast(cast(x, tl.float32, b), dst, b)
    name = "arith.extf" if src.is_fp8() else "arith.truncf"
    to = _with_scalar(x.type, dst)
    h = b.op(f"{name} {{0}} : {x.type.mlir} to {to.mlir}", [x.handle], to.mlir)
    return tl.tensor(h, to)


# ---------------------------------------------------------------------------
# Elementwise builtins
# ---------------------------------------------------------------------------

def where(cond, x, y, b):
    cond = to_bool(cond, b)
    xt, yt = _scalar_ty(x), _scalar_ty(y)
    if xt.is_ptr() or yt.is_ptr():
        if xt != yt:
            raise _err(f"tl.where of {xt!r} and {yt!r}")
        shape = broadcast_shapes(broadcast_shapes(cond.shape, x.shape),
                                 y.shape)
        x, y = broadcast_to(x, shape, b), broadcast_to(y, shape, b)
    else:
        x, y = binary_operands(x, y, b, "tl.where")
        shape = broadcast_shapes(cond.shape, x.shape)
        x, y = broadcast_to(x, shape, b), broadcast_to(y, shape, b)
    cond = broadcast_to(cond, shape, b)
    if cond.type.is_block():
        text = f"arith.select {{0}}, {{1}}, {{2}} : {cond.type.mlir}, " \
               f"{x.type.mlir}"
    else:
        text = f"arith.select {{0}}, {{1}}, {{2}} : {x.type.mlir}"
    h = b.op(text, [cond.handle, x.handle, y.handle], x.type.mlir)
    return tl.tensor(h, x.type)


# How propagate_nan may be spelled (tl.PropagateNan's members, their names
# and Triton's enum values).
_NAN_ALL = ("ALL", "PropagateNan.ALL", "1")
_NAN_NONE = ("NONE", "PropagateNan.NONE", "0")


def _minmax(kind, x, y, propagate_nan, b):
    x, y = binary_operands(x, y, b, f"tl.{kind}imum")
    nan = None if propagate_nan is None else str(propagate_nan)
    if nan is not None and nan not in _NAN_ALL + _NAN_NONE:
        raise _err(f"tl.{kind}imum: propagate_nan must be "
                   f"tl.PropagateNan.NONE or .ALL, got {propagate_nan!r}")
    if x.dtype.is_floating():
        nan_all = nan in _NAN_ALL
        name = f"arith.{kind}imumf" if nan_all else f"arith.{kind}numf"
    else:
        name = f"arith.{kind}{'ui' if x.dtype.is_int_unsigned() else 'si'}"
    return _binary(name, x, y, b)


def maximum(x, y, propagate_nan, b):
    return _minmax("max", x, y, propagate_nan, b)


def minimum(x, y, propagate_nan, b):
    return _minmax("min", x, y, propagate_nan, b)


def clamp(x, lo, hi, propagate_nan, b):
    return minimum(maximum(x, lo, propagate_nan, b), hi, propagate_nan, b)


def _float_input(name, x, b):
    x = tl._unwrap(x)
    if is_num(x):
        x = const(b, float(x), tl.float32)
    if not isinstance(x, tl.tensor):
        raise _err(f"tl.{name} needs a tensor, got {type(x).__name__}")
    if not x.dtype.is_floating():
        raise _err(f"tl.{name} needs a floating-point tensor, got "
                   f"{x.dtype!r}")
    return x


_MATH = {"exp": "math.exp", "exp2": "math.exp2", "log": "math.log",
         "log2": "math.log2", "sqrt": "math.sqrt", "sqrt_rn": "math.sqrt",
         "rsqrt": "math.rsqrt", "sin": "math.sin", "cos": "math.cos",
         "tanh": "math.tanh", "floor": "math.floor", "ceil": "math.ceil",
         "erf": "math.erf"}


def math_unary(name, x, b):
    if name == "abs":
        x = to_tensor(tl._unwrap(x), b)
        if x.dtype.is_int_unsigned():
            return x
        op = "math.absf" if x.dtype.is_floating() else "math.absi"
        h = b.op(f"{op} {{0}} : {x.type.mlir}", [x.handle], x.type.mlir)
        return tl.tensor(h, x.type)
    x = _float_input(name, x, b)
    if name == "sigmoid":
        one = 1.0
        return truediv(one, add(one, math_unary("exp", minus(x, b), b), b), b)
    src = x.dtype
    if src.is_fp16() or src.is_bf16():
        x = cast(x, tl.float32, b)
    h = b.op(f"{_MATH[name]} {{0}} : {x.type.mlir}", [x.handle], x.type.mlir)
    y = tl.tensor(h, x.type)
    return cast(y, src, b)


def fma(x, y, z, b):
    x, y = binary_operands(x, y, b, "tl.fma")
    x, z = binary_operands(x, z, b, "tl.fma")
    x, y = broadcast_values(x, cast(y, x.dtype, b), b)
    if not x.dtype.is_floating():
        raise _err("tl.fma needs floating-point operands")
    h = b.op(f"math.fma {{0}}, {{1}}, {{2}} : {x.type.mlir}",
             [x.handle, y.handle, z.handle], x.type.mlir)
    return tl.tensor(h, x.type)


def umulhi(x, y, b):
    x, y = _int_operands(x, y, b, "tl.umulhi")
    if x.dtype.int_bitwidth != 32:
        raise _err("tl.umulhi needs 32-bit integers")
    wide = _with_scalar(x.type, tl.uint64)
    p = mul(cast(tl.tensor(x.handle, _with_scalar(x.type, tl.uint32)),
                 tl.uint64, b),
            cast(tl.tensor(y.handle, _with_scalar(y.type, tl.uint32)),
                 tl.uint64, b), b)
    hi = shr(p, const(b, 32, tl.uint64, p.shape), b)
    assert hi.type == wide
    return cast(cast(hi, tl.uint32, b), x.dtype, b)


# ---------------------------------------------------------------------------
# Program, ranges, constants
# ---------------------------------------------------------------------------

def _axis(axis, what):
    if not isinstance(axis, int) or isinstance(axis, bool) or \
            axis not in (0, 1, 2):
        raise _err(f"{what} axis must be 0, 1 or 2, got {axis!r}")
    return "xyz"[axis]


def program_id(axis, b):
    return tl.tensor(b.op(f"tile.program_id {_axis(axis, 'program_id')}", [],
                          "i32"), tl.int32)


def num_programs(axis, b):
    return tl.tensor(b.op(f"tile.num_programs {_axis(axis, 'num_programs')}",
                          [], "i32"), tl.int32)


def arange(start, end, b):
    for v in (start, end):
        if isinstance(v, tl.tensor):
            raise _err("tl.arange needs constexpr bounds, got a run-time "
                       "value")
        if not isinstance(v, int) or isinstance(v, bool):
            raise _err(f"tl.arange bounds must be ints, got {v!r}")
    if end <= start:
        raise _err(f"tl.arange({start}, {end}): end must be greater than "
                   "start")
    n = end - start
    if n & (n - 1):
        raise _err(f"tl.arange({start}, {end}): the length {n} must be a "
                   "power of two")
    if not (-2**31 <= start and end < 2**31):
        raise _err(f"tl.arange({start}, {end}) exceeds int32 (tile.range "
                   "holds its bounds as i32)")
    ty = tl.block_type(tl.int32, [n])
    return tl.tensor(b.op(f"tile.range {start}, {end} : {ty.mlir}", [],
                          ty.mlir), ty)


def full(shape, value, dt, b):
    if not isinstance(dt, tl.dtype) or isinstance(dt, tl.block_type):
        raise _err(f"expected a dtype, got {dt!r}")
    _check_pow2_shape(shape, "tl.full")
    value = tl._unwrap(value)
    if is_num(value):
        return const(b, value, dt, shape or None)
    if not isinstance(value, tl.tensor) or value.type.is_block():
        raise _err("tl.full needs a constant or a scalar value")
    return broadcast_to(cast(value, dt, b), shape, b)


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

def _check_ptr(ptr, what):
    ptr = tl._unwrap(ptr)
    if isinstance(ptr, tuple):
        raise _err(f"{what}: block pointers are not supported")
    if not isinstance(ptr, tl.tensor) or not ptr.dtype.is_ptr():
        t = ptr.dtype if isinstance(ptr, tl.tensor) else type(ptr).__name__
        raise _err(f"{what} needs a pointer (or a tensor of pointers), got "
                   f"{t!r}")
    return ptr


def int_scalar(v, dt, what, b, bool_ok=False):
    """An int or integer scalar tensor `v` (`what` in messages) converted
    to `dt`; int1 scalars pass only with `bool_ok`."""
    v = tl._unwrap(v)
    if isinstance(v, tl.tensor):
        if v.type.is_block():
            raise _err(f"{what} must be a scalar")
        if not v.dtype.is_int() or (v.dtype.is_bool() and not bool_ok):
            raise _err(f"{what} must be an integer, got {v.type!r}")
        return cast(v, dt, b)
    if not isinstance(v, int) or isinstance(v, bool):
        raise _err(f"{what} must be an integer, got {v!r}")
    return const(b, v, dt)


# ---------------------------------------------------------------------------
# Tensor descriptors
# ---------------------------------------------------------------------------

def check_block_shape(block_shape, elt_bits, what):
    """The rules a descriptor's block follows (Triton's, which TMA sets):
    1 to 5 dimensions, each a power of two of at most 256, and at least 16
    bytes along the last one. Returns the shape as a list of ints."""
    shape = [tl._unwrap(d) for d in tl._unwrap(block_shape)]
    if not 1 <= len(shape) <= 5:
        raise _err(f"{what}: block_shape must have 1 to 5 dimensions, got "
                   f"{len(shape)}")
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, int) or d < 1 or \
                d & (d - 1) or d > 256:
            raise _err(f"{what}: block_shape {shape} must be powers of two "
                       "of at most 256")
    if shape[-1] * elt_bits < 128:
        raise _err(f"{what}: the block's last dimension must hold at least "
                   f"16 bytes, got {shape[-1]} x {elt_bits // 8}")
    return shape


def make_tensor_descriptor(base, shape, strides, block_shape, padding, b):
    what = "tl.make_tensor_descriptor"
    base = _check_ptr(base, what)
    if base.type.is_block():
        raise _err(f"{what}: base must be a scalar pointer, got a block of "
                   "pointers")
    elt = base.dtype.element_ty
    if elt.is_bool() or elt.primitive_bitwidth < 8:
        raise _err(f"{what}: elements of {elt!r} are not supported")
    shape, strides = list(tl._unwrap(shape)), list(tl._unwrap(strides))
    bshape = check_block_shape(block_shape, elt.primitive_bitwidth, what)
    rank = len(bshape)
    if len(shape) != rank or len(strides) != rank:
        raise _err(f"{what}: shape and strides need {rank} entries (one per "
                   f"block dimension), got {len(shape)} and {len(strides)}")
    last = tl._unwrap(strides[-1])
    if isinstance(last, tl.tensor) or isinstance(last, bool) or last != 1:
        raise _err(f"{what}: the last stride must be the constant 1 (the "
                   f"block's rows are contiguous), got {strides[-1]!r}")
    padding = tl._unwrap(padding)
    if padding not in ("zero", "nan"):
        raise _err(f"{what}: padding_option must be 'zero' or 'nan', got "
                   f"{padding!r}")
    if padding == "nan" and not elt.is_floating():
        raise _err(f"{what}: 'nan' padding needs floating-point elements, "
                   f"got {elt!r}")

    sizes = [int_scalar(v, tl.int32, f"{what}: shape[{i}]", b)
             for i, v in enumerate(shape)]
    steps = [int_scalar(v, tl.int64, f"{what}: strides[{i}]", b)
             for i, v in enumerate(strides)]
    return _descriptor(base, sizes, steps, bshape, padding, b)


def _descriptor(base, sizes, steps, bshape, padding, b, tensormap=None):
    """tile.make_descriptor of scalar tensors (i32 sizes, i64 steps), with
    the host-encoded tensor map `tensormap` (a !tile.tensormap argument)
    when TMA may read it."""
    block = tl.block_type(base.dtype.element_ty, bshape)
    n = len(bshape)
    shape_ops = ", ".join(f"{{{1 + i}}}" for i in range(n))
    stride_ops = ", ".join(f"{{{1 + n + i}}}" for i in range(n))
    operands = [base.handle] + [s.handle for s in sizes] + \
        [s.handle for s in steps]
    tm = ""
    if tensormap is not None:
        tm = f", tensormap {{{1 + 2 * n}}}"
        operands.append(tensormap)
    attrs = " {{nan_padding}}" if padding == "nan" else ""
    ty = f"!tile.tensordesc<{block.mlir}>"
    h = b.op(f"tile.make_descriptor {{0}}, shape [{shape_ops}], strides "
             f"[{stride_ops}]{tm}{attrs} : {base.type.mlir} -> {ty}",
             operands, ty)
    return tl.tensor_descriptor(h, base, sizes, steps, block, tensormap)


def _descriptor_offsets(desc, offsets, what, b):
    offsets = list(tl._unwrap(offsets)) if isinstance(
        tl._unwrap(offsets), (list, tuple)) else None
    if offsets is None or len(offsets) != len(desc.block_shape):
        raise _err(f"{what}: offsets must be a list of "
                   f"{len(desc.block_shape)} integers, one per dimension")
    return [int_scalar(o, tl.int32, f"{what}: offsets[{i}]", b)
            for i, o in enumerate(offsets)]


def descriptor_load(desc, offsets, b):
    offs = _descriptor_offsets(desc, offsets, "tensor descriptor load", b)
    ops = ", ".join(f"{{{1 + i}}}" for i in range(len(offs)))
    h = b.op(f"tile.descriptor_load {{0}}[{ops}] : {desc.type_mlir} -> "
             f"{desc.block_type.mlir}", [desc.handle] +
             [o.handle for o in offs], desc.block_type.mlir)
    return tl.tensor(h, desc.block_type)


def descriptor_store(desc, offsets, value, b):
    what = "tensor descriptor store"
    offs = _descriptor_offsets(desc, offsets, what, b)
    value = tl._unwrap(value)
    if isinstance(value, tl.tensor) and value.type.is_block() and \
            value.shape != desc.block_shape:
        raise _err(f"{what}: the value's shape {value.shape} is not the "
                   f"block's {desc.block_shape}")
    value = _materialize(value, desc.dtype, desc.block_shape, b)
    ops = ", ".join(f"{{{1 + i}}}" for i in range(len(offs)))
    b.op(f"tile.descriptor_store {{0}}[{ops}], {{{1 + len(offs)}}} : "
         f"{desc.type_mlir}, {desc.block_type.mlir}",
         [desc.handle] + [o.handle for o in offs] + [value.handle])
    return None


def _mask(mask, ptr, what, b):
    mask = tl._unwrap(mask)
    if isinstance(mask, bool):
        mask = const(b, mask, tl.int1)
    if not isinstance(mask, tl.tensor) or not mask.dtype.is_bool():
        t = mask.dtype if isinstance(mask, tl.tensor) else type(mask).__name__
        raise _err(f"{what}: mask must be a boolean tensor, got {t!r}")
    if mask.type.is_block() and not ptr.type.is_block():
        raise _err(f"{what}: the mask is a block but the pointer is a "
                   "scalar")
    return mask


def load(ptr, mask, other, b):
    ptr = _check_ptr(ptr, "tl.load")
    elt = ptr.dtype.element_ty
    if mask is not None:
        mask = _mask(mask, ptr, "tl.load", b)
        shape = broadcast_shapes(ptr.shape, mask.shape)
        ptr, mask = broadcast_to(ptr, shape, b), broadcast_to(mask, shape, b)
    operands = [ptr.handle]
    text = "tile.load {0}"
    if mask is not None:
        operands.append(mask.handle)
        text += ", {1}"
        if other is not None:
            other = _materialize(other, elt, ptr.shape, b)
            operands.append(other.handle)
            text += ", {2}"
    ty = _with_scalar(ptr.type, elt)
    h = b.op(text + f" : {ptr.type.mlir}", operands, ty.mlir)
    return tl.tensor(h, ty)


def store(ptr, value, mask, b):
    ptr = _check_ptr(ptr, "tl.store")
    elt = ptr.dtype.element_ty
    if not (is_num(value) or isinstance(value, tl.tensor)):
        raise _err(f"tl.store: expected a tensor or a number, got "
                   f"{type(value).__name__}")
    if _shape(value) and not ptr.type.is_block():
        raise _err("tl.store: the value is a block but the pointer is a "
                   "scalar")
    shape = broadcast_shapes(ptr.shape, _shape(value))
    if mask is not None:
        mask = _mask(mask, ptr, "tl.store", b)
        shape = broadcast_shapes(shape, mask.shape)
        mask = broadcast_to(mask, shape, b)
    ptr = broadcast_to(ptr, shape, b)
    value = _materialize(value, elt, shape, b)
    operands = [ptr.handle, value.handle]
    text = "tile.store {0}, {1}"
    if mask is not None:
        operands.append(mask.handle)
        text += ", {2}"
    b.op(text + f" : {ptr.type.mlir}", operands)
    return None


_SEMS = ("acq_rel", "acquire", "release", "relaxed")
_SCOPES = ("gpu", "cta", "sys")


def _sem_scope(sem, scope, what):
    sem = "acq_rel" if sem is None else sem
    scope = "gpu" if scope is None else scope
    if sem not in _SEMS:
        raise _err(f"{what}: sem must be one of {', '.join(map(repr, _SEMS))}, "
                   f"got {sem!r}")
    if scope not in _SCOPES:
        raise _err(f"{what}: scope must be one of "
                   f"{', '.join(map(repr, _SCOPES))}, got {scope!r}")
    text = "" if sem == "acq_rel" else f" sem({sem})"
    return text + ("" if scope == "gpu" else f" scope({scope})")


# The float widths each atomic takes besides 32- and 64-bit integers.
_ATOMIC_FLOAT_BITS = {"add": (32, 64), "xchg": (32, 64), "cas": (32, 64),
                      "max": (32,), "min": (32,)}


def _atomic_element(ptr, kind, what):
    elt = ptr.dtype.element_ty
    if elt.is_floating():
        ok = elt.primitive_bitwidth in (32, 64) and not elt.is_fp8()
    else:
        ok = elt.is_int() and elt.int_bitwidth in (32, 64)
    if not ok:
        raise _err(f"{what} of {elt!r} is not supported: atomics take 32- "
                   f"and 64-bit integers, float32 and float64")
    floats = _ATOMIC_FLOAT_BITS.get(kind, ())
    if elt.is_floating() and elt.primitive_bitwidth not in floats:
        raise _err(f"{what} of {elt!r} is not supported: it takes integers"
                   + (" and float32" if floats == (32,) else ""))
    return elt


def _atomic_operands(ptr, values, mask, what, b):
    """`ptr`, each of `values` (cast to the pointee type) and `mask`
    broadcast to one shape."""
    elt = ptr.dtype.element_ty
    shape = list(ptr.shape)
    for v in values:
        if _shape(v) and not ptr.type.is_block():
            raise _err(f"{what}: the value is a block but the pointer is a "
                       "scalar")
        shape = broadcast_shapes(shape, _shape(v))
    if mask is not None:
        mask = _mask(mask, ptr, what, b)
        shape = broadcast_shapes(shape, mask.shape)
        mask = broadcast_to(mask, shape, b)
    ptr = broadcast_to(ptr, shape, b)
    values = [_materialize(v, elt, shape, b) for v in values]
    return ptr, values, mask


def atomic_rmw(kind, ptr, val, mask, sem, scope, b):
    what = f"tl.atomic_{kind}"
    ptr = _check_ptr(ptr, what)
    elt = _atomic_element(ptr, kind, what)
    suffix = _sem_scope(sem, scope, what)
    ptr, (val,), mask = _atomic_operands(ptr, [val], mask, what, b)
    op = kind
    if kind in ("max", "min") and elt.is_int_unsigned():
        op = "u" + kind
    operands = [ptr.handle, val.handle]
    text = f"tile.atomic_rmw {op}, {{0}}, {{1}}"
    if mask is not None:
        operands.append(mask.handle)
        text += ", {2}"
    h = b.op(text + suffix + f" : {ptr.type.mlir}", operands, val.type.mlir)
    return tl.tensor(h, val.type)


def atomic_cas(ptr, cmp, val, sem, scope, b):
    what = "tl.atomic_cas"
    ptr = _check_ptr(ptr, what)
    _atomic_element(ptr, "cas", what)
    suffix = _sem_scope(sem, scope, what)
    ptr, (cmp, val), _ = _atomic_operands(ptr, [cmp, val], None, what, b)
    h = b.op(f"tile.atomic_cas {{0}}, {{1}}, {{2}}{suffix} : {ptr.type.mlir}",
             [ptr.handle, cmp.handle, val.handle], val.type.mlir)
    return tl.tensor(h, val.type)


def paged_load(cache, block_table, first_token, head, shape, page_size,
               strides, bound, cols, num_blocks, b):
    tensormap = None
    if isinstance(cache, tl.tensor_descriptor):
        cache, strides, tensormap = _paged_descriptor(cache, shape, page_size,
                                                      strides)
    cache = _check_ptr(cache, "tl.paged_load cache")
    bt = _check_ptr(block_table, "tl.paged_load block_table")
    if cache.type.is_block() or bt.type.is_block():
        raise _err("tl.paged_load takes scalar pointers to the cache and to "
                   "the block-table row")
    if bt.dtype.element_ty.mlir != "i32":
        raise _err(f"tl.paged_load: block-table entries must be int32, got "
                   f"{bt.dtype.element_ty!r}")
    if len(shape) != 2:
        raise _err(f"tl.paged_load: block_shape must be (BLOCK_N, D), got "
                   f"{shape}")
    _check_pow2_shape(shape, "tl.paged_load")
    if not isinstance(page_size, int) or isinstance(page_size, bool) or \
            page_size < 1:
        raise _err(f"tl.paged_load: page_size must be a positive constexpr "
                   f"int, got {page_size!r}")
    if not isinstance(strides, (tuple, list)) or len(strides) != 3:
        raise _err("tl.paged_load: strides must be (page_stride, "
                   "token_stride, head_stride)")

    def scalar(v, dt, what):
        return int_scalar(v, dt, f"tl.paged_load: {what}", b, bool_ok=True)

    ft = scalar(first_token, tl.int32, "first_token")
    hd = scalar(head, tl.int32, "head")
    st = [scalar(s, tl.int64, n) for s, n in
          zip(strides, ("page_stride", "token_stride", "head_stride"))]
    bd = scalar(bound, tl.int32, "bound")
    nb = None if num_blocks is None else scalar(num_blocks, tl.int32,
                                                "num_blocks")
    attrs = {"page_size": f"{page_size} : i32"}
    if cols is not None:
        if not isinstance(cols, int) or not 1 <= cols <= shape[1]:
            raise _err(f"tl.paged_load: cols must be an int in [1, "
                       f"{shape[1]}], got {cols!r}")
        attrs["cols"] = f"{cols} : i32"
    ty = tl.block_type(cache.dtype.element_ty, shape)
    tail = f" strides({st[0].handle}, {st[1].handle}, {st[2].handle}) " \
           f"bound {bd.handle}"
    if nb is not None:
        tail += f" num_blocks {nb.handle}"
    if tensormap is not None:
        tail += f" tensormap {tensormap}"
    h = b.op_parts([f"tile.paged_load {cache.handle}[{bt.handle}, "
                    f"{ft.handle}, {hd.handle}]", tail + f" : {ty.mlir}"],
                   ty.mlir, attr_pos=1)
    h.owner.attrs.update(attrs)
    return tl.tensor(h, ty)


def _paged_descriptor(desc, shape, page_size, strides):
    """(base, strides, tensor map or None) of a paged load through a
    descriptor of the cache: 4-D [num_blocks, page_size, heads, D] read in
    blocks of [1, R, 1, BLOCK_D], R = min(page_size, BLOCK_N) tokens (the
    box a TMA copy of one page's rows takes)."""
    what = "tl.paged_load"
    if strides is not None:
        raise _err(f"{what}: the strides of a cache passed as a tensor "
                   "descriptor are the descriptor's; pass strides=None")
    if len(desc.block_shape) != 4:
        raise _err(f"{what}: a cache descriptor must be 4-D [num_blocks, "
                   f"page_size, heads, D], got {len(desc.block_shape)}-D")
    if len(shape) == 2 and isinstance(page_size, int) and \
            not isinstance(page_size, bool) and page_size >= 1:
        want = [1, min(page_size, shape[0]), 1, shape[1]]
        if list(desc.block_shape) != want:
            raise _err(f"{what}: a cache descriptor for ({shape[0]}, "
                       f"{shape[1]}) tiles of pages of {page_size} tokens "
                       f"needs block_shape {want}, got {desc.block_shape}")
    return desc.base, desc.strides[:3], desc.tensormap


# ---------------------------------------------------------------------------
# Dot, transpose, reductions
# ---------------------------------------------------------------------------

def dot(x, y, acc, out_dtype, b):
    for v, n in ((x, "first"), (y, "second")):
        if not isinstance(v, tl.tensor) or len(v.shape) != 2:
            raise _err(f"tl.dot: the {n} operand must be a 2-D tensor, got "
                       f"{getattr(v, 'shape', type(v).__name__)}")
    if x.dtype.is_fp8() or y.dtype.is_fp8():
        # Both fp8 formats are exact in f16 and bf16, so the product of the
        # converted tiles, accumulated in f32, is what an fp8 MMA computes.
        other = y.dtype if x.dtype.is_fp8() else x.dtype
        to = other if other in (tl.bfloat16, tl.float32) else tl.float16
        x, y = cast(x, to, b), cast(y, to, b)
    if x.dtype != y.dtype:
        raise _err(f"tl.dot: operands must have the same dtype, got "
                   f"{x.dtype!r} and {y.dtype!r}")
    if x.dtype.name not in ("fp16", "bf16", "fp32"):
        raise _err(f"tl.dot: operands must be float16, bfloat16 or float32, "
                   f"got {x.dtype!r}")
    if x.shape[1] != y.shape[0]:
        raise _err(f"tl.dot: inner dimensions differ: {x.shape} @ {y.shape}")
    if out_dtype not in (tl.float32, tl.float16, tl.bfloat16):
        raise _err(f"tl.dot: out_dtype must be float32, float16 or bfloat16, "
                   f"got {out_dtype!r}")
    shape = [x.shape[0], y.shape[1]]
    f32 = tl.block_type(tl.float32, shape)
    if acc is None:
        c = const(b, 0.0, tl.float32, shape)
    else:
        if not isinstance(acc, tl.tensor) or acc.shape != shape:
            raise _err(f"tl.dot: acc must be a {shape} tensor, got "
                       f"{getattr(acc, 'shape', type(acc).__name__)}")
        if not acc.dtype.is_floating():
            raise _err(f"tl.dot: acc must be floating point, got "
                       f"{acc.dtype!r}")
        c = cast(acc, tl.float32, b)
    h = b.op(f"tile.dot {{0}}, {{1}}, {{2}} : {x.type.mlir} * {y.type.mlir} "
             f"-> {f32.mlir}", [x.handle, y.handle, c.handle], f32.mlir)
    d = tl.tensor(h, f32)
    result_dt = acc.dtype if acc is not None and out_dtype == tl.float32 \
        else out_dtype
    return cast(d, result_dt, b)


def trans(x, dims, b):
    x = tl._unwrap(x)
    if not isinstance(x, tl.tensor) or len(x.shape) < 2:
        raise _err("tl.trans needs a tensor of rank 2 or more")
    rank = len(x.shape)
    perm = list(range(rank))[::-1] if dims is None else list(dims)
    if sorted(perm) != list(range(rank)):
        raise _err(f"tl.trans: {perm} is not a permutation of "
                   f"{list(range(rank))}")
    shape = [x.shape[p] for p in perm]
    ty = tl.block_type(x.dtype, shape)
    if perm == list(range(rank)):
        return x
    attrs = None if perm == list(range(rank))[::-1] else \
        {"order": f"array<i32: {', '.join(map(str, perm))}>"}
    h = b.op(f"tile.trans {{0}} : {x.type.mlir} -> {ty.mlir}", [x.handle],
             ty.mlir, attrs=attrs)
    return tl.tensor(h, ty)


def _norm_axis(axis, rank, what):
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise _err(f"{what}: axis must be a constexpr int, got {axis!r}")
    if not -rank <= axis < rank:
        raise _err(f"{what}: axis {axis} is out of range for a rank-{rank} "
                   "tensor")
    return axis + rank if axis < 0 else axis


def reduce(kind, x, axis, b):
    """tile.reduce of one axis; unsigned max/min through the signed ones."""
    dt = x.dtype
    if dt.is_bool():
        r = reduce(kind, cast(x, tl.int32, b), axis, b)
        return r if kind == "sum" else cast(r, tl.int1, b)
    flip = dt.is_int_unsigned() and kind in ("max", "min")
    if flip:
        sign = const(b, 1 << (dt.int_bitwidth - 1), dt, x.shape)
        x = _binary("arith.xori", x, sign, b)
    shape = list(x.shape)
    del shape[axis]
    ty = tl.block_type(dt, shape) if shape else dt
    h = b.op(f"tile.reduce {kind} {{0}} : {x.type.mlir} -> {ty.mlir}",
             [x.handle], ty.mlir, attrs={"axis": f"{axis} : i32"})
    r = tl.tensor(h, ty)
    if flip:
        r = _binary("arith.xori", r, const(b, 1 << (dt.int_bitwidth - 1), dt,
                                           r.shape or None), b)
    return r


def _reduce_input(x, what):
    x = tl._unwrap(x)
    if not isinstance(x, tl.tensor) or not x.type.is_block():
        raise _err(f"{what} needs a block tensor, got "
                   f"{getattr(x, 'type', type(x).__name__)!r}")
    if x.dtype.is_ptr():
        raise _err(f"{what} of pointers")
    return x


def reduce_named(kind, x, axis, keep_dims, dt, return_indices, b):
    what = f"tl.{kind}"
    x = _reduce_input(x, what)
    if kind == "sum":
        if dt is not None:
            x = cast(x, dt, b)
        elif x.dtype.is_int() and x.dtype.int_bitwidth < 32:
            x = cast(x, tl.uint32 if x.dtype.is_int_unsigned() and
                     not x.dtype.is_bool() else tl.int32, b)
    if return_indices:
        if kind == "sum":
            raise _err("tl.sum has no return_indices")
        return (reduce_named(kind, x, axis, keep_dims, None, False, b),
                argminmax(kind, x, axis, keep_dims, b))
    rank = len(x.shape)
    if axis is None:
        axes = list(range(rank))
    else:
        axes = [_norm_axis(axis, rank, what)]
    for a in sorted(axes, reverse=True):
        x = reduce(kind, x, a, b)
    if keep_dims:
        for a in sorted(axes):
            x = expand_dims(x, a, b)
    return x


def argminmax(kind, x, axis, keep_dims, b):
    what = f"tl.arg{kind}"
    x = _reduce_input(x, what)
    rank = len(x.shape)
    m = reduce_named(kind, x, axis, True, None, False, b)
    hit = compare("==", x, m, b)
    if x.dtype.is_floating():
        # max/min propagate NaN: then the first NaN is the extremum (as
        # numpy's argmax), not a sentinel index.
        hit = logical_or(hit, logical_and(compare("!=", x, x, b),
                                          compare("!=", m, m, b), b), b)
    if axis is None:
        idx = None
        stride = 1
        for d in reversed(range(rank)):
            r = arange(0, x.shape[d], b)
            for _ in range(rank - 1 - d):
                r = expand_dims(r, 1, b)
            r = mul(r, stride, b) if stride != 1 else r
            idx = r if idx is None else add(idx, r, b)
            stride *= x.shape[d]
    else:
        a = _norm_axis(axis, rank, what)
        idx = arange(0, x.shape[a], b)
        for _ in range(rank - 1 - a):
            idx = expand_dims(idx, 1, b)
    idx = broadcast_to(idx, x.shape, b)
    cand = where(hit, idx, 2**31 - 1, b)
    return reduce_named("min", cand, axis, keep_dims, None, False, b)


def softmax(x, dim, keep_dims, b, ieee_rounding=False):
    x = _reduce_input(x, "tl.softmax")
    dim = len(x.shape) - 1 if dim is None else dim
    z = sub(x, reduce_named("max", x, dim, True, None, False, b), b)
    num = math_unary("exp", z, b)
    den = reduce_named("sum", num, dim, True, None, False, b)
    return truediv(num, den, b, ieee_rounding)


# ---------------------------------------------------------------------------
# Checks, hints, barriers
# ---------------------------------------------------------------------------

def device_assert(cond, msg, b):
    if not b.debug:
        return None
    if is_num(cond):
        if cond:
            return None
        cond = const(b, False, tl.int1)
    cond = to_bool(cond, b)
    where = b.where()
    text = (f"{where}: " if where else "") + "Assertion failed" + \
        (f": {msg}" if msg else "")
    text = text.replace("%", "%%")
    b.op(f"tile.assert {{0}}, {_quote(text)} : {cond.type.mlir}",
         [cond.handle])
    return None


def device_print(prefix, args, hex, b):
    """tile.print: one line per element of each argument (tensors or
    numbers), compiled in always (as Triton's tl.device_print)."""
    if not isinstance(prefix, str):
        raise _err(f"tl.device_print: the prefix must be a string, got "
                   f"{type(prefix).__name__}")
    if not isinstance(hex, bool):
        raise _err(f"tl.device_print: hex must be True or False, got {hex!r}")
    values = []
    for i, a in enumerate(args):
        a = tl._unwrap(a)
        if isinstance(a, str):
            raise _err(f"tl.device_print: argument {i} is a string; the "
                       "text goes in the prefix")
        x = to_tensor(a, b)
        dt = x.dtype
        if dt.is_ptr():
            raise _err(f"tl.device_print: argument {i} is a pointer "
                       f"({x.type!r}); print the offsets it is built from")
        if dt.is_fp8():
            raise _err(f"tl.device_print: argument {i} is {dt!r}; convert "
                       "it with .to(tl.float32) first")
        if hex and not dt.is_int() and not dt.is_bool():
            raise _err(f"tl.device_print: hex=True prints integers; "
                       f"argument {i} is {dt!r}")
        values.append(x)
    types = ", ".join(x.type.mlir for x in values)
    operands = ", ".join(f"{{{i}}}" for i in range(len(values)))
    text = f"tile.print {_quote(prefix)}" + (" hex" if hex else "") + \
        (f", {operands} : {types}" if values else "")
    b.op(text, [x.handle for x in values])
    return None


def _quote(s):
    from ..compiler import ir
    return ir.quote(s)


def hint_values(x, values, what):
    """The values of the hint `what` on the tensor `x`: positive constexpr
    ints, one or one per dimension."""
    x = tl._unwrap(x)
    if not isinstance(x, tl.tensor):
        raise _err(f"{what} needs a tensor")
    rank = len(x.shape)
    vals = list(values) if isinstance(values, (list, tuple)) else [values]
    for v in vals:
        v = tl._unwrap(v)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise _err(f"hint values must be positive constexpr ints, got "
                       f"{v!r}")
    vals = [tl._unwrap(v) for v in vals]
    if len(vals) != 1 and len(vals) != max(rank, 1):
        raise _err(f"{len(vals)} hint values for a rank-{rank} tensor")
    return x, vals


def hint(x, attr, values, b):
    x, vals = hint_values(x, values, "tl.multiple_of" if "div" in attr
                          else "tl.max_contiguous")
    owner = x.handle.owner
    if isinstance(owner, tuple) and owner[0] == "arg":
        if attr == "tile.divisibility" and not x.dtype.is_floating():
            attrs = b.args[owner[1]][1]
            have = int(attrs.get(attr, "1 : i32").split(":")[0])
            v = max(vals)
            if v & (v - 1) == 0:  # argument divisibility is a power of two
                attrs[attr] = f"{max(v, have)} : i32"
        return x
    if owner is None or len(owner.results) != 1 or \
            owner.parts[0].startswith("arith.constant"):
        # A block argument or a multi-result op has no place for it; a
        # constant's facts are known.
        return x
    owner.attrs[attr] = f"{vals[0]} : i32" if len(vals) == 1 else \
        f"array<i32: {', '.join(map(str, vals))}>"
    return x


def debug_barrier(b):
    b.op("tile.barrier")
    return None
