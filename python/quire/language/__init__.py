"""quire.language: the language of `@quire.jit` kernels (import it as `tl`).

Source-compatible with the subset of `triton.language` that attention
kernels use: a Triton kernel ports by replacing `import triton` and
`import triton.language as tl` with `import quire as triton` and
`import quire.language as tl`. docs/language.md lists every construct and
each difference from Triton.
"""

from . import math
from .core import (
    CompileTimeError, abs, arange, argmax, argmin, assume, atomic_add,
    atomic_and, atomic_cas, atomic_max, atomic_min, atomic_or, atomic_xchg,
    atomic_xor, bfloat16, block_type, broadcast, broadcast_to, cast, cdiv,
    ceil, clamp, constexpr, cos, debug_barrier, device_assert, device_print,
    div_rn, dot, dtype, erf, exp, exp2, expand_dims, fdiv, float16, float32,
    float64, float8e4b8, float8e4b15, float8e5, float8e5b16, float8e4nv,
    floor, fma, full, full_like, int1, int8, int16, int32, int64, load,
    load_tensor_descriptor, log, log2, make_tensor_descriptor, max, max_constancy, max_contiguous, maximum, min, minimum,
    multiple_of, num_programs, PropagateNan, paged_load, permute, pi32_t,
    pointer_type, program_id, range, ravel, reshape, rsqrt, sigmoid, sin,
    softmax, sqrt,
    sqrt_rn, static_assert, static_print, static_range, store,
    store_tensor_descriptor, sum, swizzle2d, tanh, tensor, tensor_descriptor,
    trans, uint8, uint16, uint32, uint64, umulhi,
    view, where, xor_sum, zeros, zeros_like)
from .core import (  # Triton names Quire rejects with a clear error
    advance, associative_scan, cat, cumprod, cumsum, dot_scaled, flip,
    gather, histogram, inline_asm_elementwise, interleave, join,
    make_block_ptr, reduce, sort, split)
from . import random
from .random import (
    pair_uniform_to_normal, philox, philox_impl, rand, rand4x, randint,
    randint4x, randn, randn4x, uint_to_uniform_float)

float8e4m3fn = float8e4nv
float8e5m2 = float8e5
bool_ = int1

__all__ = [n for n in dir() if not n.startswith("_")]
