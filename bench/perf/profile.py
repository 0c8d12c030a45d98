"""One launch of Quire's and the Triton peer's kernels, for Nsight Compute.

decode: quire.ops.paged_decode_attention (split and combine kernels) and
the Triton peer at its best configuration (4 warps, 32 tokens, 2 stages)
on the Llama-3-8B 64 x 4096 row (fp16, page 16), each run twice (the first
launches compile and load). prefill: the prefill op (default tiles) and the
Triton peer on the 4 x ctx 4096 + 512 row (another with --case; page
--page), each run once to compile and then once between cudaProfilerStart
and cudaProfilerStop (the op's own kernel and the peer's, nothing else);
--ablation COLUMN runs the op as that column of the paged_prefill ablation
runs it. For example:

    ncu --clock-control none --kernel-name regex:'decode|combine' --launch-skip 4 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \\
        python3 bench/run.py profile decode
    ncu --kernel-name regex:decode_split --launch-skip 2 --launch-count 1 \\
        --section SourceCounters --page source --csv --print-source sass \\
        python3 bench/run.py profile decode          # per SASS instruction
    ncu --profile-from-start off --section SpeedOfLight --section WarpStateStats \\
        python3 bench/run.py profile prefill --page 128

rows: one default paged_decode_attention call on a decode row (after a
first call that compiles and loads), the only launches between
cudaProfilerStart and cudaProfilerStop, so ncu takes exactly those:

    ncu --clock-control none --profile-from-start off --section SpeedOfLight \\
        --section Occupancy --section LaunchStats --section WarpStateStats \\
        python3 bench/run.py profile rows --row fp8_64x4096
"""

import math
import sys

from lib.env import parser, require_torch


def decode(torch):
    import quire
    from lib.reference import make_paged_kv
    from peers.triton_paged_decode import triton_paged_decode
    gen = torch.Generator(device="cuda").manual_seed(3)
    S, Hq, Hkv, L, P = 64, 32, 8, 4096, 16
    kc, vc, bt = make_paged_kv(S, Hkv, 128, P, [L] * S, torch.half, gen)
    q = torch.randn(S, Hq, 128, device="cuda", generator=gen).half()
    sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
    out = torch.empty_like(q)
    for _ in range(2):
        quire.ops.paged_decode_attention(q, kc, vc, bt, sl, out=out, max_seq_len=L)
        triton_paged_decode(q, kc, vc, bt, sl, 1 / math.sqrt(128), L, block_n=32,
                            num_warps=4, num_stages=2, out=out)


def prefill(torch, page, column, case):
    from lib import prefill as pf
    gen = torch.Generator(device="cuda").manual_seed(3)
    seqs, ctx, chunk = case
    inp = pf.make_inputs([ctx] * seqs, [chunk] * seqs, page, gen)
    out = torch.empty_like(inp["q"])
    scale = 1 / math.sqrt(pf.D)
    cfg, options = pf.forms()[column or "default"]
    calls = (lambda: pf.run_quire(inp, scale, out, cfg, **options),
             lambda: pf.run_triton(inp, scale, out, block_n=64, num_warps=4,
                                   num_stages=2))
    for call in calls:
        call()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for call in calls:
        call()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


# name: (seqs, q heads, kv heads, lengths, page, head dim, kv dtype)
ROWS = {
    "fp16_64x4096": (64, 32, 8, 4096, 16, 128, "float16"),
    "fp8_64x4096": (64, 32, 8, 4096, 16, 128, "float8_e4m3fn"),
    "fp8_8x32768": (8, 32, 8, 32768, 16, 128, "float8_e4m3fn"),
    "fp16_8x4096": (8, 32, 8, 4096, 16, 128, "float16"),
    "hd64_64x4096": (64, 32, 8, 4096, 16, 64, "float16"),
    "ragged_128x8192": (128, 32, 8, "ragged:8192", 16, 128, "float16"),
    "llama70b_32x8192": (32, 64, 8, 8192, 16, 128, "float16"),
    "qwen_32x16384": (32, 28, 4, 16384, 32, 128, "float16"),
}


def rows(torch, name):
    import quire
    from lib.reference import decode_lengths, make_paged_kv
    gen = torch.Generator(device="cuda").manual_seed(3)
    S, Hq, Hkv, lens, P, D, kv_dtype = ROWS[name]
    L = decode_lengths(S, lens, gen)
    kc, vc, bt = make_paged_kv(S, Hkv, D, P, L, torch.half, gen)
    kc, vc = kc.to(getattr(torch, kv_dtype)), vc.to(getattr(torch, kv_dtype))
    q = torch.randn(S, Hq, D, device="cuda", generator=gen).half()
    sl = torch.tensor(L, dtype=torch.int32, device="cuda")
    out = torch.empty_like(q)
    call = lambda: quire.ops.paged_decode_attention(q, kc, vc, bt, sl, out=out,
                                                    max_seq_len=max(L))
    call()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    call()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


def main(argv=None):
    p = parser("profile", __doc__)
    p.add_argument("kernels", choices=("decode", "prefill", "rows"))
    p.add_argument("--row", choices=sorted(ROWS), default="fp16_64x4096",
                   help="the decode row of `rows`")
    p.add_argument("--page", type=int, default=16, help="the page size of `prefill`")
    p.add_argument("--ablation", metavar="COLUMN", help="`prefill` with the op in "
                   "the paged_prefill ablation's COLUMN (e.g. pingpong) instead "
                   "of its default")
    p.add_argument("--case", default="4,4096,512", metavar="SEQS,CTX,CHUNK",
                   help="the row of `prefill`: SEQS sequences of CTX context "
                   "and CHUNK chunk tokens (default 4,4096,512)")
    args = p.parse_args(argv)
    try:
        case = tuple(int(x) for x in args.case.split(","))
    except ValueError:
        case = ()
    if len(case) != 3 or case[0] < 1 or case[1] < 0 or case[2] < 1:
        p.error(f"--case: expected SEQS,CTX,CHUNK (SEQS and CHUNK at least "
                f"1, CTX at least 0), got {args.case!r}")
    torch = require_torch()
    if args.kernels == "rows":
        rows(torch, args.row)
    elif args.kernels == "prefill":
        from lib.prefill import ABLATION
        columns = [name for name, _, _ in ABLATION]
        if args.ablation not in [None] + columns:
            p.error(f"--ablation {args.ablation!r}: not a column of the "
                    f"paged_prefill ablation ({', '.join(columns)})")
        prefill(torch, args.page, args.ablation, case)
    else:
        decode(torch)
    torch.cuda.synchronize()
    print(f"profile {args.kernels}: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
