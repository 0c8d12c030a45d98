"""Tensor descriptors (tl.make_tensor_descriptor in a kernel, a host
quire.tools.tensor_descriptor.TensorDescriptor argument, desc.load /
desc.store): blocks read with padding outside the shape and written only
inside it, in the interpreter against numpy; their rules checked with
located errors; a matmul through descriptors compiles to the code of the
pointer matmul (16-byte cp.async staging, wgmma); on the GPU the same
kernels against float64."""

import re

import pytest

import quire
import quire.language as tl
from conftest import FakeCudaArray
from quire.tools.tensor_descriptor import TensorDescriptor

np = pytest.importorskip("numpy")


@pytest.fixture
def rng():
    return np.random.default_rng(31)


@quire.jit
def scale_blocks(x_ptr, y_ptr, M, N, ldx, ldy, BM: tl.constexpr,
                 BN: tl.constexpr, SHIFT: tl.constexpr, PAD: tl.constexpr):
    dx = tl.make_tensor_descriptor(x_ptr, [M, N], [ldx, 1], [BM, BN],
                                   padding_option=PAD)
    dy = tl.make_tensor_descriptor(y_ptr, [M, N], [ldy, 1], [BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    # Blocks shifted by SHIFT rows: the first reads above the tensor.
    t = dx.load([pm * BM - SHIFT, pn * BN])
    dy.store([pm * BM - SHIFT, pn * BN], t * 2 + 1)


def _expected_blocks(x, M, N, BM, BN, grid, shift, pad):
    """What scale_blocks writes into a NaN-filled y: each block's elements
    inside [0, M) x [0, N), from x (padding outside never lands there)."""
    y = np.full_like(x, np.nan)
    for pm in range(grid[0]):
        for pn in range(grid[1]):
            for i in range(BM):
                for j in range(BN):
                    r, c = pm * BM - shift + i, pn * BN + j
                    if 0 <= r < M and 0 <= c < N:
                        y[r, c] = x[r, c] * 2 + 1
    return y


@pytest.mark.parametrize("shift", [0, 5])
def test_device_descriptor_blocks(rng, monkeypatch, shift):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    # A 37 x 20 tensor inside a 40 x 24 array: the described shape, not the
    # array, bounds the blocks.
    x = rng.standard_normal((40, 24)).astype(np.float32)
    y = np.full_like(x, np.nan)
    M, N, BM, BN = 37, 20, 16, 8
    grid = (4, 3)
    scale_blocks[grid](x, y, M, N, 24, 24, BM=BM, BN=BN, SHIFT=shift,
                       PAD="zero")
    want = _expected_blocks(x, M, N, BM, BN, grid, shift, "zero")
    np.testing.assert_array_equal(y, want)


@quire.jit
def read_padding(x_ptr, out_ptr, M, N, ldx, BM: tl.constexpr,
                 BN: tl.constexpr, PAD: tl.constexpr):
    dx = tl.make_tensor_descriptor(x_ptr, [M, N], [ldx, 1], [BM, BN],
                                   padding_option=PAD)
    t = dx.load([-3, N - 4])
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, t)


@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_padding(rng, monkeypatch, pad):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    x = rng.standard_normal((10, 16)).astype(np.float32)
    out = np.full((8, 8), 7.0, np.float32)
    read_padding[(1,)](x, out, 10, 12, 16, BM=8, BN=8, PAD=pad)
    fill = 0.0 if pad == "zero" else np.nan
    want = np.full((8, 8), fill, np.float32)
    want[3:, :4] = x[0:5, 8:12]
    np.testing.assert_array_equal(out, want)


@quire.jit
def ranks(x_ptr, y_ptr, v_ptr, w_ptr, A, B, C, n):
    d3 = tl.make_tensor_descriptor(x_ptr, [A, B, C], [B * C, C, 1],
                                   [2, 4, 8])
    e3 = tl.make_tensor_descriptor(y_ptr, [A, B, C], [B * C, C, 1],
                                   [2, 4, 8])
    e3.store([1, 2, 3], d3.load([1, 2, 3]))
    d1 = tl.make_tensor_descriptor(v_ptr, [n], [1], [64])
    e1 = tl.make_tensor_descriptor(w_ptr, [n], [1], [64])
    tl.store_tensor_descriptor(e1, [10], tl.load_tensor_descriptor(d1, [10]))


def test_ranks_one_and_three(rng, monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    x = rng.integers(-50, 50, (3, 5, 9)).astype(np.int32)
    y = np.zeros_like(x)
    v = rng.standard_normal(50).astype(np.float16)
    w = np.zeros_like(v)
    ranks[(1,)](x, y, v, w, 3, 5, 9, 50)
    want = np.zeros_like(x)
    want[1:3, 2:5, 3:9] = x[1:3, 2:5, 3:9]
    np.testing.assert_array_equal(y, want)
    want_w = np.zeros_like(v)
    want_w[10:50] = v[10:50]
    np.testing.assert_array_equal(w, want_w)


@quire.jit
def matmul_desc(a_desc, b_desc, c_desc, K, BM: tl.constexpr,
                BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc += tl.dot(a, b)
    c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


@quire.jit
def matmul_desc_nt(a_desc, bt_desc, c_desc, K, BM: tl.constexpr,
                   BN: tl.constexpr, BK: tl.constexpr):
    # B given transposed (N x K): its blocks are staged as read and fed to
    # the dot through .T.
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        bt = bt_desc.load([pn * BN, k * BK])
        acc += tl.dot(a, bt.T)
    c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


@quire.jit
def matmul_desc_persistent(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr,
                           BN: tl.constexpr, BK: tl.constexpr):
    # Each program walks output tiles; every tile's K loop stages into the
    # same buffers (TMA: its mbarriers initialized and invalidated again).
    tiles_n = tl.cdiv(N, BN)
    for t in range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n,
                   tl.num_programs(0)):
        pm, pn = t // tiles_n, t % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = a_desc.load([pm * BM, k * BK])
            b = b_desc.load([k * BK, pn * BN])
            acc += tl.dot(a, b)
        c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


# The launch options of each way of staging the descriptor operands.
STAGING = {"cp.async": {"tma": False}, "tma": {"tma": True},
           "tma_release": {"tma": True, "tma_release": True},
           "warp_specialize": {"tma": True, "tma_release": True,
                               "warp_specialize": True},
           "producer_warpgroup": {"producer_warpgroup": True}}


def _matmul_descs(a, b, c, BM, BN, BK):
    return (TensorDescriptor.from_tensor(a, [BM, BK]),
            TensorDescriptor.from_tensor(b, [BK, BN]),
            TensorDescriptor.from_tensor(c, [BM, BN]))


def test_host_descriptors_matmul(rng, monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    M, N, K = 70, 40, 56
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    BM, BN, BK = 32, 16, 16
    matmul_desc[(3, 3)](*_matmul_descs(a, b, c, BM, BN, BK), K, BM=BM,
                        BN=BN, BK=BK)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=1e-2,
                               atol=2e-2)


def test_descriptor_matmul_compiles_like_the_pointer_one():
    M = N = K = 4096
    descs = (TensorDescriptor(FakeCudaArray((M, K), "<f2"), [M, K], [K, 1],
                              [128, 64]),
             TensorDescriptor(FakeCudaArray((K, N), "<f2"), [K, N], [N, 1],
                              [64, 128]),
             TensorDescriptor(FakeCudaArray((M, N), "<f2"), [M, N], [N, 1],
                              [128, 128]))
    k = matmul_desc.warmup(*descs, K, grid=(1,), sm=90, num_warps=8,
                           num_stages=3, async_wgmma=True, tma=False, BM=128,
                           BN=128, BK=64)
    ptx = k.asm["ptx"]
    # With tma=False, both operands staged with 16-byte cp.async (128x64 and 64x128 f16
    # tiles over 256 threads: 4 each, one commit group per operand), read
    # by wgmma, kept in flight.
    groups = ptx.split("cp.async.commit_group;")[:-1]
    assert len(groups) >= 2
    for group in groups:
        assert len(re.findall(r"cp\.async\.cg\.shared\.global "
                              r"\[%r\d+(\+\d+)?\], \[%rd\d+(\+\d+)?\], 16",
                              group)) == 4
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    assert "ld.global" not in ptx  # every load goes through cp.async


def test_set_allocator_is_accepted():
    quire.set_allocator(lambda size, alignment, stream: None)
    quire.set_allocator(None)
    with pytest.raises(TypeError, match="expected a callable"):
        quire.set_allocator(3)


def test_host_descriptor_rules():
    a = np.zeros((64, 40), np.float16)
    with pytest.raises(ValueError, match="the last stride must be 1, got 2"):
        TensorDescriptor(a, [64, 20], [40, 2], [16, 16])
    with pytest.raises(ValueError, match="strides other than the last must "
                       "be multiples of 16 bytes, got 36 elements of 2 bytes"):
        TensorDescriptor(a, [64, 36], [36, 1], [16, 16])
    with pytest.raises(ValueError, match="the base address must be a "
                       "multiple of 16 bytes"):
        TensorDescriptor.from_tensor(a.reshape(-1)[1:65], [16])
    with pytest.raises(ValueError, match="must be powers of two of at most "
                       "256"):
        TensorDescriptor.from_tensor(a, [16, 24])
    with pytest.raises(ValueError, match="must hold at least 16 bytes, got "
                       "4 x 2"):
        TensorDescriptor.from_tensor(a, [16, 4])
    with pytest.raises(ValueError, match="padding must be 'zero' or 'nan'"):
        TensorDescriptor.from_tensor(a, [16, 8], padding="inf")
    with pytest.raises(ValueError, match="'nan' padding needs floating-point"):
        TensorDescriptor.from_tensor(np.zeros((8, 8), np.int32), [8, 4],
                                     padding="nan")
    with pytest.raises(ValueError, match="differ in rank"):
        TensorDescriptor(a, [64, 40], [40, 1], [16])
    with pytest.raises(TypeError, match="base must be a tensor or array"):
        TensorDescriptor([1, 2], [2], [1], [8])


@quire.jit
def bad_last_stride(x_ptr, s):
    d = tl.make_tensor_descriptor(x_ptr, [8, 8], [8, s], [8, 8])
    d.load([0, 0])


@quire.jit
def bad_block(x_ptr):
    d = tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 12])
    d.load([0, 0])


@quire.jit
def bad_offsets(x_ptr):
    d = tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 8])
    d.load([0])


@quire.jit
def bad_store_shape(x_ptr):
    d = tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 8])
    d.store([0, 0], tl.zeros((4, 8), dtype=tl.float32))


@quire.jit
def bad_narrow_block(x_ptr):
    d = tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 2])
    d.load([0, 0])


@pytest.mark.parametrize("kernel, args, message", [
    (bad_last_stride, (3,), "the last stride must be the constant 1"),
    (bad_block, (), r"block_shape \[8, 12\] must be powers of two of at "
                    "most 256"),
    (bad_offsets, (), "offsets must be a list of 2 integers"),
    (bad_store_shape, (), r"the value's shape \[4, 8\] is not the block's "
                          r"\[8, 8\]"),
    (bad_narrow_block, (), "must hold at least 16 bytes, got 2 x 4"),
])
def test_kernel_errors_are_located(monkeypatch, kernel, args, message):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    with pytest.raises(quire.CompilationError, match=message) as e:
        kernel[(1,)](np.zeros(64, np.float32), *args)
    assert "test_tensor_descriptor.py:" in str(e.value)


@pytest.mark.gpu
@pytest.mark.parametrize("M, N, K", [(128, 128, 64), (1000, 1024, 4000),
                                     (300, 200, 72)])
@pytest.mark.parametrize("async_wgmma", [False, True])
@pytest.mark.parametrize("staging", list(STAGING))
@pytest.mark.parametrize("num_stages", [3, 4])
def test_matmul_matches_float64_on_the_gpu(M, N, K, async_wgmma, staging,
                                           num_stages):
    torch = pytest.importorskip("torch")
    gen = torch.Generator(device="cuda").manual_seed(M + N + K)
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.half)
    BM, BN, BK = 128, 128, 64
    matmul_desc[(-(-M // BM), -(-N // BN))](
        *_matmul_descs(a, b, c, BM, BN, BK), K, BM=BM, BN=BN, BK=BK,
        num_warps=8, num_stages=num_stages, async_wgmma=async_wgmma,
        **STAGING[staging])
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 2e-3, err


@pytest.mark.gpu
@pytest.mark.parametrize("M, N, K", [(300, 520, 200), (1000, 1024, 4000)])
@pytest.mark.parametrize("tma", [False, True])
def test_transposed_matmul_on_the_gpu(M, N, K, tma):
    torch = pytest.importorskip("torch")
    gen = torch.Generator(device="cuda").manual_seed(M * 7 + K)
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    bt = torch.randn(N, K, device="cuda", generator=gen).half()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.half)
    BM, BN, BK = 128, 128, 64
    matmul_desc_nt[(-(-M // BM), -(-N // BN))](
        TensorDescriptor.from_tensor(a, [BM, BK]),
        TensorDescriptor.from_tensor(bt, [BN, BK]),
        TensorDescriptor.from_tensor(c, [BM, BN]), K, BM=BM, BN=BN,
        BK=BK, num_warps=8, num_stages=3, tma=tma)
    torch.cuda.synchronize()
    ref = a.double() @ bt.double().T
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 2e-3, err


@pytest.mark.gpu
@pytest.mark.parametrize("M, N, K", [(300, 520, 200), (512, 1024, 1024)])
@pytest.mark.parametrize("staging", list(STAGING))
def test_persistent_matmul_on_the_gpu(M, N, K, staging):
    torch = pytest.importorskip("torch")
    gen = torch.Generator(device="cuda").manual_seed(M + 3 * K)
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.half)
    BM, BN, BK = 128, 128, 64
    matmul_desc_persistent[(5,)](*_matmul_descs(a, b, c, BM, BN, BK), M, N,
                                 K, BM=BM, BN=BN, BK=BK, num_warps=8,
                                 num_stages=3, async_wgmma=True,
                                 **STAGING[staging])
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 2e-3, err


def test_tma_matmul_compiles_to_tensor_copies():
    """With tma=True the descriptor operands are staged by one thread's
    cp.async.bulk.tensor per 128-byte column (A 128x64: one; B 64x128:
    two), waited for on mbarriers; no cp.async, no global loads."""
    M = N = K = 4096
    descs = (TensorDescriptor(FakeCudaArray((M, K), "<f2"), [M, K], [K, 1],
                              [128, 64]),
             TensorDescriptor(FakeCudaArray((K, N), "<f2"), [K, N], [N, 1],
                              [64, 128]),
             TensorDescriptor(FakeCudaArray((M, N), "<f2"), [M, N], [N, 1],
                              [128, 128]))
    def warm(sm=90, **options):
        return matmul_desc.warmup(*descs, K, grid=(1,), sm=sm, num_warps=8,
                                  num_stages=3, BM=128, BN=128, BK=64,
                                  **options)

    k = warm(tma=True)
    src, ptx = k.asm["source"], k.asm["ptx"]
    assert src.count(": !tile.tensormap") == 3
    # Prologue: 2 stages x 3 copies; the loop: 3.
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == 9
    assert ptx.count("mbarrier.try_wait.parity") == 2
    assert ptx.count(".param .align 64 .b8") == 3
    assert "cp.async.cg" not in ptx and "ld.global" not in ptx
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in ptx
    # tma_release: no CTA barrier in the loop; each warp arrives on the
    # stage's release mbarrier (8 warps), thread 0 waits for it.
    k = warm(tma=True, tma_release=True)
    ptx = k.asm["ptx"]
    # The K loop: from its label to the branch back to it.
    label = re.search(r"(\$L__BB\d+_\d+):(?:(?!\$L__BB).)*wait_acquire:",
                      ptx, re.S).group(1)
    loop = ptx[ptx.index(label + ":"):ptx.rindex("bra \t" + label + ";")]
    assert "wait_acquire:" in loop and "bar.sync" not in loop
    assert "mbarrier.arrive.shared::cta.b64 _," in loop
    assert re.search(r"mbarrier\.init\.shared::cta\.b64 \[%r\d+\], 8;", ptx)
    # warp_specialize: a ninth warp issues the copies; the consumers' barriers
    # are named barriers of their 256 threads.
    # (warp_specialize implies tma_release and tma.)
    k = warm(warp_specialize=True)
    assert k.metadata["threads"] == 288
    assert ".maxntid 288, 1, 1" in k.asm["ptx"]
    assert "bar.sync \t1, 256;" in k.asm["ptx"]
    assert "tile.is_producer" in k.asm["tile"]
    assert "setmaxnreg" not in k.asm["ptx"]
    # producer_warpgroup (implies warp_specialize): a producer warpgroup
    # gives its registers to the two consumer warpgroups.
    k = warm(producer_warpgroup=True)
    assert k.metadata["threads"] == 384
    assert ".maxntid 384, 1, 1" in k.asm["ptx"]
    assert "setmaxnreg.dec.sync.aligned.u32 24;" in k.asm["ptx"]
    assert "setmaxnreg.inc.sync.aligned.u32 240;" in k.asm["ptx"]
    assert "bar.sync \t1, 256;" in k.asm["ptx"]
    # TMA is the default; tma=False keeps cp.async and takes no tensor maps,
    # and so does a kernel for sm_80, where nothing reads them.
    k = warm()
    assert "cp.async.bulk.tensor" in k.asm["ptx"]
    k = warm(tma=False)
    assert "!tile.tensormap" not in k.asm["source"]
    assert "cp.async.bulk" not in k.asm["ptx"]
    k = warm(sm=80)
    assert "!tile.tensormap" not in k.asm["source"]
    assert "cp.async.bulk" not in k.asm["ptx"]


def test_tensormap_encoding_arguments():
    """What the launcher asks cuTensorMapEncodeTiled for (checked without a
    GPU): dims and byte strides innermost first, a box of S bytes by the
    block's rows, S-byte swizzle, zero fill; blocks TMA cannot stage take
    no tensor map."""
    from quire import _cuda
    from quire.tools.tensor_descriptor import tma_box
    assert tma_box(16, [128, 64], "zero") == (64, 128, 128)
    assert tma_box(16, [64, 128], "zero") == (64, 64, 128)
    assert tma_box(16, [64, 32], "zero") == (32, 64, 64)
    assert tma_box(16, [64, 16], "zero") == (16, 64, 32)
    assert tma_box(16, [64, 8], "zero") is None      # 16-byte rows
    assert tma_box(32, [64, 64], "zero") is None     # not 16-bit
    assert tma_box(16, [64, 64], "nan") is None      # NaN padding
    assert tma_box(16, [8, 8, 64], "zero") is None   # rows along two dims
    assert tma_box(16, [1, 16, 1, 128], "zero") == (64, 16, 128)  # a page
    args = _cuda.tensormap_args("bf16", [4000, 1000], [8192], [64, 128], 128)
    dtype, rank, dims, strides, box, elem, inter, swz, l2, oob = args
    assert (dtype, rank, list(dims), list(strides)) == (9, 2, [4000, 1000],
                                                        [8192])
    assert (list(box), list(elem), inter, swz, oob) == ([64, 128], [1, 1], 0,
                                                        3, 0)
    with pytest.raises(ValueError, match="multiples of 16 bytes"):
        _cuda.tensormap_args("f16", [40, 10], [80 + 8], [32, 8], 64)
    with pytest.raises(ValueError, match="f32 elements are not supported"):
        _cuda.tensormap_args("f32", [40, 10], [160], [32, 8], 128)


def test_tensormap_follows_the_descriptor(monkeypatch):
    """A descriptor's tensor map is encoded again when its address, shape
    or strides change (lists changed in place too, which are checked
    again); an empty tensor's map describes one zero element. Checked with
    the driver's encoder replaced by a recorder."""
    from quire import _cuda
    calls = []

    def encode(ptr, dtype, dims, strides, box, swizzle):
        calls.append((ptr, dtype, list(dims), list(strides), list(box),
                      swizzle))
        return bytes([len(calls)]) * 128

    monkeypatch.setattr(_cuda, "encode_tensormap", encode)
    monkeypatch.setattr(_cuda, "zeros_address", lambda: 0xA000)
    x = FakeCudaArray((256, 96), "<f2")
    d = TensorDescriptor(x, [256, 96], [96, 1], [128, 64])
    ptr = x.__cuda_array_interface__["data"][0]
    first = d._tensormap()
    assert calls == [(ptr, "f16", [96, 256], [192], [64, 128], 128)]
    assert d._tensormap() is first and len(calls) == 1  # cached
    d.shape[0] = 200  # in place: encoded again
    assert d._tensormap() != first
    assert calls[-1][2] == [96, 200]
    with pytest.raises(ValueError, match="strides other than the last"):
        d.strides[0] = 95  # checked again when next encoded
        d._tensormap()
    d.strides[0] = 96
    d.shape[1] = 0  # empty: one zero element
    d._tensormap()
    assert calls[-1][0] == 0xA000 and calls[-1][2] == [1, 1]


@pytest.mark.gpu
@pytest.mark.parametrize("shift", [0, 5])
def test_blocks_on_the_gpu(shift):
    torch = pytest.importorskip("torch")
    gen = torch.Generator(device="cuda").manual_seed(9)
    x = torch.randn(40, 24, device="cuda", generator=gen)
    y = torch.full_like(x, float("nan"))
    M, N, BM, BN = 37, 20, 16, 8
    scale_blocks[(4, 3)](x, y, M, N, 24, 24, BM=BM, BN=BN, SHIFT=shift,
                         PAD="zero")
    want = _expected_blocks(x.cpu().numpy(), M, N, BM, BN, (4, 3), shift,
                            "zero")
    np.testing.assert_array_equal(y.cpu().numpy(), want)


def test_changed_fields_are_checked_again():
    a = np.zeros((64, 40), np.float16)
    d = TensorDescriptor.from_tensor(a, [16, 8])
    d.block_shape = [16, 16]
    assert d.block_shape == [16, 16]
    with pytest.raises(ValueError, match="the last stride must be 1"):
        d.strides = [40, 2]
    with pytest.raises(TypeError, match="bool elements are not supported"):
        TensorDescriptor.from_tensor(np.zeros((8, 16), np.bool_), [8, 16])
