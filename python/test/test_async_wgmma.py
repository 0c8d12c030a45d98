"""async_wgmma: a matmul's K loop keeps each iteration's wgmma group in flight
while the next iteration waits for its copies (quire-async-copies
async-wgmma). The PTX has the pipeline's shape (wait_group 1 in the loop,
0 after it), ptxas takes it without serializing, the option is validated
and part of the caches' keys, and on the GPU the kernels agree with float64
on ragged shapes."""

import re

import pytest

import quire
import quire.language as tl
from conftest import FakeCudaArray, ptxas_sm90a

np = pytest.importorskip("numpy")


@quire.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak,
                  stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, PLUS_EQUALS: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) &
                    (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) &
                    (offs_n[None, :] < N), other=0.0)
        if PLUS_EQUALS:
            acc += tl.dot(a, b)
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _warmup(num_stages, async_wgmma, plus_equals=False, block=(128, 128, 64),
            num_warps=8):
    M = N = K = 4096
    args = (FakeCudaArray((M, K), "<f2"), FakeCudaArray((K, N), "<f2"),
            FakeCudaArray((M, N), "<f2"), M, N, K, K, 1, N, 1, N, 1)
    bm, bn, bk = block
    return matmul_kernel.warmup(
        *args, grid=(1,), sm=90, num_warps=num_warps, num_stages=num_stages,
        async_wgmma=async_wgmma, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        PLUS_EQUALS=plus_equals)


def _waits(ptx):
    return re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+);", ptx)


@pytest.mark.parametrize("plus_equals", [False, True])
@pytest.mark.parametrize("num_stages", [3, 4])
def test_the_loop_keeps_a_group_in_flight(num_stages, plus_equals):
    # `acc += tl.dot(a, b)` is folded into the dot's accumulator, so both
    # spellings of Triton's matmul loop get the pipeline.
    ptx = _warmup(num_stages, True, plus_equals).asm["ptx"]
    assert _waits(ptx) == ["1", "0"]
    waits = re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx)
    late = re.search(r"wgmma\.wait_group\.sync\.aligned 1;\s*"
                     r"// end inline asm\s*cp\.async\.wait_group\s+\d+;\s*"
                     r"bar\.sync\s+0;", ptx)
    if num_stages == 3:
        # Late refill: the copies run 2 iterations ahead, issued after the
        # group wait and a barrier; the loop's first cp.async wait lets one
        # iteration's two copies stay pending, the second (the barrier's)
        # completes nothing.
        assert waits[:2] == ["2", "2"] and late
    else:
        # 4 stages: refilled at the top, 2 iterations ahead, one barrier.
        assert waits[0] == "2" and not late


def test_off_by_default_and_on_with_two_stages():
    assert _waits(_warmup(3, False).asm["ptx"]) == ["0"]
    assert _waits(_warmup(2, True).asm["ptx"]) == ["1", "0"]


@pytest.mark.parametrize("block, num_warps", [
    ((128, 128, 64), 8), ((128, 256, 64), 8), ((64, 64, 32), 4),
    ((128, 128, 32), 4)])
def test_ptxas_keeps_the_pipeline(block, num_warps):
    # ptxas serializes wgmmas it cannot keep in flight (C7515) and inserts
    # waits before early reads of their registers (C7517); neither here.
    ptx = _warmup(4, True, block=block, num_warps=num_warps).asm["ptx"]
    assert _waits(ptx) == ["1", "0"]
    report = ptxas_sm90a(ptx, f"async_wgmma_{'x'.join(map(str, block))}")
    assert "C75" not in report


def test_option_is_validated_and_keyed():
    with pytest.raises(TypeError,
                       match="async_wgmma must be True or False, got str"):
        _warmup(3, "yes")
    on, off = _warmup(3, True), _warmup(3, False)
    assert on is not off
    assert _waits(on.asm["ptx"]) != _waits(off.asm["ptx"])


def test_interpreter_accepts_the_option(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    rng = np.random.default_rng(5)
    M, N, K = 70, 50, 100
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    matmul_kernel[(2, 1)](a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_M=64,
                          BLOCK_N=64, BLOCK_K=32, PLUS_EQUALS=True,
                          num_stages=3, async_wgmma=True)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=2e-2, atol=2e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("block, num_warps, num_stages", [
    ((128, 128, 64), 8, 3), ((128, 128, 64), 8, 4), ((128, 256, 64), 8, 3),
    ((64, 64, 32), 4, 4), ((128, 128, 32), 4, 5)])
@pytest.mark.parametrize("M, N, K", [(128, 128, 64), (1000, 1024, 4000),
                                     (513, 264, 40), (300, 200, 16)])
def test_matches_float64_on_the_gpu(block, num_warps, num_stages, M, N, K):
    torch = pytest.importorskip("torch")
    gen = torch.Generator(device="cuda").manual_seed(M * 7 + N + K)
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    ref = a.double() @ b.double()
    bm, bn, bk = block
    grid = (-(-M // bm), -(-N // bn))
    for aw in (True, False):
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.half)
        k = matmul_kernel[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1,
                                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                PLUS_EQUALS=False, num_warps=num_warps,
                                num_stages=num_stages, async_wgmma=aw)
        torch.cuda.synchronize()
        # Leading dimensions of 40 or 200 halves are not specialized as
        # multiples of 16: no wgmma staging there (mma.sync), so nothing to
        # keep in flight.
        ptx = k.asm["ptx"]
        assert ("wgmma.mma_async" in ptx) == (K % 16 == 0 and N % 16 == 0)
        if aw and "wgmma.mma_async" in ptx:
            assert _waits(ptx)[0] == "1"
        err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
        assert err < 2e-3, (aw, err)


@pytest.mark.parametrize("producer_warpgroup, threads", [(False, 512),
                                                          (True, 384)])
@pytest.mark.parametrize("num_stages", [2, 3])
def test_producer_warps_issue_the_copies(num_stages, producer_warpgroup,
                                         threads):
    # warp_specialize on a loop staged with cp.async (pointer loads, no
    # tensor maps): producer warps (8, or a warpgroup) issue every copy and
    # complete each stage's mbarrier; the consumers' loop has no cp.async
    # and no CTA barrier; with async wgmma the loop is left as it was.
    M = N = K = 4096
    args = (FakeCudaArray((M, K), "<f2"), FakeCudaArray((K, N), "<f2"),
            FakeCudaArray((M, N), "<f2"), M, N, K, K, 1, N, 1, N, 1)
    k = matmul_kernel.warmup(
        *args, grid=(1,), sm=90, num_warps=8, num_stages=num_stages,
        BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, PLUS_EQUALS=False,
        warp_specialize=True, producer_warpgroup=producer_warpgroup)
    ptx = k.asm["ptx"]
    assert k.kernel.threads == threads
    # A and B: the prologue's fills and the loop's.
    assert ptx.count("cp.async.mbarrier.arrive.noinc") == 2 * num_stages
    assert "cp.async.wait_group" not in ptx
    report = ptxas_sm90a(ptx, f"ws_matmul_{num_stages}_{threads}", True)
    assert "C75" not in report and " 0 bytes spill stores" in report
    kept = matmul_kernel.warmup(
        *args, grid=(1,), sm=90, num_warps=8, num_stages=3, BLOCK_M=128,
        BLOCK_N=128, BLOCK_K=64, PLUS_EQUALS=False, warp_specialize=True,
        async_wgmma=True)
    assert kept.kernel.threads == 256 and _waits(kept.asm["ptx"]) == ["1", "0"]


@pytest.mark.gpu
@pytest.mark.parametrize("options", [
    dict(warp_specialize=True), dict(warp_specialize=True, num_stages=3),
    dict(warp_specialize=True, producer_warpgroup=True),
    dict(warp_specialize=True, producer_warpgroup=True, pingpong=True)])
@pytest.mark.parametrize("M, N, K", [(1000, 1024, 4000), (128, 128, 64),
                                     (300, 256, 48)])
def test_producer_warps_match_float64_on_the_gpu(options, M, N, K):
    torch = pytest.importorskip("torch")
    gen = torch.Generator(device="cuda").manual_seed(M + N * 3 + K)
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    ref = a.double() @ b.double()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.half)
    matmul_kernel[(-(-M // 128), -(-N // 128))](
        a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_M=128, BLOCK_N=128,
        BLOCK_K=64, PLUS_EQUALS=False, num_warps=8,
        **{"num_stages": 2, **options})
    torch.cuda.synchronize()
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 2e-3, (options, err)


@quire.jit
def staged_loop(a_ptr, b_ptr, c_ptr, K, STAGES: tl.constexpr):
    offs = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    a_ptrs = a_ptr + offs[:, None] * K + offs[None, :]
    b_ptrs = b_ptr + offs[:, None] * 64 + offs[None, :]
    for k in tl.range(0, K // 64, num_stages=STAGES):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += 64
        b_ptrs += 64 * 64
    tl.store(c_ptr + offs[:, None] * 64 + offs[None, :], acc)


def _staged(stages, **kw):
    K = 4096
    args = (FakeCudaArray((64, K), "<f2"), FakeCudaArray((K, 64), "<f2"),
            FakeCudaArray((64, 64), "<f4"), K)
    return staged_loop.warmup(*args, grid=(1,), sm=90, STAGES=stages, **kw)


def test_loop_num_stages_overrides_the_launchs():
    # tl.range(..., num_stages=N) is the loop's staging depth whatever the
    # launch's num_stages: buffers (shared memory) grow with it, 0 and 1
    # leave the loop unstaged, and async_wgmma follows the loop's depth.
    one, two, four = (_staged(s, num_stages=2) for s in (1, 2, 4))
    assert "cp.async" not in one.asm["ptx"]
    assert "tile.num_stages = 4 : i32" in four.asm["source"]
    # Two stages more: two more 64x64 f16 tiles of A and of B.
    assert four.shared - two.shared == 2 * 2 * 64 * 64 * 2
    k = _staged(3, num_stages=2, async_wgmma=True)
    assert _waits(k.asm["ptx"]) == ["1", "0"]


@pytest.mark.parametrize("stages", [9, -1, 2.5, True])
def test_loop_num_stages_is_checked(stages):
    with pytest.raises(quire.CompilationError,
                       match=r"tl.range: num_stages must be a constexpr int "
                             r"in \[0, 8\]") as e:
        _staged(stages)
    assert "test_async_wgmma.py:" in str(e.value)


@quire.jit
def staged_hinted(a_ptr, b_ptr, c_ptr, i_ptr, K):
    offs = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    idx = tl.zeros((64,), dtype=tl.int32)
    for k in tl.range(0, K, 64, num_stages=3):
        a = tl.load(a_ptr + offs[:, None] * K + (k + offs)[None, :])
        acc += tl.dot(a, tl.load(b_ptr + (k + offs)[:, None] * 64 +
                                 offs[None, :]))
        idx += 16
    idx = tl.multiple_of(idx, 16)  # a hint on one of the loop's results
    tl.store(c_ptr + offs[:, None] * 64 + offs[None, :], acc)
    tl.store(i_ptr + offs, idx)


def test_loop_attribute_shares_the_attr_dict_with_hints():
    args = (FakeCudaArray((64, 4096), "<f2"), FakeCudaArray((4096, 64), "<f2"),
            FakeCudaArray((64, 64), "<f4"), FakeCudaArray((64,), "<i4"), 4096)
    k = staged_hinted.warmup(*args, grid=(1,), sm=90)
    assert "tile.num_stages = 3 : i32" in k.asm["source"]
    assert k.shared >= 3 * 2 * 64 * 64 * 2  # three stages of A and B
