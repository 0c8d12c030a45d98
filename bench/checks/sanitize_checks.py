"""Small launches of every kernel for compute-sanitizer memcheck and racecheck.

Ragged lengths, tiles that end mid-page, empty sequences: the examples
(vector add, softmax, matmul, single-pass paged decode), the decode op in
both kernel forms with one and several splits, 64-token tiles on 2 warps,
a padded head dim in bf16, the tensor-core matmul at its benchmark tile
shape (and with async wgmma at 3 and 4 stages), the tensor-descriptor
matmul under each staging (cp.async, TMA, TMA with release mbarriers, a
producer warp, a producer warpgroup with setmaxnreg), the prefill op in
every tile configuration, with its two warpgroups in ping-pong, with
early dots (the query in shared memory), with the softmax beside the
previous P V, with producer warps and their registers set, with the
chunk's K/V separate and in the cache, persistent (programs taking
several tiles in turn), the fused-attention tutorial with
a producer warpgroup (causal and not), and unified_attention on a
mixed ragged batch with every feature on (window, softcap, ALiBi, sinks,
lse, descales), with one and several splits, over fp16 and fp8 (e4m3fn,
e5m2) caches.

    compute-sanitizer --tool memcheck python3 bench/run.py sanitize_checks
    compute-sanitizer --tool racecheck python3 bench/run.py sanitize_checks
    compute-sanitizer --tool synccheck python3 bench/run.py sanitize_checks
"""

import math
import os
import sys

from lib.env import EXAMPLES, ROOT, parser, require_torch

TUTORIALS = os.path.join(ROOT, "python", "tutorials")


def main(argv=None):
    parser("sanitize_checks", __doc__).parse_args(argv)
    torch = require_torch()
    import quire
    from quire import ops
    from lib import prefill
    from lib.kernels import matmul_mlir
    from lib.reference import make_paged_kv
    from perf.frontend import load_module

    ex = lambda name: os.path.join(EXAMPLES, name)
    gen = torch.Generator(device="cuda").manual_seed(5)
    n = 3001
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    quire.compile(ex("vector_add.mlir"))[((n + 1023) // 1024,)](x, y, torch.empty_like(x), n)
    a = torch.randn(37, 1000, device="cuda")
    quire.compile(ex("softmax.mlir"))[(37,)](a, torch.empty_like(a), 1000, 1000)
    A = torch.randn(100, 50, device="cuda").half()
    B = torch.randn(50, 72, device="cuda").half()
    C = torch.empty(100, 72, device="cuda").half()
    quire.compile(ex("matmul.mlir"))[(2, 2)](A, B, C, 100, 72, 50, 50, 72, 72)

    lens = [0, 1, 17, 300, 65, 129]
    kc, vc, bt = make_paged_kv(6, 2, 128, 16, lens, torch.half, gen)
    q = torch.randn(6, 8, 128, device="cuda").half()
    sl = torch.tensor(lens, dtype=torch.int32, device="cuda")
    scale = 1 / math.sqrt(128)
    pd = quire.compile(ex("paged_decode_attention.mlir"))
    pd[(6, 2)](torch.empty_like(q), q, kc, vc, bt, sl, scale, 8, bt.shape[1],
               kc.stride(0), kc.stride(1), kc.stride(2))
    # The op: split-KV and one split, in the form it picks for this group
    # (transposed) and the row form; 64-token tiles on 2 warps.
    for ns in (3, 1):
        ops.paged_decode_attention(q, kc, vc, bt, sl, num_splits=ns)
        ops._paged_decode(q, kc, vc, bt, sl, None, None, None, ns, transposed=False)
    ops._paged_decode(q, kc, vc, bt, sl, None, None, None, 3, block_n=64, num_warps=2)
    # A padded head dim, an odd group and small pages, in bf16.
    lens2 = [0, 1, 41, 200]
    kc2, vc2, bt2 = make_paged_kv(4, 2, 80, 8, lens2, torch.bfloat16, gen)
    q2 = torch.randn(4, 6, 80, device="cuda").bfloat16()
    ops.paged_decode_attention(q2, kc2, vc2, bt2,
                               torch.tensor(lens2, dtype=torch.int32, device="cuda"))

    # Tensor-core kernels: the matmul at its benchmark tile shape (ragged M)
    # and the prefill (ragged contexts and chunks, tiles crossing pages).
    A = torch.randn(200, 96, device="cuda").half()
    B = torch.randn(96, 160, device="cuda").half()
    C = torch.empty(200, 160, device="cuda").half()
    quire.compile(matmul_mlir(128, 128, 32, aligned=True))[(2, 2)](
        A, B, C, 200, 160, 96, 96, 160, 160)
    # wgmma groups in flight across iterations (stages reused one iteration
    # later), 3 and 4 stages, K not a multiple of the tile.
    for stages in (3, 4):
        quire.compile(matmul_mlir(128, 128, 32, aligned=True), num_stages=stages,
                      async_wgmma=True)[(2, 2)](A, B, C, 200, 160, 96, 96, 160, 160)
    # Host tensor descriptors: the K loop staged by cp.async, by TMA, by TMA
    # with per-stage release mbarriers, by a producer warp and by a producer
    # warpgroup (M, N, K not multiples of the tile: the copies' boxes cross
    # every edge).
    from lib.desc_matmul import launcher
    A = torch.randn(200, 200, device="cuda").half()
    B = torch.randn(200, 136, device="cuda").half()
    C = torch.empty(200, 136, device="cuda").half()
    for staging in (dict(tma=False), dict(tma=True), dict(tma_release=True),
                    dict(warp_specialize=True), dict(producer_warpgroup=True)):
        launcher(A, B, C, (128, 128, 64, 8), num_stages=3, async_wgmma=True,
                 **staging)()
    inp = prefill.make_inputs([0, 40, 300], [70, 3, 200], 16, gen, 8, 2)
    runs = [(cfg, {}) for cfg in [prefill.DEFAULT] + prefill.configs(torch)]
    # The two warpgroups half an iteration apart (quire-pingpong), the
    # next scores in flight with the query in shared memory (early dots),
    # at 128 and 64 keys a step, gathered rows, the producer warps (on by
    # default) in each form, the softmax beside the previous P V
    # (overlap_softmax), the producer's registers set, and each chunk's
    # query blocks in order.
    runs += [(cfg, o) for name, cfg, o in prefill.ABLATION
             if o.get("pingpong") or o.get("early_dots") or
             o.get("gathered_rows") or "warp_specialize" in o or
             "producer_warpgroup" in o or o.get("overlap_softmax") or
             "producer_registers" in o or "last_first" in o]
    for cfg, options in runs:
        # (An ablation column that names its chunk source runs only that.)
        options = dict(options)
        pinned = options.pop("separate", None)
        for separate in (True, False) if pinned is None else (pinned,):
            prefill.run_quire(inp, scale, torch.empty_like(inp["q"]), cfg,
                              separate, **options)
    # Persistent programs over more tiles than SMs (32 query heads: 192
    # tiles), so programs take several in turn.
    pinp = prefill.make_inputs([0, 40, 300], [70, 3, 200], 16, gen)
    for separate in (True, False):
        prefill.run_quire(pinp, scale, torch.empty_like(pinp["q"]),
                          prefill.DEFAULT, separate, persistent=True)
    # The fused-attention tutorial with a producer warpgroup, 128 x 128
    # tiles, causal and not: the consumers read the query from shared memory
    # (docs/passes.md, "Loop-invariant A operands of wgmma loops").
    tut = load_module("fused_attention_tutorial",
                      os.path.join(TUTORIALS, "06-fused-attention.py"))
    qa, ka, va = (torch.randn(1, 2, 384, 128, device="cuda").half()
                  for _ in range(3))
    for causal in (False, True):
        tut.attention(qa, ka, va, causal, 0.09, BLOCK_M=128, BLOCK_N=128,
                      num_stages=2, warp_specialize=True,
                      producer_warpgroup=True)
    # unified_attention, every feature on, a mixed ragged batch (decode
    # tokens, empty and one-token chunks, a chunk crossing pages).
    ctx, ql = [300, 0, 17, 5, 1000], [1, 70, 1, 0, 33]
    lens = [c + n for c, n in zip(ctx, ql)]
    kc, vc, bt = make_paged_kv(5, 2, 128, 16, lens, torch.half, gen)
    cu = torch.tensor([0, 1, 71, 72, 72, 105], dtype=torch.int32, device="cuda")
    q = torch.randn(105, 8, 128, device="cuda").half()
    sl = torch.tensor(lens, dtype=torch.int32, device="cuda")
    one = torch.ones(1, device="cuda")
    caches = [(kc, vc)] + [(kc.to(dt), vc.to(dt))
                           for dt in (torch.float8_e4m3fn, torch.float8_e5m2)]
    for k, v in caches:
        for ns in (1, 3):
            ops.unified_attention(
                q, k, v, torch.empty_like(q), cu, 70, sl, max(lens), scale, True, (64, 0),
                bt, 30.0, one, one.expand(5, 2), one, alibi_slopes=torch.rand(8, device="cuda"),
                sinks=torch.randn(8, device="cuda"), return_lse=True, num_splits=ns)
    torch.cuda.synchronize()
    print("sanitize_checks: all launches done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
