"""The tensor-descriptor matmul of bench/perf/matmul.py's part 3: host
TensorDescriptors, programs over the output tiles in groups of GROUP tile
rows (Triton's tutorial 03 order), the K loop's blocks read with
desc.load, staged by cp.async or (tma=True) by TMA."""

import quire
import quire.language as tl
from quire.tools.tensor_descriptor import TensorDescriptor


@quire.jit
def desc_matmul(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr,
                BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    in_group = GROUP * tiles_n
    first_m = (pid // in_group) * GROUP
    rows = min(tiles_m - first_m, GROUP)
    pm = first_m + (pid % in_group) % rows
    pn = (pid % in_group) // rows
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc += tl.dot(a, b)
    c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


def launcher(a, b, c, cfg, **options):
    """A call of desc_matmul on torch tensors a (M x K), b (K x N), c with
    `cfg` = (BM, BN, BK, num_warps) and launch options (num_stages,
    async_wgmma, tma)."""
    BM, BN, BK, warps = cfg
    M, K = a.shape
    N = b.shape[1]
    descs = (TensorDescriptor.from_tensor(a, [BM, BK]),
             TensorDescriptor.from_tensor(b, [BK, BN]),
             TensorDescriptor.from_tensor(c, [BM, BN]))
    grid = (-(-M // BM) * -(-N // BN),)

    def run():
        desc_matmul[grid](*descs, M, N, K, BM=BM, BN=BN, BK=BK, GROUP=8,
                          num_warps=warps, **options)
    return run
