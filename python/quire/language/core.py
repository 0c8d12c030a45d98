"""quire.language: the types and builtins of `@quire.jit` kernels.

The subset of `triton.language` that attention kernels use, with Triton's
semantics (docs/language.md lists every construct and each difference). A
kernel written for Triton compiles with `import quire as triton` and
`import quire.language as tl`.

Builtins take a hidden `_builder` argument that the code generator passes;
called outside a kernel they raise, as in Triton. Their implementations are
in semantic.py; this file holds the types and the public signatures.
"""

import functools

from . import semantic


# The most elements a tensor holds (Triton's TRITON_MAX_TENSOR_NUMEL):
# every element is registers of the CTA's threads, and compile time grows
# faster than the count past it.
TENSOR_NUMEL_MAX = 2**20


class CompileTimeError(Exception):
    """Raised by builtins for a user mistake; the code generator turns it
    into a quire.CompilationError at the Python line that called it."""


# ---------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------

class dtype:
    """A scalar type. `str(tl.float16)` is "fp16", as in Triton."""

    SINT_TYPES = ("int8", "int16", "int32", "int64")
    UINT_TYPES = ("int1", "uint8", "uint16", "uint32", "uint64")
    FP8_TYPES = ("fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16")
    FP_TYPES = FP8_TYPES + ("fp16", "bf16", "fp32", "fp64")
    # The AMD and older NVIDIA fp8 encodings; sm_89+ converts the other two.
    UNSUPPORTED_FP8 = ("fp8e4b15", "fp8e4b8", "fp8e5b16")
    _MLIR = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32",
             "int64": "i64", "uint8": "i8", "uint16": "i16", "uint32": "i32",
             "uint64": "i64", "fp16": "f16", "bf16": "bf16", "fp32": "f32",
             "fp64": "f64", "fp8e4nv": "f8E4M3FN", "fp8e5": "f8E5M2",
             "fp8e4b15": "f8E4M3B11FNUZ", "fp8e4b8": "f8E4M3FNUZ",
             "fp8e5b16": "f8E5M2FNUZ"}
    _REPR = {"int1": "int1", "fp16": "float16", "bf16": "bfloat16",
             "fp32": "float32", "fp64": "float64", "fp8e4nv": "float8e4nv",
             "fp8e5": "float8e5", "fp8e4b15": "float8e4b15",
             "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16"}

    def __init__(self, name):
        if name not in self._MLIR:
            raise ValueError(f"unknown dtype {name!r}")
        self.name = name
        if name in self.SINT_TYPES:
            self.int_signedness = "signed"
            self.int_bitwidth = int(name[3:])
            self.primitive_bitwidth = self.int_bitwidth
        elif name in self.UINT_TYPES:
            self.int_signedness = "unsigned"
            self.int_bitwidth = 1 if name == "int1" else int(name[4:])
            self.primitive_bitwidth = self.int_bitwidth
        else:
            self.int_signedness = None
            self.int_bitwidth = 0
            self.primitive_bitwidth = 8 if name in self.FP8_TYPES else {
                "fp16": 16, "bf16": 16, "fp32": 32, "fp64": 64}[name]
        self.fp_mantissa_width = {"fp16": 10, "bf16": 7, "fp32": 23,
                                  "fp64": 52, "fp8e4nv": 3, "fp8e5": 2,
                                  "fp8e4b15": 3, "fp8e4b8": 3,
                                  "fp8e5b16": 2}.get(name, 0)

    # Triton's predicates.
    def is_fp8(self): return self.name in self.FP8_TYPES
    def is_fp8e4nv(self): return self.name == "fp8e4nv"
    def is_fp8e5(self): return self.name == "fp8e5"
    def is_fp16(self): return self.name == "fp16"
    def is_bf16(self): return self.name == "bf16"
    def is_fp32(self): return self.name == "fp32"
    def is_fp64(self): return self.name == "fp64"
    def is_floating(self): return self.name in self.FP_TYPES
    def is_standard_floating(self):
        return self.name in ("fp16", "bf16", "fp32", "fp64")
    def is_int(self): return self.int_signedness is not None
    def is_int_signed(self): return self.int_signedness == "signed"
    def is_int_unsigned(self): return self.int_signedness == "unsigned"
    def is_bool(self): return self.name == "int1"
    def is_int1(self): return self.name == "int1"
    def is_int8(self): return self.name == "int8"
    def is_int16(self): return self.name == "int16"
    def is_int32(self): return self.name == "int32"
    def is_int64(self): return self.name == "int64"
    def is_uint8(self): return self.name == "uint8"
    def is_uint16(self): return self.name == "uint16"
    def is_uint32(self): return self.name == "uint32"
    def is_uint64(self): return self.name == "uint64"
    def is_ptr(self): return False
    def is_block(self): return False
    def is_void(self): return False

    def kind(self):
        """0 bool, 1 integer, 2 floating: Triton's order for promoting a
        Python scalar against a tensor."""
        if self.is_bool():
            return 0
        return 1 if self.is_int() else 2

    @property
    def scalar(self):
        return self

    @property
    def mlir(self):
        if self.name in self.UNSUPPORTED_FP8:
            raise CompileTimeError(
                f"{self._REPR.get(self.name, self.name)} is not supported by "
                "Quire's backend (its fp8 types are float8e4nv and float8e5, "
                "torch's float8_e4m3fn and float8_e5m2)")
        return self._MLIR[self.name]

    def to_ir(self, builder=None):
        return self.mlir

    def __eq__(self, other):
        return type(other) is type(self) and other.name == self.name

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"tl.{self._REPR.get(self.name, self.name)}"

    @property
    def cache_key_part(self):
        return self.name


class pointer_type(dtype):
    """A pointer to `element_ty` (global memory)."""

    def __init__(self, element_ty, address_space=1, const=False):
        if not isinstance(element_ty, dtype):
            raise TypeError(f"pointer_type needs a dtype, got "
                            f"{type(element_ty).__name__}")
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"pointer<{element_ty}>"
        self.int_signedness = None
        self.int_bitwidth = 0
        self.primitive_bitwidth = 64
        self.fp_mantissa_width = 0

    def is_ptr(self): return True
    def is_floating(self): return False
    def is_int(self): return False
    def is_fp8(self): return False
    def kind(self): return 3

    @property
    def mlir(self):
        if self.element_ty.is_ptr():
            raise CompileTimeError("pointers to pointers are not supported")
        return f"!tile.ptr<{self.element_ty.mlir}>"

    def __eq__(self, other):
        return isinstance(other, pointer_type) and \
            other.element_ty == self.element_ty

    def __hash__(self):
        return hash(("ptr", self.element_ty))

    def __repr__(self):
        return f"pointer<{self.element_ty!r}>"


class block_type(dtype):
    """The type of a tensor: an element type and a static shape."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = tuple(int(s) for s in shape)
        self.numel = 1
        for s in self.shape:
            self.numel *= s
        if self.numel > TENSOR_NUMEL_MAX:
            raise CompileTimeError(
                f"a tensor of shape {list(self.shape)} has {self.numel} "
                f"elements; tensors hold at most {TENSOR_NUMEL_MAX} (2**20, "
                "as Triton's)")
        self.name = f"<{self.shape}, {element_ty}>"
        self.int_signedness = element_ty.int_signedness
        self.int_bitwidth = element_ty.int_bitwidth
        self.primitive_bitwidth = element_ty.primitive_bitwidth
        self.fp_mantissa_width = element_ty.fp_mantissa_width

    def is_block(self): return True
    def is_ptr(self): return False

    @property
    def scalar(self):
        return self.element_ty

    def get_block_shapes(self):
        return self.shape

    @property
    def mlir(self):
        return "tensor<" + "".join(f"{s}x" for s in self.shape) + \
            self.element_ty.mlir + ">"

    def __eq__(self, other):
        return isinstance(other, block_type) and other.shape == self.shape \
            and other.element_ty == self.element_ty

    def __hash__(self):
        return hash(("block", self.shape, self.element_ty))

    def __repr__(self):
        return f"<{list(self.shape)}, {self.element_ty!r}>" if self.shape \
            else repr(self.element_ty)


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float8e4b15 = dtype("fp8e4b15")
float8e4b8 = dtype("fp8e4b8")
float8e5b16 = dtype("fp8e5b16")
pi32_t = pointer_type(int32)

DTYPES = {d.name: d for d in (int1, int8, int16, int32, int64, uint8, uint16,
                              uint32, uint64, float16, bfloat16, float32,
                              float64, float8e4nv, float8e5, float8e4b15,
                              float8e4b8, float8e5b16)}


# ---------------------------------------------------------------------------
# constexpr and tensors
# ---------------------------------------------------------------------------

class constexpr:
    """A compile-time value. As a parameter annotation (`BLOCK:
    tl.constexpr`) it makes the argument part of the specialization; in
    code, `tl.constexpr(3)` is just 3."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return self.value

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, constexpr)
                              else other)

    def __hash__(self):
        return hash(self.value)


def _unwrap(v):
    return v.value if isinstance(v, constexpr) else v


class tensor:
    """A value of a kernel: a scalar (shape []) or a block of registers.
    `handle` is its SSA value in the emitted MLIR."""

    def __init__(self, handle, type):
        self.handle = handle
        self.type = type
        self.dtype = type.scalar
        self.shape = list(type.shape) if type.is_block() else []
        self.numel = type.numel if type.is_block() else 1

    def __repr__(self):
        return f"tensor({self.handle.name}, {self.type!r})"

    @property
    def T(self):
        raise CompileTimeError("x.T needs the builder; the code generator "
                               "resolves it")

    def __bool__(self):
        raise CompileTimeError(
            "a tensor's truth value is not known at compile time; use it in "
            "`if`/`while` directly (scf.if), or tl.where")

    def __iter__(self):
        raise CompileTimeError("tensors cannot be iterated over")


# ---------------------------------------------------------------------------
# builtins
# ---------------------------------------------------------------------------

BUILTIN = "__quire_builtin__"


def builtin(fn):
    """Marks a function the code generator calls with `_builder=`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs.get("_builder") is None:
            raise ValueError(
                f"{fn.__name__}() can only be called inside a @quire.jit "
                "function")
        return fn(*args, **kwargs)

    setattr(wrapper, BUILTIN, True)
    return wrapper


def is_builtin(fn):
    return getattr(fn, BUILTIN, False)


def _unsupported(name, why="is not supported by Quire"):
    @builtin
    def fn(*args, _builder=None, **kwargs):
        raise CompileTimeError(f"tl.{name} {why}")
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"tl.{name}: {why}."
    return fn


@builtin
def program_id(axis, _builder=None):
    """The index of this program along grid axis 0, 1 or 2 (int32)."""
    return semantic.program_id(_unwrap(axis), _builder)


@builtin
def num_programs(axis, _builder=None):
    """The number of programs along grid axis 0, 1 or 2 (int32)."""
    return semantic.num_programs(_unwrap(axis), _builder)


@builtin
def arange(start, end, _builder=None):
    """The int32 tensor [start, start+1, ..., end-1]; constexpr bounds,
    end - start a power of two."""
    return semantic.arange(_unwrap(start), _unwrap(end), _builder)


@builtin
def full(shape, value, dtype, _builder=None):
    """A tensor of `shape` (constexprs) filled with `value` (a constant or a
    scalar) as `dtype`."""
    return semantic.full(semantic.shape_of(shape), value, _unwrap(dtype),
                         _builder)


@builtin
def zeros(shape, dtype, _builder=None):
    """A tensor of `shape` filled with zeros of `dtype`."""
    return semantic.full(semantic.shape_of(shape), 0, _unwrap(dtype),
                         _builder)


@builtin
def zeros_like(input, dtype=None, _builder=None):
    """Zeros with the shape (and dtype, unless given) of `input`."""
    return semantic.full(list(input.shape), 0, _unwrap(dtype) or input.dtype,
                         _builder)


@builtin
def full_like(input, value, dtype=None, _builder=None):
    return semantic.full(list(input.shape), value,
                         _unwrap(dtype) or input.dtype, _builder)


def cdiv(x, div, _builder=None):
    """ceil(x / div) for integers: Python ints at compile time, tensors at
    run time."""
    x, div = _unwrap(x), _unwrap(div)
    if _builder is None or (isinstance(x, int) and isinstance(div, int)):
        return (x + div - 1) // div
    return semantic.cdiv(x, div, _builder)


setattr(cdiv, BUILTIN, True)


def swizzle2d(i, j, size_i, size_j, size_g, _builder=None):
    """(i, j) of a size_i x size_j grid walked in groups of size_g rows:
    the row-major index i * size_j + j counts down the rows of its group
    (fewer in the last group when size_g does not divide size_i) before
    moving to the next column, so consecutive programs share the rows and
    columns of one group (the grouped order of Triton's matmul tutorial).
    Python ints at compile time, integer scalars or tensors at run time."""
    i, j, size_i, size_j, size_g = (_unwrap(v) for v in
                                    (i, j, size_i, size_j, size_g))
    if _builder is None or all(isinstance(v, int) for v in
                               (i, j, size_i, size_j, size_g)):
        ij = i * size_j + j
        group_cells = size_g * size_j
        first = ij // group_cells * size_g
        rows = size_g if size_i - first > size_g else size_i - first
        within = ij % group_cells
        return first + within % rows, within // rows
    b, S = _builder, semantic
    ij = S.add(S.mul(i, size_j, b), j, b)
    group_cells = S.mul(size_g, size_j, b) if not (
        isinstance(size_g, int) and isinstance(size_j, int)) else \
        size_g * size_j
    first = S.mul(S.floordiv(ij, group_cells, b), size_g, b)
    rows = S.minimum(S.sub(size_i, first, b), size_g, None, b)
    within = S.mod(ij, group_cells, b)
    return (S.add(first, S.mod(within, rows, b), b),
            S.floordiv(within, rows, b))


setattr(swizzle2d, BUILTIN, True)


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False,
         _builder=None):
    """Loads the elements `pointer` points to; where `mask` is false no
    memory is read and the result is `other` (undefined without it).
    Cache and eviction hints are accepted and ignored."""
    if _unwrap(boundary_check) or _unwrap(padding_option):
        raise CompileTimeError("block pointers (boundary_check, "
                               "padding_option) are not supported")
    return semantic.load(pointer, _unwrap(mask), _unwrap(other), _builder)


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy="", _builder=None):
    """Stores `value` (cast to the pointee type) where `mask` is true."""
    if _unwrap(boundary_check):
        raise CompileTimeError("block pointers (boundary_check) are not "
                               "supported")
    return semantic.store(pointer, _unwrap(value), _unwrap(mask), _builder)


class tensor_descriptor:
    """A tensor in global memory read and written one block at a time
    (Triton's tl.tensor_descriptor): made by tl.make_tensor_descriptor in a
    kernel, or passed from the host as a
    quire.tools.tensor_descriptor.TensorDescriptor. `desc.load(offsets)`
    returns the block whose first element is at `offsets` (padding outside
    the tensor); `desc.store(offsets, value)` writes one (nothing outside)."""

    def __init__(self, handle, base, shape, strides, block_type,
                 tensormap=None):
        self.handle = handle
        # The host-encoded tensor map (a !tile.tensormap argument) when the
        # kernel takes one (tl.paged_load reads a cache through it).
        self.tensormap = tensormap
        self.base = base
        self.shape = list(shape)
        self.strides = list(strides)
        self.block_type = block_type
        self.dtype = block_type.scalar
        self.block_shape = list(block_type.shape)
        self.type_mlir = f"!tile.tensordesc<{block_type.mlir}>"

    def __repr__(self):
        return f"tensor_descriptor({self.handle.name}, {self.block_type!r})"

    @builtin
    def load(self, offsets, _builder=None):
        return semantic.descriptor_load(self, offsets, _builder)

    @builtin
    def store(self, offsets, value, _builder=None):
        return semantic.descriptor_store(self, offsets, _unwrap(value),
                                         _builder)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape,
                           padding_option="zero", _builder=None):
    """A tensor_descriptor of the tensor at `base` (a scalar pointer) with
    `shape` and `strides` (in elements; the last stride the constant 1),
    accessed in blocks of `block_shape` (1 to 5 powers of two, at most 256,
    at least 16 bytes along the last dimension). Elements outside the shape
    read as zero, or NaN with padding_option="nan"."""
    return semantic.make_tensor_descriptor(
        _unwrap(base), shape, strides, block_shape, padding_option, _builder)


@builtin
def load_tensor_descriptor(desc, offsets, _builder=None):
    """desc.load(offsets)."""
    return _descriptor_arg(desc).load(offsets, _builder=_builder)


@builtin
def store_tensor_descriptor(desc, offsets, value, _builder=None):
    """desc.store(offsets, value)."""
    return _descriptor_arg(desc).store(offsets, value, _builder=_builder)


def _descriptor_arg(desc):
    desc = _unwrap(desc)
    if not isinstance(desc, tensor_descriptor):
        raise CompileTimeError(f"expected a tensor descriptor, got "
                               f"{type(desc).__name__}")
    return desc


def _atomic(kind, doc):
    @builtin
    def fn(pointer, val, mask=None, sem=None, scope=None, _builder=None):
        return semantic.atomic_rmw(kind, pointer, _unwrap(val), _unwrap(mask),
                                   _unwrap(sem), _unwrap(scope), _builder)
    fn.__name__ = fn.__qualname__ = f"atomic_{kind}"
    fn.__doc__ = (f"Atomically {doc} where `mask` is true and returns the "
                  "values memory held before (undefined where the mask is "
                  "false). `sem`: 'acq_rel' (default), 'acquire', 'release' "
                  "or 'relaxed'; `scope`: 'gpu' (default), 'cta' or 'sys'.")
    return fn


atomic_add = _atomic("add", "adds `val` to `*pointer`")
atomic_max = _atomic("max", "replaces `*pointer` by max(`*pointer`, `val`)")
atomic_min = _atomic("min", "replaces `*pointer` by min(`*pointer`, `val`)")
atomic_and = _atomic("and", "ands `val` into `*pointer`")
atomic_or = _atomic("or", "ors `val` into `*pointer`")
atomic_xor = _atomic("xor", "xors `val` into `*pointer`")
atomic_xchg = _atomic("xchg", "replaces `*pointer` by `val`")


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _builder=None):
    """Atomically, where `*pointer == cmp` (their bits), replaces it by
    `val`; returns the values memory held before. `sem` and `scope` as for
    atomic_add."""
    return semantic.atomic_cas(pointer, _unwrap(cmp), _unwrap(val),
                               _unwrap(sem), _unwrap(scope), _builder)


@builtin
def paged_load(cache, block_table, first_token, head, block_shape, page_size,
               strides, bound, cols=None, num_blocks=None, _builder=None):
    """`tile.paged_load`: a block_shape = (BLOCK_N, D) tile whose row r is
    token first_token + r of one sequence in a paged cache:

        row r = cache[block_table[t // page_size] * strides[0]
                      + (t % page_size) * strides[1] + head * strides[2]
                      + column]        for t = first_token + r < bound,

    zero for rows at or past `bound` (which read nothing) and for columns at
    or past `cols` (a head dimension narrower than the tile). `cache` is a
    scalar pointer, `block_table` a pointer to the sequence's int32 block
    table row, `page_size` a constexpr, strides in elements (64-bit).
    `cache` may instead be a tensor descriptor of the 4-D cache
    [num_blocks, page_size, heads, D] with block_shape [1, min(page_size,
    BLOCK_N), 1, BLOCK_D] (strides=None: they are the descriptor's): a
    kernel compiled with warp_specialize on sm_90 then copies the tile's
    pages with TMA (docs/language.md, "Paged loads through a tensor
    descriptor").
    `num_blocks` (optional) is the number of pages the cache holds, for
    checked mode (quire.compile(checked=True))."""
    return semantic.paged_load(cache, block_table, first_token, head,
                               semantic.shape_of(block_shape),
                               _unwrap(page_size), _unwrap(strides), bound,
                               _unwrap(cols), _unwrap(num_blocks), _builder)


@builtin
def where(condition, x, y, _builder=None):
    """Elementwise `x` where `condition` else `y`, broadcast together."""
    return semantic.where(_unwrap(condition), _unwrap(x), _unwrap(y),
                          _builder)


class PropagateNan:
    """How tl.maximum/minimum/clamp treat NaN: NONE (the other operand
    wins, the default) or ALL (NaN wins)."""
    NONE = "NONE"
    ALL = "ALL"


@builtin
def maximum(x, y, propagate_nan=None, _builder=None):
    """Elementwise maximum (for floats, a NaN operand yields the other)."""
    return semantic.maximum(_unwrap(x), _unwrap(y), _unwrap(propagate_nan),
                            _builder)


@builtin
def minimum(x, y, propagate_nan=None, _builder=None):
    """Elementwise minimum (for floats, a NaN operand yields the other)."""
    return semantic.minimum(_unwrap(x), _unwrap(y), _unwrap(propagate_nan),
                            _builder)


@builtin
def clamp(x, min, max, propagate_nan=None, _builder=None):
    """minimum(maximum(x, min), max)."""
    return semantic.clamp(_unwrap(x), _unwrap(min), _unwrap(max),
                          _unwrap(propagate_nan), _builder)


def _math_unary(name, doc):
    @builtin
    def fn(x, _builder=None):
        return semantic.math_unary(name, _unwrap(x), _builder)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


exp = _math_unary("exp", "e ** x (approximate on the GPU, as Triton's)")
exp2 = _math_unary("exp2", "2 ** x")
log = _math_unary("log", "the natural logarithm")
log2 = _math_unary("log2", "the base-2 logarithm")
sqrt = _math_unary("sqrt", "the square root")
sqrt_rn = _math_unary("sqrt_rn", "the square root, rounded to nearest")
rsqrt = _math_unary("rsqrt", "1 / sqrt(x)")
sin = _math_unary("sin", "the sine")
cos = _math_unary("cos", "the cosine")
tanh = _math_unary("tanh", "the hyperbolic tangent")
floor = _math_unary("floor", "rounds down")
ceil = _math_unary("ceil", "rounds up")
erf = _math_unary("erf", "the error function")
abs = _math_unary("abs", "the absolute value")
sigmoid = _math_unary("sigmoid", "1 / (1 + exp(-x))")


@builtin
def fma(x, y, z, _builder=None):
    """x * y + z, fused."""
    return semantic.fma(_unwrap(x), _unwrap(y), _unwrap(z), _builder)


@builtin
def fdiv(x, y, ieee_rounding=False, _builder=None):
    """x / y for floats: approximate for f32 (as `/`) unless
    `ieee_rounding`."""
    return semantic.truediv(_unwrap(x), _unwrap(y), _builder,
                            ieee_rounding=bool(_unwrap(ieee_rounding)))


@builtin
def div_rn(x, y, _builder=None):
    """x / y for floats, correctly rounded to nearest."""
    return semantic.truediv(_unwrap(x), _unwrap(y), _builder,
                            ieee_rounding=True)


@builtin
def umulhi(x, y, _builder=None):
    """The high 32 bits of the 64-bit product of two uint32/int32 values."""
    return semantic.umulhi(_unwrap(x), _unwrap(y), _builder)


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False, _builder=None):
    """exp(x - max(x)) / sum(exp(x - max(x))) along `dim` (default the last
    axis)."""
    return semantic.softmax(x, _unwrap(dim), _unwrap(keep_dims), _builder,
                            ieee_rounding=bool(_unwrap(ieee_rounding)))


def _reduction(kind, doc):
    @builtin
    def fn(input, axis=None, keep_dims=False, dtype=None,
           return_indices=False, return_indices_tie_break_left=True,
           _builder=None):
        return semantic.reduce_named(kind, input, _unwrap(axis),
                                     _unwrap(keep_dims), _unwrap(dtype),
                                     _unwrap(return_indices), _builder)
    fn.__name__ = fn.__qualname__ = kind
    fn.__doc__ = doc
    return fn


@builtin
def xor_sum(input, axis=None, keep_dims=False, _builder=None):
    """The bitwise xor of the elements along `axis` (every axis for None);
    integers only."""
    x = semantic._reduce_input(_unwrap(input), "tl.xor_sum")
    if not (x.dtype.is_int() or x.dtype.is_bool()):
        raise CompileTimeError(f"tl.xor_sum needs integers, got {x.dtype!r}")
    return semantic.reduce_named("xor", x, _unwrap(axis), _unwrap(keep_dims),
                                 None, False, _builder)


sum = _reduction("sum", "The sum along `axis` (every axis for None); int "
                 "types narrower than 32 bits sum as int32.")
max = _reduction("max", "The maximum along `axis` (NaN propagates); with "
                 "return_indices=True also the first index of it.")
min = _reduction("min", "The minimum along `axis` (NaN propagates); with "
                 "return_indices=True also the first index of it.")


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False, _builder=None):
    """The (first) index of the maximum along `axis`, int32."""
    return semantic.argminmax("max", input, _unwrap(axis), _unwrap(keep_dims),
                              _builder)


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False, _builder=None):
    """The (first) index of the minimum along `axis`, int32."""
    return semantic.argminmax("min", input, _unwrap(axis), _unwrap(keep_dims),
                              _builder)


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=float32, _builder=None):
    """input @ other (+ acc): f16, bf16 or f32 operands of one type, f32
    accumulation; out_dtype float16 rounds the f32 result."""
    precision = _unwrap(input_precision)
    if precision is not None and precision not in ("tf32", "tf32x3", "ieee"):
        raise CompileTimeError(f"tl.dot: input_precision must be 'tf32', "
                               f"'tf32x3' or 'ieee', got {precision!r}")
    return semantic.dot(input, other, _unwrap(acc), _unwrap(out_dtype),
                        _builder)


@builtin
def trans(input, *dims, _builder=None):
    """The transpose (dims reversed), or the permutation `dims`."""
    dims = [_unwrap(d) for d in dims]
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = list(dims[0])
    return semantic.trans(input, dims or None, _builder)


@builtin
def permute(input, *dims, _builder=None):
    dims = [_unwrap(d) for d in dims]
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = list(dims[0])
    return semantic.trans(input, dims, _builder)


@builtin
def expand_dims(input, axis, _builder=None):
    """`input` with a size-1 dimension inserted at `axis` (or each of a
    list of axes)."""
    return semantic.expand_dims_n(input, _unwrap(axis), _builder)


@builtin
def broadcast_to(input, *shape, _builder=None):
    """`input` broadcast to `shape`."""
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (tuple, list)):
        shape = _unwrap(shape[0])
    return semantic.broadcast_to(_unwrap(input), semantic.shape_of(shape),
                                 _builder)


@builtin
def broadcast(input, other, _builder=None):
    """`input` and `other` broadcast to their common shape."""
    return semantic.broadcast_values(_unwrap(input), _unwrap(other), _builder)


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False,
         _builder=None):
    """`input` converted to `dtype` (or reinterpreted, with bitcast)."""
    return semantic.cast(_unwrap(input), _unwrap(dtype), _builder,
                         bitcast=_unwrap(bitcast))


@builtin
def static_assert(cond, msg="", _builder=None):
    """A compile-time check: `cond` must be a constexpr."""
    cond = _unwrap(cond)
    if isinstance(cond, tensor):
        raise CompileTimeError("tl.static_assert needs a compile-time "
                               "condition; use tl.device_assert for run-time "
                               "values")
    if not cond:
        raise CompileTimeError(f"static_assert failed: {_unwrap(msg)}"
                               if _unwrap(msg) else "static_assert failed")


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False,
                 _builder=None):
    """Prints at compile time."""
    print(*[_unwrap(v) for v in values], sep=sep, end=end, file=file,
          flush=flush)


@builtin
def device_assert(cond, msg="", _builder=None):
    """A run-time check, compiled in with @quire.jit(debug=True),
    QUIRE_DEBUG=1, and always in the interpreter: a program where `cond`
    is false somewhere reports `msg` and stops."""
    return semantic.device_assert(_unwrap(cond), str(_unwrap(msg)), _builder)


def _shape_args(shape):
    """A shape given as one list or tuple, or as the sizes themselves."""
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (list, tuple)):
        shape = _unwrap(shape[0])
    return [_unwrap(d) for d in shape]


@builtin
def reshape(input, *shape, can_reorder=False, _builder=None):
    """`input` with `shape` (a list, or the sizes as arguments), when the
    two shapes differ only by dimensions of size 1: [N, 1] -> [N],
    [N] -> [1, N], [1, N] -> [N, 1]. Other reshapes are a compilation
    error."""
    return semantic.reshape(_unwrap(input), _shape_args(shape), "tl.reshape",
                            _builder)


@builtin
def view(input, *shape, _builder=None):
    """tl.reshape (Quire never reorders elements)."""
    return semantic.reshape(_unwrap(input), _shape_args(shape), "tl.view",
                            _builder)


@builtin
def ravel(x, can_reorder=False, _builder=None):
    """`x` as a 1-D tensor, for tensors with at most one dimension larger
    than 1."""
    return semantic.reshape(_unwrap(x), None, "tl.ravel", _builder)


@builtin
def to_tensor(x, _builder=None):
    """`x` as a tensor: a number becomes a constant of its own dtype (an int
    that fits int32 is int32, as Triton types Python ints)."""
    return semantic.to_tensor(_unwrap(x), _builder)


@builtin
def device_print(prefix, *args, hex=False, _builder=None):
    """Prints, from the device, one line per element of each argument:
    `pid (x, y, z) idx (i, j) prefix: value` (`prefix (operand k): value`
    with several arguments). On the GPU each element is printed by the
    thread that holds it, in no particular order across threads; the
    interpreter prints elements in row-major order. `hex=True` prints
    integers' bits in hexadecimal."""
    return semantic.device_print(_unwrap(prefix), args, _unwrap(hex),
                                 _builder)


@builtin
def multiple_of(input, values, _builder=None):
    """Promises every element (of each dimension) is a multiple of `values`."""
    return semantic.hint(input, "tile.divisibility", _unwrap(values), _builder)


@builtin
def max_contiguous(input, values, _builder=None):
    """Promises runs of `values` consecutive increasing elements."""
    return semantic.hint(input, "tile.contiguity", _unwrap(values), _builder)


@builtin
def max_constancy(input, values, _builder=None):
    """A hint Quire does not use (its values are checked as the other
    hints'); returns `input`."""
    semantic.hint_values(input, _unwrap(values), "tl.max_constancy")
    return input


@builtin
def assume(cond, _builder=None):
    """A hint Quire does not use."""
    return None


@builtin
def debug_barrier(_builder=None):
    """Synchronizes the threads of the program and orders their memory
    accesses (bar.sync)."""
    return semantic.debug_barrier(_builder)


class static_range:
    """`for i in tl.static_range(a, b, step)`: unrolled at compile time;
    `i` is a constexpr in each copy of the body."""

    def __init__(self, arg1, arg2=None, step=None):
        self.args = (arg1, arg2, step)


class range:
    """`for i in tl.range(a, b, step, num_stages=...)`: a run-time loop,
    as Python's range in a kernel. `num_stages` (a constexpr int in [0, 8])
    is this loop's cp.async staging depth instead of the launch's; the
    other tuning arguments are accepted and ignored."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None,
                 loop_unroll_factor=None, disallow_acc_multi_buffer=False,
                 flatten=False, warp_specialize=False, disable_licm=False):
        self.args = (arg1, arg2, step)
        self.num_stages = _unwrap(num_stages)


# Triton names Quire does not implement: a clear error instead of a
# NameError.
for _name in ("join", "split", "cat", "interleave",
              "histogram", "make_block_ptr", "advance",
              "inline_asm_elementwise", "associative_scan", "cumsum",
              "cumprod", "sort", "flip", "reduce", "dot_scaled", "gather"):
    globals()[_name] = _unsupported(_name)
del _name
