"""tl.randint / randint4x / rand / randn (Philox 4x32-10): bit for bit
against a numpy Philox in the interpreter (QUIRE_INTERPRET, in CI), the same
numbers on the GPU (marked gpu), and the distributions' first moments."""

import pytest

import quire
import quire.language as tl
import helpers
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")

M32 = np.uint64(0xFFFFFFFF)


def philox_ref(seed, offsets, rounds=10):
    """Philox 4x32 of the counters (offset, 0, 0, 0) under the key (seed's
    low word, high word), in numpy uint64 arithmetic."""
    c0 = offsets.astype(np.int64).astype(np.uint64) & M32
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.full_like(c0, np.uint64(seed & 0xFFFFFFFF))
    k1 = np.full_like(c0, np.uint64((seed >> 32) & 0xFFFFFFFF))
    A, B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(rounds):
        pb, pa = c2 * B, c0 * A
        c0, c1, c2, c3 = ((pb >> np.uint64(32)) ^ c1 ^ k0, pb & M32,
                          (pa >> np.uint64(32)) ^ c3 ^ k1, pa & M32)
        k0 = (k0 + np.uint64(0x9E3779B9)) & M32
        k1 = (k1 + np.uint64(0xBB67AE85)) & M32
    return [c.astype(np.uint32) for c in (c0, c1, c2, c3)]


def uniform_ref(bits):
    x = bits.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


@quire.jit
def random_kernel(seed, out_bits, out_u, out_n, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(out_bits + offs * 4, a, mask=m)
    tl.store(out_bits + offs * 4 + 1, b, mask=m)
    tl.store(out_bits + offs * 4 + 2, c, mask=m)
    tl.store(out_bits + offs * 4 + 3, d, mask=m)
    tl.store(out_u + offs, tl.rand(seed, offs), mask=m)
    tl.store(out_n + offs, tl.randn(seed, offs), mask=m)


def run(seed, n, make):
    bits = make(np.zeros(4 * n, np.uint32))
    u = make(np.full(n, np.nan, np.float32))
    g = make(np.full(n, np.nan, np.float32))
    random_kernel[(-(-n // 128),)](seed, bits, u, g, n, BLOCK=128)
    return bits, u, g


def check(seed, n, bits, u, g):
    offs = np.arange(n)
    want = philox_ref(seed, offs)
    got = bits.reshape(n, 4)
    for k in range(4):
        assert np.array_equal(got[:, k], want[k]), k
    assert np.array_equal(u, uniform_ref(want[0]))
    u1 = np.maximum(np.float32(1e-7), uniform_ref(want[0]))
    u2 = uniform_ref(want[1])
    normal = np.sqrt(-2.0 * np.log(u1.astype(np.float64))) * \
        np.cos(2 * np.pi * u2.astype(np.float64))
    assert np.abs(g - normal).max() < 1e-4


@pytest.mark.parametrize("seed", [0, 12345, 2**40 + 7])
def test_philox_in_the_interpreter(monkeypatch, seed):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    bits, u, g = run(seed, 300, lambda x: x)
    check(seed, 300, bits, u, g)


def test_distributions(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    _, u, g = run(7, 20000, lambda x: x)
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    assert abs(g.mean()) < 0.03 and abs(g.std() - 1.0) < 0.03


def test_seeds_and_offsets_differ(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    a = run(1, 256, lambda x: x)[0]
    b = run(2, 256, lambda x: x)[0]
    assert (a != b).mean() > 0.99
    assert len(np.unique(a)) > 1000


def test_compiles_for_sm90():
    ptx = random_kernel.warmup(5, FakeCudaArray((64,), "<u4"),
                               FakeCudaArray((64,), "<f4"),
                               FakeCudaArray((64,), "<f4"), 16, BLOCK=16,
                               grid=(1,), sm=90).asm["ptx"]
    assert "mul.hi.u32" in ptx


@pytest.mark.gpu
def test_gpu_matches_the_reference():
    torch = helpers.torch_cuda()
    seed, n = 2**33 + 99, 1000
    bits, u, g = run(seed, n, lambda x: torch.from_numpy(
        x.view(np.int32) if x.dtype == np.uint32 else x).cuda())
    check(seed, n, bits.cpu().numpy().view(np.uint32), u.cpu().numpy(),
          g.cpu().numpy())
