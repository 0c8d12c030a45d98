"""tl.atomic_add/max/min/and/or/xor/xchg/cas: kernels run by the reference
interpreter (QUIRE_INTERPRET, in CI) and on the GPU (marked gpu), checked
against numpy; the MLIR they emit; their errors, located."""

import os

import pytest

import quire
import quire.language as tl
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")


@quire.jit
def counter_kernel(counter_ptr, order_ptr):
    # Each program takes a ticket; the tickets are a permutation.
    ticket = tl.atomic_add(counter_ptr, 1)
    tl.store(order_ptr + tl.program_id(0), ticket)


@quire.jit
def histogram_kernel(x_ptr, hist_ptr, n, BINS: tl.constexpr,
                     BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x % BINS, 1, mask=mask, sem="relaxed")


@quire.jit
def reduce_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # out[0] += sum, out[1] = max, out[2] = min (f32), from every program.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))
    tl.atomic_max(out_ptr + 1 + tl.zeros([BLOCK], tl.int32), x, mask=mask)
    tl.atomic_min(out_ptr + 2 + tl.zeros([BLOCK], tl.int32), x, mask=mask)


@quire.jit
def bits_kernel(words_ptr, u_ptr, old_ptr):
    pid = tl.program_id(0)
    bit = 1 << pid
    a = tl.atomic_or(words_ptr, bit)
    b = tl.atomic_xor(words_ptr + 1, bit)
    c = tl.atomic_and(words_ptr + 2, ~bit)
    d = tl.atomic_xchg(words_ptr + 3, pid)
    e = tl.atomic_max(u_ptr, (pid * 0x40000000).to(tl.uint32))
    tl.store(old_ptr + pid * 5 + tl.arange(0, 8),
             tl.where(tl.arange(0, 8) == 0, a,
                      tl.where(tl.arange(0, 8) == 1, b,
                               tl.where(tl.arange(0, 8) == 2, c,
                                        tl.where(tl.arange(0, 8) == 3, d,
                                                 e.to(tl.int32))))),
             mask=tl.arange(0, 8) < 5)


@quire.jit
def last_program_kernel(part_ptr, count_ptr, total_ptr, NPROG: tl.constexpr,
                        BLOCK: tl.constexpr):
    # The split-K / split-KV pattern: each program writes its part (a block,
    # every thread storing some of it), the last to arrive (acq_rel on the
    # counter: the program's stores before it, its loads after) reads every
    # part and resets the counter.
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(part_ptr + pid * BLOCK + offs, (pid + 1) * 10 + offs)
    arrived = tl.atomic_add(count_ptr, 1)
    if arrived == NPROG - 1:
        rows = tl.arange(0, NPROG)
        parts = tl.load(part_ptr + rows[:, None] * BLOCK + offs[None, :])
        tl.store(total_ptr, tl.sum(tl.sum(parts, axis=1), axis=0))
        tl.atomic_xchg(count_ptr, 0)


@quire.jit
def lock_kernel(lock_ptr, value_ptr):
    # A spin lock around a read-modify-write of a plain value.
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    v = tl.load(value_ptr)
    tl.store(value_ptr, v + 1)
    tl.atomic_xchg(lock_ptr, 0)


def _expected_total(nprog, block):
    return sum((p + 1) * 10 * block + block * (block - 1) // 2
               for p in range(nprog))


def _interpret(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")


def test_counter_tickets(monkeypatch):
    _interpret(monkeypatch)
    counter = np.zeros(1, np.int32)
    order = np.full(37, -1, np.int32)
    counter_kernel[(37,)](counter, order)
    assert counter[0] == 37
    assert sorted(order.tolist()) == list(range(37))


def test_histogram(monkeypatch):
    _interpret(monkeypatch)
    x = np.random.default_rng(0).integers(0, 1000, 3000).astype(np.int32)
    hist = np.zeros(16, np.int32)
    histogram_kernel[(3,)](x, hist, 3000, BINS=16, BLOCK=1024)
    assert np.array_equal(hist, np.bincount(x % 16, minlength=16))


def test_float_reductions(monkeypatch):
    _interpret(monkeypatch)
    x = np.random.default_rng(1).standard_normal(3000).astype(np.float32)
    out = np.array([0.0, -np.inf, np.inf], np.float32)
    reduce_kernel[(3,)](x, out, 3000, BLOCK=1024)
    assert abs(out[0] - x.astype(np.float64).sum()) < 1e-3
    assert out[1] == x.max() and out[2] == x.min()


def test_bitwise_xchg_and_unsigned_max(monkeypatch):
    _interpret(monkeypatch)
    words = np.array([0, 0, -1, -1], np.int32)
    u = np.zeros(1, np.uint32)
    old = np.zeros(4 * 5, np.int32)
    bits_kernel[(4,)](words, u, old)
    assert words.tolist() == [15, 15, -16, 3]
    assert u[0] == 3 * 0x40000000  # unsigned: above 2**31
    # The interpreter runs the programs in order: each saw the one before.
    assert old.reshape(4, 5)[:, 3].tolist() == [-1, 0, 1, 2]


def test_last_program_combines_and_resets(monkeypatch):
    _interpret(monkeypatch)
    part = np.zeros(8 * 256, np.int32)
    count = np.zeros(1, np.int32)
    total = np.zeros(1, np.int32)
    last_program_kernel[(8,)](part, count, total, NPROG=8, BLOCK=256)
    assert total[0] == _expected_total(8, 256) and count[0] == 0


def test_spin_lock(monkeypatch):
    _interpret(monkeypatch)
    lock, value = np.zeros(1, np.int32), np.zeros(1, np.int32)
    lock_kernel[(5,)](lock, value)
    assert value[0] == 5 and lock[0] == 0


def test_mlir_names_kind_semantic_and_scope():
    a = FakeCudaArray((1024,), "<u4")
    src = bits_kernel.warmup(FakeCudaArray((1024,), "<i4"), a,
                             FakeCudaArray((1024,), "<i4"), grid=(1,),
                             sm=90).asm["source"]
    for kind in ("or", "xor", "and", "xchg", "umax"):
        assert f"tile.atomic_rmw {kind}," in src
    src = histogram_kernel.warmup(FakeCudaArray((1024,), "<i4"),
                                  FakeCudaArray((1024,), "<i4"), 100,
                                  BINS=16, BLOCK=64, grid=(1,),
                                  sm=90).asm["source"]
    assert "sem(relaxed)" in src and "scope(" not in src
    ptx = lock_kernel.warmup(FakeCudaArray((4,), "<i4"),
                             FakeCudaArray((4,), "<i4"), grid=(1,),
                             sm=90).asm["ptx"]
    assert "atom.acq_rel.gpu.global.cas.b32" in ptx


@quire.jit
def bad_kernel(p_ptr, f16_ptr, WHAT: tl.constexpr):
    if WHAT == 0:
        tl.atomic_add(f16_ptr, 1.0)
    elif WHAT == 1:
        tl.atomic_xor(p_ptr, 1.0)
    elif WHAT == 2:
        tl.atomic_add(p_ptr, 1, sem="seq_cst")
    else:
        tl.atomic_add(p_ptr, 1, scope="warp")


@pytest.mark.parametrize("what, message", [
    (0, "tl.atomic_add of tl.float16 is not supported: atomics take 32- and "
        "64-bit"),
    (1, "tl.atomic_xor of tl.float32 is not supported: it takes integers"),
    (2, "tl.atomic_add: sem must be one of 'acq_rel', 'acquire', 'release', "
        "'relaxed', got 'seq_cst'"),
    (3, "tl.atomic_add: scope must be one of 'gpu', 'cta', 'sys', got 'warp'"),
])
def test_errors_are_located(what, message):
    f32 = FakeCudaArray((16,), "<f4")
    with pytest.raises(quire.CompilationError) as e:
        bad_kernel.warmup(f32, FakeCudaArray((16,), "<f2"), WHAT=what,
                          grid=(1,), sm=90)
    assert message in str(e.value)
    assert f"{os.path.basename(__file__)}:" in str(e.value)


# --- on the GPU -----------------------------------------------------------

@pytest.mark.gpu
def test_gpu_atomics():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    dev = "cuda"
    counter = torch.zeros(1, dtype=torch.int32, device=dev)
    order = torch.full((1000,), -1, dtype=torch.int32, device=dev)
    counter_kernel[(1000,)](counter, order)
    assert counter.item() == 1000
    assert torch.equal(order.sort().values,
                       torch.arange(1000, dtype=torch.int32, device=dev))

    x = torch.randint(0, 1000, (100000,), dtype=torch.int32, device=dev)
    hist = torch.zeros(16, dtype=torch.int32, device=dev)
    histogram_kernel[(98,)](x, hist, 100000, BINS=16, BLOCK=1024)
    assert torch.equal(hist, torch.bincount(x % 16, minlength=16).int())

    xf = torch.randn(100000, device=dev)
    out = torch.tensor([0.0, float("-inf"), float("inf")], device=dev)
    reduce_kernel[(98,)](xf, out, 100000, BLOCK=1024)
    assert abs(out[0].item() - xf.double().sum().item()) < 1e-1
    assert out[1].item() == xf.max().item()
    assert out[2].item() == xf.min().item()

    words = torch.tensor([0, 0, -1, -1], dtype=torch.int32, device=dev)
    u = torch.zeros(1, dtype=torch.int64, device=dev).view(torch.int32)[:1]
    old = torch.zeros(20, dtype=torch.int32, device=dev)
    bits_kernel[(4,)](words, quire.reinterpret(u, tl.uint32), old)
    assert words[:3].tolist() == [15, 15, -16]
    assert words[3].item() in range(4)
    assert (u.item() & 0xFFFFFFFF) == 3 * 0x40000000

    count = torch.zeros(1, dtype=torch.int32, device=dev)
    for _ in range(20):  # the counter is reset: the kernel runs again
        part = torch.full((64 * 256,), -1, dtype=torch.int32, device=dev)
        total = torch.zeros(1, dtype=torch.int32, device=dev)
        last_program_kernel[(64,)](part, count, total, NPROG=64, BLOCK=256,
                                   num_warps=8)
        assert total.item() == _expected_total(64, 256)
        assert count.item() == 0

    lock = torch.zeros(1, dtype=torch.int32, device=dev)
    value = torch.zeros(1, dtype=torch.int32, device=dev)
    lock_kernel[(200,)](lock, value)
    torch.cuda.synchronize()
    assert value.item() == 200 and lock.item() == 0
