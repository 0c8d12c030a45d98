"""The decode split kernel's configurations on the decode benchmark's rows:
tokens per tile (BLOCK_N), warps, split count and
form, each checked against float64 and timed from a CUDA graph, as a
fraction of a streaming read of the row's bytes timed the same way, in
the same process (fp16 queries; the cache
fp16, or fp8 with --kv-dtype, where both forms are tried). What configs.py's
defaults should be per shape comes from this table.

    bench/run.py decode_tune [--rows NAME,...] [--kv-dtype e4m3fn|e5m2]
        [--tiles 16x1,32x4,...] [--splits 1,2,4,...] [--stages 2,3,...]
        [--orders seqs,heads,longest]

`default` in --tiles or --splits stands for the op's choice on each row
(configs.decode_config, configs.num_splits_for), so one command compares a
change against the defaults on rows whose tiles differ. Each row ends with
the default configuration without and with gathered rows (and, for fp8
caches, without and with wide fp8 operands).
"""

import itertools
import math
import sys

from lib.env import parser, print_header, require_torch
from perf.paged_decode import ROWS as DECODE_ROWS

# The decode benchmark's fp16 rows (name, seqs, q heads, kv heads, lengths,
# page, head dim), a uniform batch of long contexts, and the short contexts
# a 4096-token sliding window reads of 8 x 32768 (bench/perf/paged_unified.py).
ROWS = [row[:7] for row in DECODE_ROWS if row[7] == "float16"] + [
    ("Llama-3-8B 64x16384", 64, 32, 8, 16384, 16, 128),
    ("Llama-3-8B 8x4096", 8, 32, 8, 4096, 16, 128)]
# (tokens per tile, warps) of the split kernel, each at every split count.
TILES = ((16, 1), (32, 2), (32, 4), (64, 4), (64, 8), (128, 4), (128, 8))
SPLITS = (1, 2, 4, 8, 16, 32)


def main(argv=None):
    p = parser("decode_tune", __doc__)
    p.add_argument("--rows", help="comma-separated row names (default all)")
    p.add_argument("--tiles", help="comma-separated tiles as TOKENSxWARPS or "
                   "`default`, the row's own (default: "
                   + ",".join(f"{n}x{w}" for n, w in TILES) + ")")
    p.add_argument("--splits", help="comma-separated split counts or "
                   "`default`, the row's own (default: "
                   + ",".join(map(str, SPLITS)) + ")")
    p.add_argument("--stages", help="comma-separated cp.async staging depths "
                   "(default: the op's, configs.decode_stages)")
    p.add_argument("--orders", default="default",
                   help="comma-separated grid orders of the split kernel: seqs "
                   "(sequences as grid x), heads (KV heads as grid x), longest "
                   "(KV heads as grid x, the sequences longest first) "
                   "(default: the op's)")
    p.add_argument("--kv-dtype", default="float16",
                   choices=("float16", "e4m3fn", "e5m2"),
                   help="the caches' element type (default float16)")
    args = p.parse_args(argv)
    try:
        tiles = TILES if not args.tiles else tuple(
            "default" if t == "default" else tuple(int(x) for x in t.split("x"))
            for t in args.tiles.split(","))
        splits_ = SPLITS if not args.splits else tuple(
            "default" if s == "default" else int(s)
            for s in args.splits.split(","))
        stages = (None,) if not args.stages else tuple(
            int(s) for s in args.stages.split(","))
        names = {"default": (None, None), "seqs": (False, False),
                 "heads": (True, False), "longest": (True, True)}
        orders = tuple(names[o] for o in args.orders.split(","))
    except (ValueError, KeyError):
        p.error("--tiles takes TOKENSxWARPS,... or default, --splits N,... or "
                "default, --stages N,..., --orders seqs,heads,longest")
    torch = require_torch()
    from quire.ops import configs
    from quire.ops.decode import device_resources
    from quire.ops.decode import _paged_decode
    from lib import bandwidth
    from lib.reference import (decode_lengths, make_paged_kv, paged_attention_ref,
                               rel_err)
    from lib.timing import graph_us

    print_header("decode_tune")
    ceil = bandwidth.ceilings()
    limit = ceil.get("triton_read") or ceil["torch_read"]
    print(bandwidth.describe(ceil), flush=True)
    gen = torch.Generator(device="cuda").manual_seed(11)
    rows = ROWS if not args.rows else [r for r in ROWS if r[0] in args.rows.split(",")]
    sms, shared = device_resources(0)
    for name, S, Hq, Hkv, lens, page, D in rows:
        L = decode_lengths(S, lens, gen)
        kc, vc, bt = make_paged_kv(S, Hkv, D, page, L, torch.half, gen)
        fp8 = args.kv_dtype != "float16"
        if fp8:
            # The reference reads the fp8 values (exact in fp16).
            f8 = getattr(torch, "float8_" + args.kv_dtype)
            kc, vc = kc.to(f8), vc.to(f8)
        q = torch.randn(S, Hq, D, device="cuda", generator=gen).half()
        sl = torch.tensor(L, dtype=torch.int32, device="cuda")
        scale = 1 / math.sqrt(D)
        sample = list(range(min(S, 4)))
        ref = paged_attention_ref(q[sample], kc.half(), vc.half(), bt[sample],
                                  sl[sample], scale)
        size = kc.element_size()
        tbs = lambda t: 2 * sum(L) * Hkv * D * size / (t * 1e-6) / 1e12
        # % of a streaming read of the row's bytes timed the same way
        # (lib/bandwidth.row_read_us); of the 1 GiB read without Triton.
        read = bandwidth.row_read_us(ceil, 2 * sum(L) * Hkv * D * size, graph_us)
        pct = (lambda t: 100 * read / t) if read else \
            (lambda t: 100 * tbs(t) / limit)
        group = Hq // Hkv
        dn, dw = configs.decode_config(D, group, fp8=fp8)
        dt = configs.decode_transposed(D, group, fp8)
        def rule(bn, nw, tr, st, lf):
            """(splits, longest first) of a configuration as the op chooses
            them (lf None: by its rule)."""
            return configs.decode_splits(S, S, Hkv, max(L), D, group, bn, nw,
                                         fp8, tr, st, sms, shared, lf)
        ds, dl = rule(dn, dw, dt, None, None)
        wide = configs.decode_one_split_tile(S, Hkv, ds, dn, dw, D, fp8, sms)
        if wide:
            # The op's one split on wider tiles.
            dn, ds = wide, 1
            dl = configs.decode_seqs_pad(S, True) is not None
        print(f"\n{name}: default block_n {dn}, warps {dw}, splits {ds}, "
              f"transposed {dt}, longest first {dl}; a read of its bytes "
              f"{read or float('nan'):.1f} us")
        print("| block_n | warps | splits | transposed | stages | heads first "
              "| longest first | us | TB/s | % of read | rel err |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        out = torch.empty_like(q)
        results = []
        forms = (dt, not dt) if fp8 else (dt,)
        row_tiles = [(dn, dw) if t == "default" else t for t in tiles]
        configs_ = []
        for (bn, nw), sp, tr, st, (hf, lf) in itertools.product(
                row_tiles, splits_, forms, stages, orders):
            # The op's choices for this tile, as the op makes them: the
            # order's ranking (the default's by its rule) and the split
            # count that goes with it.
            default = (hf, lf) == (None, None)
            sp_rule, lf_rule = rule(bn, nw, tr, st, None if default else lf)
            if default:
                lf = lf_rule
            if sp == "default":
                sp = sp_rule
            if (bn, nw, sp, tr, st, (hf, lf)) not in configs_:
                configs_.append((bn, nw, sp, tr, st, (hf, lf)))
        if (dn, dw, ds, dt, None, (None, dl)) not in configs_:
            configs_.append((dn, dw, ds, dt, None, (None, dl)))
        for bn, nw, splits, tr, st, (hf, lf) in configs_:
            fn = (lambda bn=bn, nw=nw, tr=tr, sp=splits, st=st, hf=hf, lf=lf:
                  _paged_decode(q, kc, vc, bt, sl, scale, out, max(L), sp,
                                block_n=bn, num_warps=nw, transposed=tr,
                                num_stages=st, heads_first=hf,
                                longest_first=lf))
            st_name = st or configs.decode_stages(fp8)
            order = (f"{configs.DECODE_HEADS_FIRST if hf is None else hf} | "
                     f"{configs.decode_seqs_pad(S, lf) is not None}")
            try:
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
            except Exception as e:  # a configuration that does not build
                print(f"| {bn} | {nw} | {splits} | {tr} | {st_name} | {order} | "
                      f"{type(e).__name__} | | | |", flush=True)
                continue
            err = rel_err(out[sample], ref)
            t = graph_us(fn)
            ok = err < 2e-3 and not torch.isnan(out).any().item()
            results.append((t, bn, nw, splits, tr, st_name, order))
            print(f"| {bn} | {nw} | {splits} | {tr} | {st_name} | {order} | {t:.1f} | "
                  f"{tbs(t):.2f} | "
                  f"{pct(t):.0f}% | {err:.1e}{'' if ok else ' WRONG'} |",
                  flush=True)
        if results:
            t, bn, nw, splits, tr, st, hf = min(results)
            print(f"best: block_n {bn}, warps {nw}, splits {splits}, transposed {tr}, "
                  f"stages {st}, heads first | longest first {hf}: "
                  f"{t:.1f} us, {pct(t):.0f}% of read")
        def ablate(option, values):
            """The default configuration with the compile option `option`
            at each of `values`, checked and timed."""
            for value in values:
                fn = (lambda value=value: _paged_decode(
                    q, kc, vc, bt, sl, scale, out, max(L), ds, block_n=dn,
                    num_warps=dw, transposed=dt, longest_first=dl,
                    **{option: value}))
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                err = rel_err(out[sample], ref)
                t = graph_us(fn)
                ok = err < 2e-3 and not torch.isnan(out).any().item()
                print(f"default, {option}={value}: {t:.1f} us, "
                      f"{pct(t):.0f}% of read, rel err {err:.1e}"
                      f"{'' if ok else ' WRONG'}", flush=True)

        # The ablations (docs/passes.md): gathered rows (quire-assign-layouts,
        # with the caches' token strides as constants), and for fp8 caches the
        # wide fp8 operands against the instruction's own fragments.
        ablate("gathered_rows", (False, True))
        if fp8:
            ablate("wide_fp8_operands", (True, False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
