"""Paged decode attention benchmark (one process, one H200): Quire's
quire.ops.paged_decode_attention (split-KV, tensor cores, cp.async), a Triton paged decode kernel written as a competent user would
(GQA-packed tl.dot, split-KV, offsets in registers; best of a small config
sweep), torch SDPA on the same KV stored contiguously, and the measured copy
and read-only bandwidths. Prints a table and writes paged_decode.png.

    PYTHONPATH=python python3 bench/paged_decode.py [--out DIR]
"""

import argparse
import math
import os

from common import bench, make_paged_kv, paged_attention_ref, rel_err
import torch
import torch.nn.functional as F

import quire
from triton_paged_decode import triton_paged_decode

pda = quire.ops.paged_decode_attention

parser = argparse.ArgumentParser()
parser.add_argument("--out", default=".")
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()
gen = torch.Generator(device="cuda").manual_seed(2026)
torch.backends.cuda.matmul.allow_tf32 = False

ROWS = [  # name, seqs, q heads, kv heads, lengths (int or "ragged:MAX"), page
    ("Llama-3-8B 64x4096", 64, 32, 8, 4096, 16),
    ("Llama-3-8B 8x32768", 8, 32, 8, 32768, 16),
    ("Llama-70B 32x8192", 32, 64, 8, 8192, 16),
    ("MHA 32/32 64x2048", 64, 32, 32, 2048, 16),
    ("ragged 128 <=8192", 128, 32, 8, "ragged:8192", 16),
    ("page 128 64x4096", 64, 32, 8, 4096, 128),
]

# Ceilings, measured in this process.
big = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(big)
t = bench(lambda: dst.copy_(big))
copy_bw = 2 * big.numel() / (t * 1e-6) / 1e12
t = bench(lambda: big.view(torch.int64).sum())
read_bw = big.numel() / (t * 1e-6) / 1e12
del big, dst
print(f"copy bandwidth {copy_bw:.2f} TB/s (read+write), read-only {read_bw:.2f} TB/s")
import subprocess
import triton
drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip()
print(f"GPU {torch.cuda.get_device_name()}, driver {drv}, torch {torch.__version__}, "
      f"triton {triton.__version__}, quire {quire.compiler_version()['build_id'][:12]}")

def graph_time(fn):
    """Median time of `fn` replayed from a CUDA graph (how serving engines
    run decode): no Python or launch overhead between kernels."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return bench(g.replay)


def cpu_time(fn, n=50):
    """Host time per call in us (launches are asynchronous)."""
    import time
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


table = []
for name, S, Hq, Hkv, lens, page in ROWS:
    if isinstance(lens, str):
        top = int(lens.split(":")[1])
        L = torch.randint(1, top + 1, (S,), generator=gen, device="cuda").tolist()
        L[0], L[1], L[2] = 0, 1, top  # empty, one-token and longest sequences
    else:
        L = [lens] * S
    max_len = max(L)
    kc, vc, bt = make_paged_kv(S, Hkv, 128, page, L, torch.half, gen)
    q = torch.randn(S, Hq, 128, device="cuda", generator=gen).half()
    sl = torch.tensor(L, dtype=torch.int32, device="cuda")
    scale = 1 / math.sqrt(128)
    kv_bytes = 2 * sum(L) * Hkv * 128 * 2

    # Correctness on these inputs: a float64 reference over a sample of sequences.
    sample = list(range(min(S, 6)))
    ref = paged_attention_ref(q[sample], kc, vc, bt[sample], sl[sample], scale)
    out_q = torch.full_like(q, float("nan"))
    pda(q, kc, vc, bt, sl, scale, out=out_q, max_seq_len=max_len)
    out_t = torch.full_like(q, float("nan"))
    triton_paged_decode(q, kc, vc, bt, sl, scale, max_len, out=out_t)
    torch.cuda.synchronize()
    err_q = rel_err(out_q[sample], ref)
    err_t = rel_err(out_t[sample], ref)
    unwritten = torch.isnan(out_q).any().item()

    # The op as a user calls it (its default configuration).
    op = lambda: pda(q, kc, vc, bt, sl, scale, out=out_q, max_seq_len=max_len)
    best_q = (bench(op), "op")
    q_graph = graph_time(op)
    q_cpu = cpu_time(op)
    best_t = None
    for nw, bn, ns in ((4, 64, 3), (4, 32, 2), (8, 64, 2), (4, 64, 1)):
        try:
            t = bench(lambda: triton_paged_decode(q, kc, vc, bt, sl, scale, max_len,
                                                  block_n=bn, num_warps=nw, num_stages=ns))
        except Exception as e:
            print(f"  triton {nw},{bn},{ns} failed: {type(e).__name__}")
            continue
        if best_t is None or t < best_t[0]:
            best_t = (t, (nw, bn, ns))
    nw, bn, ns = best_t[1]
    t_fn = lambda: triton_paged_decode(q, kc, vc, bt, sl, scale, max_len, block_n=bn,
                                       num_warps=nw, num_stages=ns)
    t_graph = graph_time(t_fn)
    t_cpu = cpu_time(t_fn)
    # SDPA on the same KV stored contiguously (no paging), equal lengths only.
    t_sdpa = float("nan")
    if len(set(L)) == 1 and max_len * S * Hkv * 128 * 2 * 2 < 40e9:
        kk = kc[bt.long()].reshape(S, -1, Hkv, 128)[:, :max_len].transpose(1, 2).contiguous()
        vv = vc[bt.long()].reshape(S, -1, Hkv, 128)[:, :max_len].transpose(1, 2).contiguous()
        qq = q.view(S, Hq, 1, 128)
        t_sdpa = bench(lambda: F.scaled_dot_product_attention(qq, kk, vv, enable_gqa=True))
        del kk, vv
    tb = lambda t: kv_bytes / (t * 1e-6) / 1e12
    row = dict(name=name, quire_us=best_q[0], quire_warps=best_q[1], quire_tbs=tb(best_q[0]),
               triton_us=best_t[0], triton_cfg=best_t[1], triton_tbs=tb(best_t[0]),
               sdpa_us=t_sdpa, sdpa_tbs=tb(t_sdpa) if t_sdpa == t_sdpa else float("nan"),
               ratio=best_t[0] / best_q[0], err_q=err_q, err_t=err_t, unwritten=unwritten,
               qg=q_graph, tg=t_graph, qg_tbs=tb(q_graph), tg_tbs=tb(t_graph),
               gratio=t_graph / q_graph, q_cpu=q_cpu, t_cpu=t_cpu)
    table.append(row)
    print(f"{name:22s} quire {row['quire_us']:8.0f} us {row['quire_tbs']:5.2f} TB/s | "
          f"triton {row['triton_us']:8.0f} us {row['triton_tbs']:5.2f} TB/s {best_t[1]} | "
          f"sdpa {row['sdpa_us']:8.0f} us {row['sdpa_tbs']:5.2f} TB/s | quire/triton speed {row['ratio']:.2f}x | "
          f"err q {err_q:.1e} t {err_t:.1e}{' UNWRITTEN' if unwritten else ''}", flush=True)
    print(f"{'':22s} graph: quire {q_graph:6.0f} us {tb(q_graph):5.2f} TB/s | triton {t_graph:6.0f} us "
          f"{tb(t_graph):5.2f} TB/s | x{t_graph / q_graph:.2f} | host per call: quire {q_cpu:.0f} us, "
          f"triton {t_cpu:.0f} us", flush=True)
    del kc, vc
    torch.cuda.empty_cache()

print()
print("| config | Quire us | Quire TB/s | Triton us | Triton TB/s | SDPA contiguous us | SDPA TB/s | Triton/Quire time | err Quire | err Triton |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in table:
    print(f"| {r['name']} | {r['quire_us']:.0f} | {r['quire_tbs']:.2f} | {r['triton_us']:.0f} | {r['triton_tbs']:.2f} | "
          f"{r['sdpa_us']:.0f} | {r['sdpa_tbs']:.2f} | {r['ratio']:.2f} | {r['err_q']:.1e} | {r['err_t']:.1e} |")
print()
print("CUDA graph replay (no host overhead; how serving engines run decode):")
print("| config | Quire us | Quire TB/s | Triton us | Triton TB/s | Quire speed vs Triton | host us per call Quire / Triton |")
print("|---|---|---|---|---|---|---|")
for r in table:
    print(f"| {r['name']} | {r['qg']:.0f} | {r['qg_tbs']:.2f} | {r['tg']:.0f} | {r['tg_tbs']:.2f} | "
          f"{r['gratio']:.2f} | {r['q_cpu']:.0f} / {r['t_cpu']:.0f} |")
print(f"copy {copy_bw:.2f} TB/s, read-only {read_bw:.2f} TB/s")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(11, 4.5))
    xs = range(len(table))
    w = 0.27
    ax.bar([x - w for x in xs], [r["qg_tbs"] for r in table], w, label="Quire (graph)")
    ax.bar(list(xs), [r["tg_tbs"] for r in table], w, label="Triton (paged, graph)")
    ax.bar([x + w for x in xs], [r["sdpa_tbs"] for r in table], w, label="SDPA (contiguous)")
    ax.axhline(copy_bw, color="gray", ls="--", lw=1, label=f"copy {copy_bw:.2f} TB/s")
    ax.axhline(read_bw, color="black", ls=":", lw=1, label=f"read-only {read_bw:.2f} TB/s")
    ax.set_xticks(list(xs), [r["name"] for r in table], rotation=15, fontsize=8)
    ax.set_ylabel("effective KV bandwidth (TB/s)")
    ax.set_title("Paged decode attention, fp16, head dim 128, H200")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "paged_decode.png"), dpi=120)
    print("wrote", os.path.join(args.out, "paged_decode.png"))
except ImportError:
    print("matplotlib not available: no plot")
