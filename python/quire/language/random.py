"""Counter-based random numbers in kernels (Triton's `tl.rand` family):
Philox 4x32 with 10 rounds (Salmon et al., "Parallel random numbers: as easy
as 1, 2, 3", SC'11), keyed by a seed, counting by an offset, so every
element draws its own stream without state.

    r = tl.rand(seed, offsets)       # float32 in [0, 1)
    n = tl.randn(seed, offsets)      # float32, standard normal
    i = tl.randint(seed, offsets)    # uint32
    a, b, c, d = tl.randint4x(seed, offsets)

`seed` is an integer (a Python int or a run-time scalar, up to 64 bits: its
low and high words are the key); `offsets` an integer tensor (or scalar),
the counter's first word (the other three are 0). The same (seed, offset)
gives the same number in the interpreter and on every GPU.
"""

from . import core as tl
from ..runtime import jit

PHILOX_KEY_A: tl.constexpr = 0x9E3779B9
PHILOX_KEY_B: tl.constexpr = 0xBB67AE85
PHILOX_ROUND_A: tl.constexpr = 0xD2511F53
PHILOX_ROUND_B: tl.constexpr = 0xCD9E8D57
N_ROUNDS_DEFAULT: tl.constexpr = 10


@jit
def philox_impl(c0, c1, c2, c3, k0, k1,
                n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """`n_rounds` Philox rounds of the counter (c0, c1, c2, c3) under the
    key (k0, k1), all uint32; the key is bumped by the Weyl constants after
    each round."""
    for _ in tl.static_range(n_rounds):
        hi_b = tl.umulhi(c2, PHILOX_ROUND_B)
        hi_a = tl.umulhi(c0, PHILOX_ROUND_A)
        lo_b = c2 * PHILOX_ROUND_B
        lo_a = c0 * PHILOX_ROUND_A
        c0 = hi_b ^ c1 ^ k0
        c2 = hi_a ^ c3 ^ k1
        c1 = lo_b
        c3 = lo_a
        k0 = k0 + PHILOX_KEY_A
        k1 = k1 + PHILOX_KEY_B
    return c0, c1, c2, c3


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Philox of the counter words (integers of 32 bits or fewer, taken as
    their uint32 bits) keyed by `seed`'s low and high words."""
    tl.static_assert(isinstance(n_rounds, int) and 1 <= n_rounds <= 64,
                     "tl.rand family: n_rounds must be an int in [1, 64]")
    seed = tl.to_tensor(seed)
    tl.static_assert(seed.dtype.is_int(),
                     "tl.rand family: the seed must be an integer")
    seed = seed.to(tl.uint64)
    k0 = (seed & 0xFFFFFFFF).to(tl.uint32)
    k1 = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
    c0 = tl.to_tensor(c0)
    tl.static_assert(c0.dtype.is_int() and c0.dtype.int_bitwidth <= 32,
                     "tl.rand family: the offsets must be integers of 32 "
                     "bits or fewer")
    c0 = c0.to(tl.uint32, bitcast=True)
    c1 = tl.to_tensor(c1).to(tl.uint32, bitcast=True)
    c2 = tl.to_tensor(c2).to(tl.uint32, bitcast=True)
    c3 = tl.to_tensor(c3).to(tl.uint32, bitcast=True)
    return philox_impl(c0, c1, c2, c3, k0, k1, n_rounds)


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four uint32 random words per element of `offset`."""
    offset = tl.to_tensor(offset)
    zero = offset * 0
    return philox(seed, offset, zero, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One uint32 random word per element of `offset` (randint4x's first)."""
    a, _, _, _ = randint4x(seed, offset, n_rounds)
    return a


@jit
def uint_to_uniform_float(x):
    """uint32 random bits to a float32 in [0, 1): the bits as an int32 folded
    onto [0, 2^31) (x and -x - 1 meet), times 2^-31."""
    x = x.to(tl.int32, bitcast=True)
    x = tl.where(x < 0, -x - 1, x)
    return x.to(tl.float32) * 4.6566127342e-10


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A float32 uniform in [0, 1) per element of `offset`."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def rand4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four float32 uniforms in [0, 1) per element of `offset`."""
    a, b, c, d = randint4x(seed, offset, n_rounds)
    return (uint_to_uniform_float(a), uint_to_uniform_float(b),
            uint_to_uniform_float(c), uint_to_uniform_float(d))


@jit
def pair_uniform_to_normal(u1, u2):
    """Two independent standard normals from two uniforms (Box-Muller)."""
    u1 = tl.maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(theta), r * tl.sin(theta)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A float32 standard normal per element of `offset`."""
    a, b, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(a),
                                   uint_to_uniform_float(b))
    return n1


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four float32 standard normals per element of `offset`."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
