"""The tutorials compiled by Quire and by Triton from the same source: kernel times and launch overhead.

Each file of python/tutorials is loaded twice in this process: as it is
(Quire), and with exactly its two import lines replaced by `import triton`
and `import triton.language as tl`, written to a temporary .py file (both
JITs read the source through inspect) and imported from there: how a Triton
user brings a kernel over, nothing else of the source changed. For each
workload both are run on fresh random inputs, checked against float64 with
NaN-poisoned outputs, then timed in the same process as the median of
CUDA-graph replays (lib.timing.graph_us: quire.testing.do_bench, L2 flushed
before each replay). Where configurations are swept, both sides try the
same ones and the best correct one of each is reported.

  add        01-vector-add: n = 2^24, 2^26 fp32; GB/s at 12 bytes/element
  softmax    02-fused-softmax: 4096x1024, 4096x4096, 16384x2048 fp32; GB/s
             at 8 bytes/element; torch.softmax beside
  matmul     03-matrix-multiplication: 4096^3 fp16 through matmul()'s
             autotuner (each side tunes at its first call; the first-call
             time is printed) and at one fixed config (128x128x64, group 8,
             8 warps, 3 stages); TFLOP/s; torch.matmul beside
  attention  06-fused-attention forward: Z=4, H=32, N_CTX=4096, head dim
             64 and 128, causal and not, fp16; best of 3 BLOCK_M/BLOCK_N/
             warps/stages configs per side (and Quire's 3-stage ones
             with early_dots, and each at 2 and 3 stages with a producer
             warpgroup, with and without the softmax overlap); TFLOP/s =
             4 Z H N^2 D (/2 if causal); torch SDPA beside
  decode     paged-attention: perf/paged_decode's rows (head dim 128, fp16,
             vLLM cache layout); best of BLOCK_N 32/64/128 x 4/8 warps per
             side; KV bandwidth in TB/s
  scratch    paged-attention-scratch: the decode kernel that builds its row
             offsets in a global scratch buffer (per-page entry loads,
             masked stores, tl.debug_barrier, reload), on perf/paged_decode's
             rows; the decode configs whose tiles are whole pages or lie
             within one (BLOCK_N 256 too for page 128); the natural kernel
             (paged-attention,
             every decode config) under Quire beside, in the same process
  unified    unified-attention (mixed batches, the raised natural gather):
             decode-only 64x4096, prefill-only 4x512 chunks after 2k, and
             60 decode sequences at 2-8k + 4 prefill chunks of 512; Llama-3-8B
             heads, page 16; best of 4 BLOCK_M/BLOCK_N/warps configs per
             side; KV bandwidth in TB/s
  persistent 09-persistent-matmul: 4096^3 fp16 through host and
             in-kernel tensor descriptors, best of the same three configs
             per side (128x128x64 at 3 and 4 stages, 128x256x64 at 3; TMA
             under Triton, cp.async under Quire; Quire with async_wgmma
             too); TFLOP/s; torch.matmul beside
  launch     host time per call of a cached launch, add_kernel (n = 4096)
             and paged_attention_decode (18 arguments): median of 5 rounds
             of 1000 back-to-back launches after a warm-up

Correctness: fp32 outputs need ||out - ref|| / ||ref|| < 1e-5; fp16 outputs
< 5e-3 and max|out - ref| / max|ref| < 1e-2 (attention: sampled heads, its
fp32 log-sum-exp too; decode: the first 6 sequences; every element checked
for NaN). Prints a line per measurement, then the table (last); writes
frontend.png (speed-ups) into the output folder. Exits 1 when a check or a
workload failed; a swept configuration one side cannot build is listed but
not a failure.

    bench/run.py frontend [--only add,softmax,matmul,persistent,attention,decode,scratch,unified,launch]
                          [--quick] [--out DIR]
"""

import importlib.util
import math
import os
import statistics
import sys
import tempfile
import time
import traceback

from lib.env import ROOT, parser, print_header, require_torch

TUTORIALS = os.path.join(ROOT, "python", "tutorials")
FILES = {"add": "01-vector-add.py", "softmax": "02-fused-softmax.py",
         "matmul": "03-matrix-multiplication.py",
         "attention": "06-fused-attention.py", "decode": "paged-attention.py",
         "scratch": "paged-attention-scratch.py",
         "unified": "unified-attention.py",
         "persistent": "09-persistent-matmul.py"}
IMPORTS = {"import quire as triton": "import triton",
           "import quire.language as tl": "import triton.language as tl"}
# Imports a tutorial may have, replaced the same way.
OPTIONAL_IMPORTS = {
    "from quire.tools.tensor_descriptor import TensorDescriptor":
    "from triton.tools.tensor_descriptor import TensorDescriptor"}
SIDES = ("Quire", "Triton")
WORKLOADS = ("add", "softmax", "matmul", "attention", "decode", "scratch",
             "unified", "launch", "persistent")
# Run order: the cheap and the paged kernels before the kernels most likely
# to take the CUDA context down with them.
RUN_ORDER = ("launch", "add", "softmax", "decode", "scratch", "unified",
             "matmul", "persistent", "attention")
FP32 = {"norm": 1e-5}
FP16 = {"norm": 5e-3, "max": 1e-2}
ADD_SIZES = (2**24, 2**26)
SOFTMAX_SHAPES = ((4096, 1024), (4096, 4096), (16384, 2048))
MATMUL_SIZE = 4096
MATMUL_FIXED = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
                    GROUP_SIZE_M=8, num_warps=8, num_stages=3)
ATTN_SHAPE = (4, 32, 4096)  # Z, H, N_CTX
ATTN_CONFIGS = {  # BLOCK_M, BLOCK_N (<= HEAD_DIM), num_warps, num_stages
    64: [(128, 64, 8, 3), (128, 64, 4, 3), (64, 64, 4, 3)],
    128: [(128, 64, 8, 3), (128, 128, 8, 2), (64, 64, 4, 3)],
}
# Quire's launch options tried on the attention configurations beside
# them (Triton runs the tutorial as it is): the next scores issued early,
# and producer warps (docs/passes.md, quire-warp-specialize) as a warpgroup
# with setmaxnreg, alone and with the softmax overlap.
ATTN_OPTIONS = [
    ("early_dots", {"early_dots": True}),
    ("producer warpgroup", {"warp_specialize": True,
                            "producer_warpgroup": True}),
    ("producer warpgroup overlap", {"warp_specialize": True,
                                    "producer_warpgroup": True,
                                    "overlap_softmax": True})]
DECODE_CONFIGS = [(bn, nw) for bn in (32, 64, 128) for nw in (4, 8)]
LAUNCHES, ROUNDS, WARMUP_LAUNCHES = 1000, 5, 200
UNITS = {"GB/s": 1e3, "TB/s": 1e6, "TFLOP/s": 1e6}  # amount / us / this
# Mixed-batch rows (Llama-3-8B heads, page 16): (name, query lens, context
# lens) built per row; BLOCK_M rows of 4 tokens x 4 heads.
# Tutorial 09's tiles (BLOCK_M, BLOCK_N, BLOCK_K) and stages, both sides.
PERSISTENT_CONFIGS = [((128, 128, 64), 3), ((128, 128, 64), 4),
                      ((128, 256, 64), 3)]
UNIFIED_CONFIGS = [(16, 32, 4), (16, 64, 4), (16, 64, 8), (32, 64, 4)]
TRACE_LINES = 30


def triton_source(text, path):
    """`text` with its two Quire import lines (and the optional ones)
    replaced by Triton's, each found exactly once; nothing else changes."""
    lines = text.splitlines(keepends=True)
    found = set()
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if body in IMPORTS or body in OPTIONAL_IMPORTS:
            if body in found:
                raise AssertionError(f"{path}: the line {body!r} appears twice")
            found.add(body)
            lines[i] = {**IMPORTS, **OPTIONAL_IMPORTS}[body] + \
                line[len(body):]
    missing = [line for line in IMPORTS if line not in found]
    if missing:
        raise AssertionError(f"{path}: no line {missing[0]!r}")
    return "".join(lines)


def load_module(name, path):
    """Imports the file `path` as module `name` (registered in sys.modules
    while it runs, as a normal import does)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0][:200] if text else ""


def check(out, ref, tol):
    """(ok, text): out against the float64 `ref` under `tol` (FP32/FP16)."""
    from lib.reference import rel_err
    e = rel_err(out, ref)
    if math.isnan(e):
        return False, "NaN (unwritten or invalid elements)"
    ok, text = e < tol["norm"], f"{e:.1e}"
    if "max" in tol:
        diff = (out.double() - ref.double()).abs().max()
        m = (diff / ref.double().abs().max().clamp_min(1e-30)).item()
        ok = ok and m < tol["max"]
        text += f" (max {m:.1e})"
    return ok, text


def unwritten(*tensors):
    return any(t.isnan().any().item() for t in tensors)


def config_text(c):
    """A Config (Quire's or Triton's) of the matmul tutorial, short."""
    try:
        k = c.kwargs
        return (f"{k['BLOCK_SIZE_M']}x{k['BLOCK_SIZE_N']}x{k['BLOCK_SIZE_K']} "
                f"g{k['GROUP_SIZE_M']} w{c.num_warps} s{c.num_stages}")
    except (AttributeError, KeyError, TypeError):
        return str(c)


def rate(row, t):
    """The achieved bandwidth or TFLOP/s of a time in us in `row`."""
    if t is None:
        return "-"
    if row["unit"] is None:
        return "host time"
    return f"{row['amount'] / t / UNITS[row['unit']]:.2f} {row['unit']}"


def fmt_us(t):
    if t is None:
        return "FAILED"
    return f"{t:.2f}" if t < 10 else f"{t:.1f}" if t < 1000 else f"{t:.0f}"


def decode_rows(quick=False):
    """perf/paged_decode's rows the tutorials' decode kernels run (fp16, head
    dim 128) as (name, seqs, q heads, kv heads, lengths, page); --quick keeps
    the first and the ragged one."""
    from perf.paged_decode import ROWS
    rows = [r[:6] for r in ROWS if r[6] == 128 and r[7] == "float16"]
    return [r for r in rows if r is rows[0] or isinstance(r[4], str)] \
        if quick else rows


class Bench:
    """The workloads, the table they fill and the problems they found."""

    def __init__(self, torch, mods, quick):
        from lib import timing
        self.torch = torch
        self.timing = timing
        self.mods = mods            # side -> {tutorial key: module}
        self.quick = quick
        self.gen = torch.Generator(device="cuda").manual_seed(2026)
        self.rows = []              # the final table
        self.failures = []          # wrong results, runs that raised
        self.config_errors = []     # swept configs one side could not run

    # Reporting ---------------------------------------------------------

    def error(self, what, fatal=True):
        """Reports the exception being handled: a line, then the end of its
        traceback."""
        e = sys.exc_info()[1]
        summary = f"{what}: {type(e).__name__}: {_first_line(e)}"
        print(f"ERROR {summary}", flush=True)
        tb = traceback.format_exc().rstrip().splitlines()
        if len(tb) > TRACE_LINES:
            tb = ["..."] + tb[-TRACE_LINES:]
        print("\n".join("    " + line for line in tb), flush=True)
        (self.failures if fatal else self.config_errors).append(summary)

    def guard(self, what, fn):
        """Runs one row; an exception is reported and the next row runs."""
        try:
            fn()
        except Exception:
            self.error(what)
        finally:
            try:
                self.torch.cuda.empty_cache()
            except Exception:
                pass

    def add_row(self, key, workload, shape, res, unit=None, amount=None,
                torch_us=None, peer="torch"):
        q, t = res.get("Quire"), res.get("Triton")
        row = dict(key=key, workload=workload, shape=shape, q=q, t=t,
                   unit=unit, amount=amount, torch=torch_us, peer=peer)
        row["speedup"] = t["us"] / q["us"] if q and t else None
        self.rows.append(row)
        speed = f"x{row['speedup']:.2f}" if row["speedup"] else "-"
        print(f"= {workload} {shape}: Quire {fmt_us(q and q['us'])} us, Triton "
              f"{fmt_us(t and t['us'])} us, Triton/Quire {speed}", flush=True)

    def sides(self, key):
        """(side, module) of each side whose tutorial `key` loaded."""
        return [(s, self.mods[s][key]) for s in SIDES if key in self.mods[s]]

    # Measuring ---------------------------------------------------------

    def graph_time(self, fn, where):
        try:
            return self.timing.graph_us(fn), ""
        except Exception:
            self.error(f"{where}: CUDA-graph capture; timed eagerly instead",
                       fatal=False)
            self.torch.cuda.synchronize()
            return self.timing.us(fn), " (eager)"

    def host_time(self, fn, where):
        """Host time per call: median of ROUNDS rounds of LAUNCHES calls."""
        for _ in range(WARMUP_LAUNCHES):
            fn()
        self.torch.cuda.synchronize()
        rounds = [self.timing.host_us(fn, n=LAUNCHES) for _ in range(ROUNDS)]
        print(f"  {where}: rounds " + " ".join(f"{r:.2f}" for r in rounds)
              + " us per call", flush=True)
        return statistics.median(rounds), ""

    def measure(self, side, what, candidates, outs, chk, timer=None):
        """The best correct candidate of one side. `candidates` are (config,
        fn) with fn() writing `outs`; config is a label, or a function
        giving it after the first call (the autotuner's choice). Each fn
        runs once (compiling or tuning), again on NaN-poisoned outputs,
        which chk() checks, then is timed. Returns {"us", "cfg", "err"} or
        None."""
        from lib.reference import poison
        torch = self.torch
        sweep = len(candidates) > 1
        best = None
        for cfg, fn in candidates:
            label = cfg if isinstance(cfg, str) else "autotuned"
            where = f"{what} [{side} {label}]"
            try:
                t0 = time.perf_counter()
                fn()
                torch.cuda.synchronize()
                first = time.perf_counter() - t0
                if callable(cfg):
                    label = cfg()
                    where = f"{what} [{side} {label}]"
                for o in outs:
                    poison(o)
                fn()
                torch.cuda.synchronize()
                ok, err = chk()
                if not ok:
                    print(f"FAIL {where}: wrong result: {err}", flush=True)
                    self.failures.append(f"{where}: wrong result: {err}")
                    continue
                t, note = (timer or self.graph_time)(fn, where)
            except Exception:
                self.error(where, fatal=not sweep)
                continue
            print(f"  {what:34s} {side:6s} {label + note:28s} {fmt_us(t):>8s} us"
                  f"  err {err}  (first call {first:.1f} s)", flush=True)
            if best is None or t < best["us"]:
                best = {"us": t, "cfg": label + note, "err": err}
        if best is None and sweep:
            self.failures.append(f"{what} [{side}]: no configuration ran "
                                 "correctly")
        return best

    def peer(self, what, fn):
        """CUDA-graph time of a torch peer, or None (reported) if it fails."""
        try:
            fn()
            t = self.timing.graph_us(fn)
        except Exception:
            self.error(f"{what} [torch]", fatal=False)
            return None
        print(f"  {what:34s} torch  {'':28s} {fmt_us(t):>8s} us", flush=True)
        return t

    # Workloads ---------------------------------------------------------

    def add(self):
        for n in ADD_SIZES[:1] if self.quick else ADD_SIZES:
            self.guard(f"vector add n={n}", lambda n=n: self._add(n))

    def _add(self, n):
        torch = self.torch
        x = torch.rand(n, device="cuda", generator=self.gen)
        y = torch.rand(n, device="cuda", generator=self.gen)
        ref = x.double() + y.double()
        out = torch.empty_like(x)
        k = n.bit_length() - 1
        shape = f"n=2^{k} fp32" if n == 1 << k else f"n={n} fp32"
        res = {side: self.measure(
            side, f"vector add {shape}",
            [("add() BLOCK 1024", lambda m=mod: m.add(x, y, out))], [out],
            lambda: check(out, ref, FP32)) for side, mod in self.sides("add")}
        self.add_row("add", "vector add", shape, res, "GB/s", 12 * n)

    def softmax(self):
        for rows, cols in SOFTMAX_SHAPES[:1] if self.quick else SOFTMAX_SHAPES:
            self.guard(f"softmax {rows}x{cols}",
                       lambda r=rows, c=cols: self._softmax(r, c))

    def _softmax(self, rows, cols):
        torch = self.torch
        x = torch.randn(rows, cols, device="cuda", generator=self.gen)
        ref = torch.softmax(x.double(), dim=1)
        y = torch.empty_like(x)
        what = f"fused softmax {rows}x{cols} fp32"
        res = {side: self.measure(
            side, what, [("softmax()", lambda m=mod: m.softmax(x, y))], [y],
            lambda: check(y, ref, FP32)) for side, mod in self.sides("softmax")}
        t_torch = self.peer(what, lambda: torch.softmax(x, dim=1))
        self.add_row("softmax", "fused softmax", f"{rows}x{cols} fp32", res,
                     "GB/s", 8 * rows * cols, t_torch)

    def matmul(self):
        self.guard("matmul", self._matmul)

    def _matmul_operands(self, what):
        """(a, b, c, ref, shape, torch.matmul's us) of the MATMUL_SIZE^3
        fp16 rows: fresh operands, their float64 product, an output."""
        torch = self.torch
        M = N = K = MATMUL_SIZE
        a = torch.randn(M, K, device="cuda", generator=self.gen,
                        dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", generator=self.gen,
                        dtype=torch.float16)
        ref = a.double() @ b.double()
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        c_torch = torch.empty_like(c)
        shape = f"{M}^3 fp16"
        t_torch = self.peer(f"{what} {shape}",
                            lambda: torch.matmul(a, b, out=c_torch))
        return a, b, c, ref, shape, t_torch

    def _matmul(self):
        M = N = K = MATMUL_SIZE
        a, b, c, ref, shape, t_torch = self._matmul_operands("matmul")
        modes = [] if self.quick else [("autotuned", None)]
        modes.append(("fixed config", MATMUL_FIXED))
        for mode, config in modes:
            res = {}
            for side, mod in self.sides("matmul"):
                if config is None:
                    label = (lambda m=mod: "autotuned: " + config_text(
                        m.matmul_kernel_autotuned.best_config))
                else:
                    label = "128x128x64 g8 w8 s3"
                fn = (lambda m=mod, cf=config: m.matmul(a, b, c, config=cf))
                res[side] = self.measure(side, f"matmul {mode} {shape}",
                                         [(label, fn)], [c],
                                         lambda: check(c, ref, FP16))
            self.add_row("matmul", f"matmul {mode}", shape, res,
                         "TFLOP/s", 2 * M * N * K, t_torch)

    def option_rows(self, workload, what, option, candidates, outputs, chk,
                    row, shape, flops, peer_us):
        """TFLOP/s rows of `workload`: both sides over candidates(mod, {}),
        then Quire alone over candidates(mod, extra) for each Quire launch
        option (`option`: a name, set True; or a list of (label, extra
        options)) beside Triton's result of the first row (the same Triton
        kernel)."""
        extras = [(option, {option: True})] if isinstance(option, str) \
            else list(option)
        triton_res = None
        for label, extra in [("", {})] + extras:
            res = {} if triton_res is None else {"Triton": triton_res}
            for side, mod in self.sides(workload):
                if extra and side != "Quire":
                    continue
                res[side] = self.measure(side, what, candidates(mod, extra),
                                         outputs, chk)
                if side == "Triton":
                    triton_res = res[side]
            self.add_row(workload, row + (f" {label}" if extra else ""),
                         shape, res, "TFLOP/s", flops, peer_us)

    def persistent(self):
        self.guard("persistent matmul", self._persistent)

    def _persistent(self):
        # Tutorial 09 over the same tiles on both sides (its default
        # 128x128x64 at 3 and 4 stages, and 128x256x64 at 3; group 8, 8
        # warps), host and in-kernel descriptors; under Triton they are TMA
        # loads, under Quire TMA for host descriptors (and cp.async with
        # tma=False) and cp.async for in-kernel ones, with and without
        # async_wgmma (Quire's launch option; Triton's pipeline is async).
        M = N = K = MATMUL_SIZE
        a, b, c, ref, shape, t_torch = self._matmul_operands(
            "persistent matmul")
        for variant in ("matmul_host_descriptors",
                        "matmul_device_descriptors"):
            def candidates(mod, extra, variant=variant):
                out = []
                for tile, stages in PERSISTENT_CONFIGS:
                    cfg = dict(mod.DEFAULT, num_stages=stages, **extra)
                    (cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"],
                     cfg["BLOCK_SIZE_K"]) = tile
                    label = ("x".join(map(str, tile)) + f" g8 w8 s{stages}" +
                             "".join(" " + (k if v is True else f"{k}={v}")
                                     for k, v in extra.items()))
                    out.append((label, lambda m=mod, cf=cfg: getattr(
                        m, variant)(a, b, c, config=cf)))
                return out
            # Host descriptors are staged by TMA (Quire's tma option, on by
            # default) and, with tma=False, by cp.async.
            options = [("async_wgmma", {"async_wgmma": True})]
            if variant == "matmul_host_descriptors":
                options += [("tma=False", {"tma": False}),
                            ("tma=False async_wgmma", {"tma": False,
                                                       "async_wgmma": True})]
            self.option_rows(
                "persistent", f"persistent {variant} {shape}", options,
                candidates, [c], lambda: check(c, ref, FP16),
                "persistent matmul " + variant.replace("matmul_", ""), shape,
                2 * M * N * K, t_torch)

    def attention(self):
        for D in list(ATTN_CONFIGS)[:1] if self.quick else ATTN_CONFIGS:
            for causal in (False, True):
                self.guard(f"attention d{D} causal={causal}",
                           lambda D=D, c=causal: self._attention(D, c))

    def _attention(self, D, causal):
        torch = self.torch
        import torch.nn.functional as F
        Z, H, N = ATTN_SHAPE
        q, k, v = (torch.randn((Z, H, N, D), device="cuda", generator=self.gen,
                               dtype=torch.float16) for _ in range(3))
        scale = D ** -0.5
        o = torch.empty_like(q)
        lse = torch.empty((Z, H, N), device="cuda", dtype=torch.float32)
        heads = [(0, 0), (Z // 2, H // 3), (Z - 1, H - 1)]
        pos = torch.arange(N, device="cuda")
        future = pos[None, :] > pos[:, None]  # keys a causal query skips
        ref_o, ref_lse = [], []
        for z, h in heads:
            s = q[z, h].double() @ k[z, h].double().T * scale
            if causal:
                s = s.masked_fill(future, float("-inf"))
            ref_o.append(torch.softmax(s, dim=-1) @ v[z, h].double())
            ref_lse.append(torch.logsumexp(s, dim=-1) / math.log(2))  # base 2
            del s
        ref_o, ref_lse = torch.stack(ref_o), torch.stack(ref_lse)

        def chk():
            if unwritten(o, lse):
                return False, "NaN (unwritten elements)"
            ok_o, e_o = check(torch.stack([o[z, h] for z, h in heads]), ref_o,
                              FP16)
            ok_m, e_m = check(torch.stack([lse[z, h] for z, h in heads]),
                              ref_lse, FP32)
            return ok_o and ok_m, f"{e_o}, lse {e_m}"

        configs = ATTN_CONFIGS[D][:1] if self.quick else ATTN_CONFIGS[D]
        shape = f"{Z}x{H}x{N} d{D} fp16"
        what = f"attention{' causal' if causal else ''} {shape}"
        t_torch = self.peer(what, lambda: F.scaled_dot_product_attention(
            q, k, v, is_causal=causal, scale=scale))
        flops = 4 * Z * H * N * N * D // (2 if causal else 1)

        def candidates(mod, extra):
            # early_dots needs 3 stages or more, and its loop-top wait takes
            # one iteration's copies out of flight: it also tries one stage
            # more than each configuration. Producer warps try each
            # configuration at 2 and 3 stages.
            early = extra.get("early_dots", False)
            stages = ((lambda ns: (ns, ns + 1)) if early else
                      (lambda ns: (2, 3)) if extra else (lambda ns: (ns,)))
            return [(f"{bm}x{bn} w{nw} s{s}" + (" early" if early else ""),
                     lambda m=mod, bm=bm, bn=bn, nw=nw, s=s, x=extra:
                     m.attention(q, k, v, causal, scale, o=o, M=lse,
                                 BLOCK_M=bm, BLOCK_N=bn, num_warps=nw,
                                 num_stages=s, **x))
                    for bm, bn, nw, ns in configs for s in stages(ns)
                    if not early or s >= 3]
        self.option_rows("attention", what, ATTN_OPTIONS, candidates,
                         [o, lse], chk,
                         "attention fwd" + (" causal" if causal else ""),
                         shape, flops, t_torch)

    def decode(self):
        for row in self.decode_rows():
            self.guard(f"paged decode {row[0]}", lambda r=row: self._decode(*r))

    def scratch(self):
        for row in self.decode_rows():
            self.guard(f"paged decode, scratch offsets {row[0]}",
                       lambda r=row: self._decode(*r, scratch=True))

    def decode_rows(self):
        return decode_rows(self.quick)

    def _decode(self, name, S, Hq, Hkv, lens, page, scratch=False):
        from lib.reference import (decode_lengths, make_paged_kv,
                                   paged_attention_ref)
        torch = self.torch
        L = decode_lengths(S, lens, self.gen)  # as perf/paged_decode draws it
        kc, vc, bt = make_paged_kv(S, Hkv, 128, page, L, torch.float16, self.gen)
        q = torch.randn(S, Hq, 128, device="cuda", generator=self.gen,
                        dtype=torch.float16)
        sl = torch.tensor(L, dtype=torch.int32, device="cuda")
        scale = 128 ** -0.5
        out = torch.empty_like(q)
        sample = list(range(min(S, 6)))
        ref = paged_attention_ref(q[sample], kc, vc, bt[sample], sl[sample], scale)

        def chk():
            if unwritten(out):
                return False, "NaN (unwritten elements)"
            return check(out[sample], ref, FP16)

        configs = [(64, 4)] if self.quick else DECODE_CONFIGS
        shape = f"{name}, page {page}"
        amount = 2 * sum(L) * Hkv * 128 * 2
        if not scratch:
            res = {side: self.measure(side, f"paged decode {shape}",
                                      self.decode_candidates(mod, configs, q, kc, vc, bt, sl, scale, out),
                                      [out], chk)
                   for side, mod in self.sides("decode")}
            self.add_row("decode", "paged decode", shape, res, "TB/s", amount)
            return
        # The same source with its offsets through a scratch buffer (one
        # slot of BLOCK_N per program), under both compilers; the natural
        # kernel under Quire beside.
        buf = torch.empty(S * Hkv * 256, dtype=torch.int64, device="cuda")
        res = {}
        # Its tiles are whole pages, or lie within one: BLOCK_N a multiple
        # or a divisor of the page size.
        whole = [(bn, nw) for bn, nw in configs + [(256, 4), (256, 8)]
                 if (bn % page == 0 or page % bn == 0) and
                 (bn < 256 or page > 64)]
        for side, mod in self.sides("scratch"):
            cands = [(f"BLOCK_N {bn} w{nw}",
                      lambda m=mod, bn=bn, nw=nw: m.paged_attention_scratch(
                          q, kc, vc, bt, sl, scale, out=out, scratch=buf,
                          BLOCK_N=bn, num_warps=nw))
                     for bn, nw in whole]
            res[side] = self.measure(side, f"paged decode scratch {shape}",
                                     cands, [out], chk)
        natural = self.measure(
            "Quire", f"paged decode natural {shape}",
            self.decode_candidates(self.mods["Quire"]["decode"], configs, q,
                                   kc, vc, bt, sl, scale, out), [out], chk)
        self.add_row("scratch", "paged decode, scratch offsets", shape, res,
                     "TB/s", amount, natural and natural["us"],
                     peer="Quire natural")

    @staticmethod
    def decode_candidates(mod, configs, q, kc, vc, bt, sl, scale, out):
        return [(f"BLOCK_N {bn} w{nw}",
                 lambda bn=bn, nw=nw: mod.paged_attention(
                     q, kc, vc, bt, sl, scale, out=out, BLOCK_N=bn,
                     num_warps=nw))
                for bn, nw in configs]

    def unified(self):
        rows = [("decode-only 64x4096", [1] * 64, [4095] * 64),
                ("prefill-only 4x512 after 2k", [512] * 4, [2048] * 4),
                ("mixed 60 decode 2-8k + 4x512", [1] * 60 + [512] * 4,
                 None)]
        for name, qlens, ctxs in rows[:1] if self.quick else rows:
            self.guard(f"unified {name}",
                       lambda n=name, q=qlens, c=ctxs: self._unified(n, q, c))

    def _unified(self, name, qlens, ctxs):
        torch = self.torch
        import numpy as np
        mod0 = self.mods["Quire"]["unified"]
        if ctxs is None:  # decode sequences at 2-8k, prefill chunks at 0-2k
            ctxs = [int(torch.randint(2048, 8192, (1,), generator=self.gen,
                                      device="cuda")) for _ in qlens[:-4]]
            ctxs += [int(torch.randint(0, 2048, (1,), generator=self.gen,
                                       device="cuda")) for _ in range(4)]
        H, KVH, D, P = 32, 8, 128, 16
        seq = [q + c for q, c in zip(qlens, ctxs)]
        nblk = [-(-n // P) for n in seq]
        total = sum(nblk) + 1
        perm = torch.randperm(total, device="cuda", generator=self.gen)
        bt = torch.zeros(len(seq), max(nblk), dtype=torch.int32, device="cuda")
        at = 0
        for i, nb in enumerate(nblk):
            bt[i, :nb] = perm[at:at + nb].to(torch.int32)
            at += nb
        kc = torch.randn(total, P, KVH, D, device="cuda", dtype=torch.float16,
                         generator=self.gen)
        vc = torch.randn_like(kc)
        T = sum(qlens)
        q = torch.randn(T, H, D, device="cuda", dtype=torch.float16,
                        generator=self.gen)
        sl = torch.tensor(seq, dtype=torch.int32, device="cuda")
        qsl = torch.tensor(np.concatenate([[0], np.cumsum(qlens)]),
                           dtype=torch.int32, device="cuda")
        scale = D ** -0.5
        out = torch.empty_like(q)
        # float64 check on a sample: the first sequence and the last (a
        # prefill chunk in the mixed row), token by token on the GPU.
        sample = sorted({0, len(qlens) - 1})

        def ref_of(s):
            n, q0, q1 = seq[s], int(qsl[s]), int(qsl[s + 1])
            rows = torch.arange(n, device="cuda")
            pages = bt[s][rows // P].long()
            k = kc[pages, rows % P].double()        # [n, KVH, D]
            v = vc[pages, rows % P].double()
            qq = q[q0:q1].double()                  # [t, H, D]
            kk = k.repeat_interleave(H // KVH, 1)   # [n, H, D]
            vv = v.repeat_interleave(H // KVH, 1)
            sc = torch.einsum("thd,nhd->htn", qq, kk) * scale
            pos = n - (q1 - q0) + torch.arange(q1 - q0, device="cuda")
            sc = sc.masked_fill(rows[None, None, :] > pos[None, :, None],
                                float("-inf"))
            return torch.einsum("htn,nhd->thd", torch.softmax(sc, -1), vv)

        refs = {s: ref_of(s) for s in sample}

        def chk():
            if unwritten(out):
                return False, "NaN (unwritten elements)"
            worst = (True, 0.0)
            for s in sample:
                ok, err = check(out[int(qsl[s]):int(qsl[s + 1])], refs[s], FP16)
                if not ok:
                    return ok, err
                worst = (ok, err)
            return worst

        configs = UNIFIED_CONFIGS[:1] if self.quick else UNIFIED_CONFIGS
        res = {}
        for side, mod in self.sides("unified"):
            cands = []
            for bm, bn, nw in configs:
                nqb = mod0.query_blocks(T, len(qlens), bm // (H // KVH))
                cands.append((f"BLOCK_M {bm} BLOCK_N {bn} w{nw}",
                              lambda m=mod, bm=bm, bn=bn, nw=nw, nqb=nqb:
                              m.unified_attention(q, kc, vc, bt, sl, qsl, nqb,
                                                  scale, out=out, BLOCK_M=bm,
                                                  BLOCK_N=bn, num_warps=nw)))
            res[side] = self.measure(side, f"unified {name}", cands, [out],
                                     chk)
        self.add_row("unified", "unified attention", name, res, "TB/s",
                     2 * sum(seq) * KVH * D * 2)

    def launch(self):
        self.guard("launch add_kernel", self._launch_add)
        self.guard("launch paged_attention_decode", self._launch_decode)

    def _launch_add(self):
        torch = self.torch
        n = 4096
        x = torch.rand(n, device="cuda", generator=self.gen)
        y = torch.rand(n, device="cuda", generator=self.gen)
        ref = x.double() + y.double()
        out = torch.empty_like(x)
        grid = ((n + 1023) // 1024,)
        res = {side: self.measure(
            side, "launch add_kernel",
            [("cached launch", lambda m=mod: m.add_kernel[grid](
                x, y, out, n, BLOCK_SIZE=1024))],
            [out], lambda: check(out, ref, FP32), timer=self.host_time)
            for side, mod in self.sides("add")}
        self.add_row("launch", "launch add_kernel", f"n={n}, 4 args + constexpr",
                     res)

    def _launch_decode(self):
        from lib.reference import make_paged_kv, paged_attention_ref
        torch = self.torch
        S, Hq, Hkv, D, page, length = 2, 32, 8, 128, 16, 128  # a tiny launch
        kc, vc, bt = make_paged_kv(S, Hkv, D, page, [length] * S, torch.float16,
                                   self.gen)
        q = torch.randn(S, Hq, D, device="cuda", generator=self.gen,
                        dtype=torch.float16)
        sl = torch.full((S,), length, dtype=torch.int32, device="cuda")
        scale = D ** -0.5
        out = torch.empty_like(q)
        ref = paged_attention_ref(q, kc, vc, bt, sl, scale)
        sq, so, sk, sv = q.stride(), out.stride(), kc.stride(), vc.stride()
        args = (out, q, kc, vc, bt, sl, scale, sq[0], sq[1], so[0], so[1],
                sk[0], sk[1], sk[2], sv[0], sv[1], sv[2], bt.stride(0))
        assert len(args) == 18
        meta = dict(QUERIES_PER_KV=Hq // Hkv, GROUP_PAD=16, HEAD_DIM=D,
                    BLOCK_SIZE=page, BLOCK_N=64, num_warps=4, num_stages=2)
        res = {side: self.measure(
            side, "launch paged_attention_decode",
            [("cached launch", lambda m=mod: m.paged_attention_decode[(S, Hkv)](
                *args, **meta))],
            [out], lambda: check(out, ref, FP16), timer=self.host_time)
            for side, mod in self.sides("decode")}
        self.add_row("launch", "launch paged_attention_decode",
                     f"grid {S}x{Hkv}, 18 args + 5 constexprs", res)

    # The table ---------------------------------------------------------

    def table(self):
        rows = sorted(self.rows, key=lambda r: WORKLOADS.index(r["key"]))
        print("| workload | shape | Quire us | Triton us | speed-up (Triton/Quire) | "
              "Quire | Triton | peer (torch, or the natural kernel) | "
              "Quire config | Triton config | rel. error Quire / Triton |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            q, t = r["q"] or {}, r["t"] or {}
            torch_cell = "-" if r["torch"] is None else \
                f"{r['peer']} {fmt_us(r['torch'])} us, {rate(r, r['torch'])}"
            cells = [r["workload"], r["shape"], fmt_us(q.get("us")),
                     fmt_us(t.get("us")),
                     f"{r['speedup']:.2f}" if r["speedup"] else "-",
                     rate(r, q.get("us")), rate(r, t.get("us")), torch_cell,
                     q.get("cfg", "-"), t.get("cfg", "-"),
                     f"{q.get('err', '-')} / {t.get('err', '-')}"]
            print("| " + " | ".join(cells) + " |")
        return rows

    def plot(self, rows, out):
        from lib.plot import bars
        labels = [f"{r['workload']} {r['shape']}" for r in rows]
        bars("frontend.png", "The tutorials under Quire and under Triton, "
             + self.torch.cuda.get_device_name(),
             "speed-up of Quire (Triton time / Quire time)", labels,
             [("Quire over Triton", [r["speedup"] or 0.0 for r in rows])],
             lines=[("parity", 1.0)], out=out)


def main(argv=None):
    p = parser("frontend", __doc__)
    p.add_argument("--only", help="comma-separated workloads to run: "
                   + ",".join(WORKLOADS) + " (default: all)")
    p.add_argument("--quick", action="store_true",
                   help="fewer rows and configurations (a smoke run)")
    p.add_argument("--out", help="folder for the plot (default $BENCH_OUT or bench/out)")
    args = p.parse_args(argv)
    selected = WORKLOADS
    if args.only:
        selected = [w.strip() for w in args.only.split(",") if w.strip()]
        unknown = [w for w in selected if w not in WORKLOADS]
        if unknown or not selected:
            p.error(f"--only: unknown workload {unknown[0] if unknown else '(none)'}; "
                    f"the workloads are {', '.join(WORKLOADS)}")
    torch = require_torch()
    print_header("frontend")
    failures = []
    with tempfile.TemporaryDirectory(prefix="quire-frontend-") as tmp:
        mods = {side: {} for side in SIDES}
        for key, fname in FILES.items():
            path = os.path.join(TUTORIALS, fname)
            # Not "triton...": Triton treats modules named so as its own.
            stem = fname[:-3].replace("-", "_")
            for side in SIDES:
                try:
                    if side == "Quire":
                        mods[side][key] = load_module("frontend_quire_" + stem, path)
                        continue
                    with open(path, encoding="utf-8") as f:
                        text = triton_source(f.read(), path)
                    copy = os.path.join(tmp, fname)
                    with open(copy, "w", encoding="utf-8") as f:
                        f.write(text)
                    mods[side][key] = load_module("frontend_triton_" + stem, copy)
                except Exception:
                    e = sys.exc_info()[1]
                    failures.append(f"loading {fname} for {side}: "
                                    f"{type(e).__name__}: {_first_line(e)}")
                    print(f"ERROR {failures[-1]}\n{traceback.format_exc()}",
                          flush=True)
        bench = Bench(torch, mods, args.quick)
        bench.failures += failures
        for w in RUN_ORDER:
            if w not in selected:
                continue
            t0 = time.perf_counter()
            try:
                getattr(bench, w)()
            except Exception:
                bench.error(f"workload {w}")
            print(f"# {w}: {time.perf_counter() - t0:.0f} s", flush=True)

    print()
    for line in bench.config_errors:
        print("skipped configuration:", line)
    for line in bench.failures:
        print("FAILED:", line)
    if bench.rows:
        try:
            bench.plot(sorted(bench.rows, key=lambda r: WORKLOADS.index(r["key"])),
                       args.out)
        except Exception:
            bench.error("plot", fatal=False)
    print("correctness: float64 references on fresh random inputs, outputs "
          f"NaN-poisoned; fp32 ||out-ref||/||ref|| < {FP32['norm']:g}; fp16 "
          f"< {FP16['norm']:g} and max|out-ref|/max|ref| < {FP16['max']:g}")
    print("times: median of CUDA-graph replays (L2 flushed before each), best "
          "correct configuration of each side; launch rows: host time per call, "
          f"median of {ROUNDS} rounds of {LAUNCHES} launches")
    bench.table()
    print(f"result: {len(bench.failures)} failure(s), listed above the table"
          if bench.failures else "result: every check passed")
    return 1 if bench.failures else 0


if __name__ == "__main__":
    sys.exit(main())
