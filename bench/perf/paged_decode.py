"""Paged decode attention: Quire vs Triton vs SDPA on contiguous KV.

quire.ops.paged_decode_attention as a user calls it (its default
configuration), the Triton peer (GQA-packed tl.dot, split-KV, offsets in
registers; best of 4 configurations per row), torch SDPA on the same KV
stored contiguously, and the bandwidth ceilings measured in the same
process: each row is also a fraction of a streaming read of its own bytes
timed the same way (lib/bandwidth.row_read_us). fp16 unless a row says bf16; head dim 128 unless it says. Every row
is checked against float64 first. Each kernel is timed eager (do_bench of
the Python call) and replayed from a CUDA graph, with its host time per
call over 1000 calls (bench/lib/timing.host_us): Quire's plain call, its
plan.run (quire.ops.plan_attention made once, with its default: the splits
merged in the split kernel up to 8 splits), and the Triton peer's call;
the plan with fused_combine=True (merged at any split count) in a table of
its own.
Effective bandwidth = K and V bytes of all tokens / time. Prints the tables,
writes paged_decode.png into the output folder.

    bench/run.py paged_decode [--rows NAME,...] [--out DIR]

--rows times only the named rows (ROWS' names, comma-separated).
"""

import math
import sys

from lib.env import parser, print_header, require_torch

ROWS = [  # name, seqs, q heads, kv heads, lengths (int or "ragged:MAX"), page, head dim, dtype
    ("Llama-3-8B 64x4096", 64, 32, 8, 4096, 16, 128, "float16"),
    ("Llama-3-8B 64x4096 bf16", 64, 32, 8, 4096, 16, 128, "bfloat16"),
    ("Llama-3-8B 8x32768", 8, 32, 8, 32768, 16, 128, "float16"),
    ("Llama-3-8B 1x4096 (latency)", 1, 32, 8, 4096, 16, 128, "float16"),
    ("Llama-70B 32x8192", 32, 64, 8, 8192, 16, 128, "float16"),
    ("MHA 32/32 64x2048", 64, 32, 32, 2048, 16, 128, "float16"),
    ("ragged 128 <=8192", 128, 32, 8, "ragged:8192", 16, 128, "float16"),
    ("page 128 64x4096", 64, 32, 8, 4096, 128, 128, "float16"),
    ("head dim 64 64x4096", 64, 32, 8, 4096, 16, 64, "float16"),
    ("head dim 256 32x4096", 32, 32, 8, 4096, 16, 256, "float16"),
    ("Qwen 28/4 page 32 32x16384", 32, 28, 4, 16384, 32, 128, "float16"),
]
TRITON_CONFIGS = ((4, 64, 3), (4, 32, 2), (8, 64, 2), (4, 64, 1))  # warps, BLOCK_N, stages


def main(argv=None):
    p = parser("paged_decode", __doc__)
    p.add_argument("--rows", help="comma-separated row names (default all)")
    p.add_argument("--out", help="folder for the plot (default $BENCH_OUT or bench/out)")
    args = p.parse_args(argv)
    rows = ROWS
    if args.rows:
        names = args.rows.split(",")
        unknown = [n for n in names if n not in [r[0] for r in ROWS]]
        if unknown:
            p.error(f"--rows: no row {unknown[0]!r}; the rows are "
                    + ", ".join(repr(r[0]) for r in ROWS))
        rows = [r for r in ROWS if r[0] in names]
    torch = require_torch()
    import torch.nn.functional as F
    import quire
    from lib import bandwidth
    from lib.plot import bars
    from lib.reference import (decode_lengths, make_paged_kv, paged_attention_ref,
                               rel_err)
    from lib.timing import graph_us, host_us, us
    from peers.triton_paged_decode import triton_paged_decode

    print_header("paged_decode")
    pda = quire.ops.paged_decode_attention
    gen = torch.Generator(device="cuda").manual_seed(2026)
    ceil = bandwidth.ceilings()
    print(bandwidth.describe(ceil), flush=True)

    table, failures = [], []
    for name, S, Hq, Hkv, lens, page, D, dtype in rows:
        dtype = getattr(torch, dtype)
        L = decode_lengths(S, lens, gen)  # ragged: empty, one-token, longest first
        max_len = max(L)
        kc, vc, bt = make_paged_kv(S, Hkv, D, page, L, dtype, gen)
        q = torch.randn(S, Hq, D, device="cuda", generator=gen).to(dtype)
        sl = torch.tensor(L, dtype=torch.int32, device="cuda")
        cu = torch.arange(S + 1, dtype=torch.int32, device="cuda")
        scale = 1 / math.sqrt(D)
        tb = lambda t: 2 * sum(L) * Hkv * D * 2 / (t * 1e-6) / 1e12
        tol = 2e-3 if dtype == torch.float16 else 1e-2

        # Correctness on these inputs, over a sample of sequences.
        sample = list(range(min(S, 6)))
        ref = paged_attention_ref(q[sample], kc, vc, bt[sample], sl[sample], scale)
        out_q = torch.full_like(q, float("nan"))
        pda(q, kc, vc, bt, sl, scale, out=out_q, max_seq_len=max_len)
        out_t = torch.full_like(q, float("nan"))
        triton_paged_decode(q, kc, vc, bt, sl, scale, max_len, out=out_t)
        torch.cuda.synchronize()
        err_q, err_t = rel_err(out_q[sample], ref), rel_err(out_t[sample], ref)
        unwritten = torch.isnan(out_q).any().item()
        if not err_q < tol or unwritten:
            failures.append(name)

        op = lambda: pda(q, kc, vc, bt, sl, scale, out=out_q, max_seq_len=max_len)
        plan = quire.ops.plan_attention(q, kc, vc, out_q, cu, 1, sl, max_len, scale, True,
                                        (-1, -1), bt, 0.0, None, None, None)
        run = lambda: plan.run(q, kc, vc, out_q, cu, sl, bt)
        out_q.fill_(float("nan"))
        run()
        torch.cuda.synchronize()
        err_p = rel_err(out_q[sample], ref)
        if not err_p < tol or torch.isnan(out_q).any().item():
            failures.append(name + " (plan)")
        # The plan with the splits merged in the split kernel (one launch).
        fplan = quire.ops.plan_attention(q, kc, vc, out_q, cu, 1, sl, max_len, scale,
                                         True, (-1, -1), bt, 0.0, None, None, None,
                                         fused_combine=True)
        frun = lambda: fplan.run(q, kc, vc, out_q, cu, sl, bt)
        out_q.fill_(float("nan"))
        frun()
        torch.cuda.synchronize()
        if not rel_err(out_q[sample], ref) < tol or torch.isnan(out_q).any().item():
            failures.append(name + " (fused-combine plan)")
        r = dict(name=name, q=us(op), qg=graph_us(op), q_host=host_us(op),
                 p=us(run), p_host=host_us(run), f=us(frun), fg=graph_us(frun),
                 f_host=host_us(frun), f_launches=len(fplan._launches))
        best = None
        for nw, bn, ns in TRITON_CONFIGS:
            fn = (lambda nw=nw, bn=bn, ns=ns: triton_paged_decode(
                q, kc, vc, bt, sl, scale, max_len, block_n=bn, num_warps=nw, num_stages=ns))
            try:
                t = us(fn)
            except Exception as e:  # a config Triton cannot build
                print(f"  triton {nw},{bn},{ns} failed: {type(e).__name__}")
                continue
            if best is None or t < best[0]:
                best = (t, (nw, bn, ns), fn)
        if best is None:
            raise SystemExit("no Triton configuration compiled")
        r.update(t=best[0], t_cfg=best[1], tg=graph_us(best[2]), t_host=host_us(best[2]))
        # SDPA on the same KV stored contiguously (equal lengths only).
        r["sdpa"] = float("nan")
        if len(set(L)) == 1:
            kk = kc[bt.long()].reshape(S, -1, Hkv, D)[:, :max_len].transpose(1, 2).contiguous()
            vv = vc[bt.long()].reshape(S, -1, Hkv, D)[:, :max_len].transpose(1, 2).contiguous()
            qq = q.view(S, Hq, 1, D)
            r["sdpa"] = us(lambda: F.scaled_dot_product_attention(qq, kk, vv, enable_gqa=True))
            del kk, vv
        # The read ceiling of this row: a streaming read of its K/V bytes,
        # timed as the row is (lib/bandwidth.row_read_us).
        r["read"] = bandwidth.row_read_us(ceil, 2 * sum(L) * Hkv * D * 2, graph_us) \
            or float("nan")
        for k in ("q", "qg", "t", "tg", "sdpa", "read"):
            r[k + "_tbs"] = tb(r[k])
        table.append(r)
        print(f"{name:22s} eager: quire {r['q']:6.0f} us {r['q_tbs']:5.2f} TB/s | triton "
              f"{r['t']:6.0f} us {r['t_tbs']:5.2f} TB/s {r['t_cfg']} | sdpa {r['sdpa']:6.0f} us "
              f"{r['sdpa_tbs']:5.2f} TB/s | quire speed vs triton {r['t'] / r['q']:.2f} | "
              f"err quire {err_q:.1e} triton {err_t:.1e}{' UNWRITTEN' if unwritten else ''}",
              flush=True)
        print(f"{'':22s} graph: quire {r['qg']:6.0f} us {r['qg_tbs']:5.2f} TB/s | triton "
              f"{r['tg']:6.0f} us {r['tg_tbs']:5.2f} TB/s | x{r['tg'] / r['qg']:.2f} | host "
              f"per call: quire {r['q_host']:.1f} us, plan.run {r['p_host']:.1f} us (eager "
              f"{r['p']:.0f} us), triton {r['t_host']:.1f} us", flush=True)

    print()
    print("CUDA graph replay (no host overhead; how serving engines run decode):")
    # Each row as a fraction of a streaming read of its own bytes, timed the
    # same way (graph replay after do_bench's flush), and of the best
    # streaming read of 1 GiB in this process (the torch reduction without
    # Triton).
    limit = ceil.get("triton_read") or ceil["torch_read"]
    print("| config | Quire us | TB/s | read of its bytes us | % of that read | % of 1 GiB "
          "read | Triton us | TB/s | Quire speed vs "
          "Triton | SDPA contiguous us | Quire eager us | plan.run eager us | Triton eager us "
          "| host us per call: Quire / plan.run / Triton |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in table:
        print(f"| {r['name']} | {r['qg']:.0f} | {r['qg_tbs']:.2f} | {r['read']:.0f} | "
              f"{100 * r['read'] / r['qg']:.0f}% | "
              f"{100 * r['qg_tbs'] / limit:.0f}% | {r['tg']:.0f} | "
              f"{r['tg_tbs']:.2f} | {r['tg'] / r['qg']:.2f} | {r['sdpa']:.0f} | {r['q']:.0f} | "
              f"{r['p']:.0f} | {r['t']:.0f} | {r['q_host']:.1f} / {r['p_host']:.1f} / "
              f"{r['t_host']:.1f} |")
    print()
    print("The plan with fused_combine=True (the last split merges; one launch):")
    print("| config | launches | graph us | vs plain graph | plan.run eager us | host us "
          "per run |")
    print("|---|---|---|---|---|---|")
    for r in table:
        print(f"| {r['name']} | {r['f_launches']} | {r['fg']:.0f} | {r['qg'] / r['fg']:.3f} | "
              f"{r['f']:.0f} | {r['f_host']:.1f} |")
    print(bandwidth.describe(ceil))
    lines = [(f"copy {ceil['copy']:.2f} TB/s", ceil["copy"]),
             (f"read (torch sum) {ceil['torch_read']:.2f} TB/s", ceil["torch_read"])]
    if ceil.get("triton_read"):
        lines.append((f"read-only {ceil['triton_read']:.2f} TB/s", ceil["triton_read"]))
    bars("paged_decode.png", "Paged decode attention, "
         + torch.cuda.get_device_name(), "effective KV bandwidth (TB/s)",
         [r["name"] for r in table],
         [("Quire (graph)", [r["qg_tbs"] for r in table]),
          ("Triton (paged, graph)", [r["tg_tbs"] for r in table]),
          ("SDPA (contiguous)", [r["sdpa_tbs"] for r in table])], lines, out=args.out)
    if failures:
        print("FAIL: wrong results on", ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
