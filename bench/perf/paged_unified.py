"""unified_attention against the decode and prefill ops, and a mixed batch in one call.

Llama-3-8B heads (32 q / 8 kv, head dim 128), f16, page 16 unless said,
every call replayed from a CUDA graph (how serving engines run a step):

  decode rows   paged_decode_attention vs unified_attention on the same
                decode-only batch (the unified call runs the same kernels);
  prefill rows  paged_prefill_attention (chunk read from the cache) vs
                unified_attention on the same prefill batch;
  mixed row     60 decode sequences at 2-8k context and 4 prefill chunks
                of 512 (contexts 0-2k) in one unified_attention call vs
                two calls, paged_decode_attention on the decode sequences
                and paged_prefill_attention on the chunks (vLLM orders a
                batch decodes first, so each op gets slices); then a plan
                of it run with the prefill kernel on a side stream beside
                the decode kernels (the default) and with the two in order;
  window rows   8 x 32k decode with a 4096-token sliding window vs the
                full context (also timed after a flush that leaves the L2
                clean, beside 8 x 4096 without a window), and a decode row
                with softcap, ALiBi and sinks on (what the features cost);
  fp8 rows      the same batch with an fp8 cache (e4m3fn, e5m2) vs the
                fp16 cache (the ratio is the tokens/s gained).

Every row is checked against float64 first. Prints the table (us, the
ratio) and writes paged_unified.png into the output folder.

    bench/run.py paged_unified [--out DIR]
"""

import math
import sys

from lib.env import parser, print_header, require_torch

HQ, HKV, D = 32, 8, 128
DECODE_ROWS = [  # name, seqs, lengths (int, or "ragged:MAX"), page
    ("decode Llama-3-8B 64x4096", 64, 4096, 16),
    ("decode Llama-3-8B 8x32768", 8, 32768, 16),
    ("decode ragged 128 <=8192", 128, "ragged:8192", 16),
    ("decode page 128 64x4096", 64, 4096, 128),
]
PREFILL_ROWS = [  # name, page, contexts, chunks
    ("prefill 8 x ctx 1024 + 512", 16, [1024] * 8, [512] * 8),
    ("prefill 4 x ctx 4096 + 512", 16, [4096] * 4, [512] * 4),
    ("prefill 16 x ctx 2048 + 128", 16, [2048] * 16, [128] * 16),
    ("prefill ragged 8", 16, None, None),
]


def batch(torch, gen, ctx, qlens, page, hq=HQ, hkv=HKV, d=D):
    """A [2, num_blocks, ...] cache holding each sequence's context and
    chunk (decodes first), queries, metadata."""
    lens = [c + n for c, n in zip(ctx, qlens)]
    mb = max(1, max(-(-n // page) for n in lens))
    nb = len(lens) * mb + 7
    kv = torch.randn(2, nb, page, hkv, d, device="cuda", generator=gen).half()
    bt = torch.randperm(nb, device="cuda", generator=gen)[:len(lens) * mb]
    starts = [0]
    for n in qlens:
        starts.append(starts[-1] + n)
    i32 = dict(dtype=torch.int32, device="cuda")
    return dict(q=torch.randn(starts[-1], hq, d, device="cuda", generator=gen).half(),
                k=kv[0], v=kv[1], bt=bt.view(len(lens), mb).int().contiguous(),
                cu=torch.tensor(starts, **i32), lens=torch.tensor(lens, **i32),
                max_q=max(qlens), max_k=max(lens), ctx=ctx, qlens=qlens)


def unified(quire, b, out, window=(-1, -1), softcap=0.0, **kw):
    """The unified_attention call on batch `b`, as a function."""
    return lambda: quire.ops.unified_attention(
        b["q"], b["k"], b["v"], out, b["cu"], b["max_q"], b["lens"], b["max_k"],
        1 / math.sqrt(D), True, window, b["bt"], softcap, None, None, None, **kw)


def check(torch, b, out, sample, **ref_kw):
    """rel err of `out` on the sequences `sample` against float64."""
    from lib.reference import rel_err, unified_ref
    torch.cuda.synchronize()
    cu = b["cu"].tolist()
    worst = 0.0
    for s in sample:
        a, e = cu[s], cu[s + 1]
        if a == e:
            continue
        one_cu = torch.tensor([0, e - a], dtype=torch.int32, device="cuda")
        ref, _ = unified_ref(b["q"][a:e], b["k"], b["v"], b["bt"][s:s + 1], one_cu,
                             b["lens"][s:s + 1], 1 / math.sqrt(D), **ref_kw)
        worst = max(worst, rel_err(out[a:e], ref))
    return worst


def main(argv=None):
    p = parser("paged_unified", __doc__)
    p.add_argument("--out", help="folder for the plot (default $BENCH_OUT or bench/out)")
    args = p.parse_args(argv)
    torch = require_torch()
    import quire
    from lib.plot import bars
    from lib.reference import decode_lengths
    from lib.timing import clean_l2, graph_us, host_us

    print_header("paged_unified")
    gen = torch.Generator(device="cuda").manual_seed(2027)
    rows, failures = [], []

    def row(name, base_name, base, ours, errs):
        tb, tu = graph_us(base), graph_us(ours)
        hb, hu = host_us(base), host_us(ours)
        ok = all(e < 2e-3 for e in errs)
        if not ok:
            failures.append(name)
        rows.append((name, base_name, tb, tu))
        print(f"{name:34s} {base_name:28s} {tb:8.0f} us | unified {tu:8.0f} us | "
              f"x{tb / tu:.3f} | host {hb:.0f} / {hu:.0f} us | err "
              f"{', '.join(f'{e:.1e}' for e in errs)}{'' if ok else ' FAIL'}", flush=True)

    pda, ppa = quire.ops.paged_decode_attention, quire.ops.paged_prefill_attention
    for name, S, lens, page in DECODE_ROWS:
        L = decode_lengths(S, lens, gen, edges=(1,))  # one-token and longest first
        # The decode token is each sequence's last.
        b = batch(torch, gen, [n - 1 for n in L], [1] * S, page)
        q = b["q"]
        out_d, out_u = torch.full_like(q, float("nan")), torch.full_like(q, float("nan"))
        dec = lambda: pda(q, b["k"], b["v"], b["bt"], b["lens"], 1 / math.sqrt(D), out_d,
                          max_seq_len=b["max_k"])
        uni = unified(quire, b, out_u)
        dec(), uni()
        sample = list(range(min(S, 6)))
        row(name, "paged_decode_attention", dec, uni,
            [check(torch, b, out_d, sample), check(torch, b, out_u, sample)])

    for name, page, ctx, ql in PREFILL_ROWS:
        if ctx is None:
            g = torch.Generator().manual_seed(5)
            ctx = torch.randint(0, 8193, (8,), generator=g).tolist()
            ql = torch.randint(2, 1025, (8,), generator=g).tolist()
        b = batch(torch, gen, ctx, ql, page)
        q = b["q"]
        out_p, out_u = torch.full_like(q, float("nan")), torch.full_like(q, float("nan"))
        pre = lambda: ppa(q, b["k"], b["v"], b["bt"], b["cu"], b["lens"], 1 / math.sqrt(D),
                          out_p, max_query_len=b["max_q"])
        uni = unified(quire, b, out_u)
        pre(), uni()
        sample = [0, len(ctx) - 1]
        row(name, "paged_prefill_attention", pre, uni,
            [check(torch, b, out_p, sample), check(torch, b, out_u, sample)])

    # The mixed batch: 60 decodes first, then 4 chunks of 512.
    g = torch.Generator().manual_seed(7)
    dctx = torch.randint(2048, 8193, (60,), generator=g).tolist()
    pctx = torch.randint(0, 2049, (4,), generator=g).tolist()
    b = batch(torch, gen, dctx + pctx, [1] * 60 + [512] * 4, 16)
    q, nd = b["q"], 60
    out_s, out_u = torch.full_like(q, float("nan")), torch.full_like(q, float("nan"))
    cu_p = (b["cu"][nd:] - nd).contiguous()
    max_dec = max(dctx) + 1

    def two_calls():
        pda(q[:nd], b["k"], b["v"], b["bt"][:nd], b["lens"][:nd], 1 / math.sqrt(D),
            out_s[:nd], max_seq_len=max_dec)
        ppa(q[nd:], b["k"], b["v"], b["bt"][nd:], cu_p, b["lens"][nd:], 1 / math.sqrt(D),
            out_s[nd:], max_query_len=512)
    uni = unified(quire, b, out_u)
    two_calls(), uni()
    sample = [0, 1, nd - 1, nd, nd + 3]
    print(f"mixed batch plan: {quire.ops.unified_plan(q.shape[0], 64, 512)}")
    row("mixed 60 decode 2-8k + 4 x 512", "decode op + prefill op", two_calls, uni,
        [check(torch, b, out_s, sample), check(torch, b, out_u, sample)])

    # The mixed batch's plan with the prefill kernel on a side stream beside
    # the decode kernels (the default) and with the two in order.
    for concurrent in (False, True):
        out_c = torch.full_like(q, float("nan"))
        plan = quire.ops.plan_attention(q, b["k"], b["v"], out_c, b["cu"], b["max_q"],
                                        b["lens"], b["max_k"], 1 / math.sqrt(D), True,
                                        (-1, -1), b["bt"], 0.0, None, None, None,
                                        concurrent=concurrent)
        run = (lambda plan=plan, out_c=out_c: plan.run(q, b["k"], b["v"], out_c, b["cu"],
                                                       b["lens"], b["bt"]))
        run()
        row(f"mixed, plan.run {'two streams' if concurrent else 'in order'}",
            "decode op + prefill op", two_calls, run,
            [check(torch, b, out_s, sample), check(torch, b, out_c, sample)])

    # Sliding window 4096 over 32k contexts, and the features' cost.
    b = batch(torch, gen, [32767] * 8, [1] * 8, 16)
    q = b["q"]
    out_f, out_w = torch.full_like(q, float("nan")), torch.full_like(q, float("nan"))
    full, win = unified(quire, b, out_f), unified(quire, b, out_w, window=(4095, 0))
    full(), win()
    row("decode 8x32768 window 4096", "full context (unified)", full, win,
        [check(torch, b, out_f, [0, 7]), check(torch, b, out_w, [0, 7], window_left=4095)])
    # The same two calls, and 8 x 4096 without a window, after each flush:
    # the memset's write-back is a constant per call, which a 50 us row
    # feels and a 350 us row hardly does (docs/performance.md, "The
    # timer's flush").
    b4 = batch(torch, gen, [4095] * 8, [1] * 8, 16)
    out_4 = torch.full_like(b4["q"], float("nan"))
    short = unified(quire, b4, out_4)
    short()
    err4 = check(torch, b4, out_4, [0, 7])
    if err4 >= 2e-3:
        failures.append("decode 8x4096")
    reader = clean_l2()
    flushes = [(name, [graph_us(f, flush=fl) for f in (full, win, short)])
               for name, fl in (("memset (do_bench's)", None),
                                ("read (clean L2)", reader))]
    b = batch(torch, gen, [4095] * 64, [1] * 64, 16)
    q = b["q"]
    out_f, out_x = torch.full_like(q, float("nan")), torch.full_like(q, float("nan"))
    slopes = 2.0 ** (-8.0 * torch.arange(1, HQ + 1, device="cuda") / HQ)
    sinks = torch.randn(HQ, device="cuda", generator=gen)
    plain = unified(quire, b, out_f)
    feats = unified(quire, b, out_x, softcap=30.0, alibi_slopes=slopes, sinks=sinks)
    plain(), feats()
    row("decode 64x4096 softcap+alibi+sinks", "no features (unified)", plain, feats,
        [check(torch, b, out_f, [0, 63]),
         check(torch, b, out_x, [0, 63], softcap=30.0, alibi_slopes=slopes, sinks=sinks)])

    # fp8 caches: the same batch with K and V rounded to fp8, against the
    # fp16 cache (the ratio is the tokens/s gained).
    fp8_rows = [("decode Llama-3-8B 64x4096", [4095] * 64, [1] * 64),
                ("decode Llama-3-8B 8x32768", [32767] * 8, [1] * 8),
                ("prefill 4 x ctx 4096 + 512", [4096] * 4, [512] * 4)]
    for name, ctx, ql in fp8_rows:
        b = batch(torch, gen, ctx, ql, 16)
        q = b["q"]
        out_h = torch.full_like(q, float("nan"))
        half = unified(quire, b, out_h)
        half()
        for fmt in ("e4m3fn", "e5m2"):
            dt = getattr(torch, "float8_" + fmt)
            b8 = dict(b, k=b["k"].to(dt), v=b["v"].to(dt))
            out_8 = torch.full_like(q, float("nan"))
            f8 = unified(quire, b8, out_8)
            f8()
            # The reference reads the fp8 values (exact in fp16).
            exact = dict(b, k=b8["k"].half(), v=b8["v"].half())
            sample = [0, len(ctx) - 1]
            row(f"{name} fp8 {fmt}", "fp16 cache (unified)", half, f8,
                [check(torch, b, out_h, sample), check(torch, exact, out_8, sample)])

    print()
    print("CUDA graph replay, us (ratio > 1: unified_attention is faster):")
    print("| row | baseline | baseline us | unified_attention us | baseline / unified |")
    print("|---|---|---|---|---|")
    for name, base_name, tb, tu in rows:
        print(f"| {name} | {base_name} | {tb:.0f} | {tu:.0f} | {tb / tu:.3f} |")
    print()
    print("The window row after each L2 flush (CUDA graph replay, us; 8 x 4096 "
          f"err {err4:.1e}):")
    print("| flush | 8x32768 full | 8x32768 window 4096 | 8x4096 no window "
          "| full / window |")
    print("|---|---|---|---|---|")
    for name, (tf, tw, ts) in flushes:
        print(f"| {name} | {tf:.1f} | {tw:.1f} | {ts:.1f} | {tf / tw:.3f} |")
    bars("paged_unified.png", "unified_attention vs the separate ops, fp16, "
         + torch.cuda.get_device_name(), "time (us, CUDA graph)", [r[0] for r in rows],
         [("baseline", [r[2] for r in rows]), ("unified_attention", [r[3] for r in rows])],
         out=args.out)
    if failures:
        print("FAIL: wrong results on", ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
