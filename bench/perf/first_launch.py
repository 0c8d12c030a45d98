"""Time to a kernel's first launch in a new process: cold cache, warm disk cache, warm memory.

Each measurement is a child process (a fresh CUDA context, as a new serving
worker has) that compiles paged_decode_attention's kernels for one decode
batch (Llama-3-8B heads, 64 x 4096, fp16) through quire.ops and runs the
call once, synchronized: the time from the call to its completion, and the
process's compile and ptxas counters. Rows:

  cold            empty cache: the frontend, libquire and ptxas all run
  warm disk       a new process, the cache filled: no compile, no ptxas;
                  the cubin loads without a driver JIT
  warm disk, PTX  the same with QUIRE_PTXAS= (no ptxas): the cached PTX is
                  JIT-compiled by the driver at module load
  warm memory     the second call in the same process

    bench/run.py first_launch
"""

import json
import os
import subprocess
import sys
import tempfile

from lib.env import parser, print_header, python_path, require_torch

CHILD = r"""
import json, math, sys, time
import torch
import quire
torch.cuda.init()
S, L, HQ, HKV, D, P = 64, 4096, 32, 8, 128, 16
nb = S * L // P
kv = torch.randn(2, nb, P, HKV, D, device="cuda").half()
bt = torch.arange(nb, device="cuda", dtype=torch.int32).view(S, L // P)
lens = torch.full((S,), L, device="cuda", dtype=torch.int32)
q = torch.randn(S, HQ, D, device="cuda").half()
torch.cuda.synchronize()
times = []
for _ in range(2):
    t = time.perf_counter()
    quire.ops.paged_decode_attention(q, kv[0], kv[1], bt, lens)
    torch.cuda.synchronize()
    times.append((time.perf_counter() - t) * 1e3)
print(json.dumps({"first_ms": times[0], "second_ms": times[1],
                  "info": quire.cache_info()}))
"""


def child(cache, ptxas=None):
    env = dict(os.environ, QUIRE_CACHE_DIR=cache)
    path = python_path()
    if path:
        env["PYTHONPATH"] = os.pathsep.join(
            [path] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    if ptxas is not None:
        env["QUIRE_PTXAS"] = ptxas
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                         text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"first_launch: the child failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser("first_launch", __doc__).parse_args(argv)
    require_torch()
    import quire
    from quire import _ptxas
    print_header("first_launch")
    found = _ptxas.find()
    print(f"ptxas: {found[0] if found else 'none'}")
    with tempfile.TemporaryDirectory() as cache, \
            tempfile.TemporaryDirectory() as ptx_cache:
        cold = child(cache)
        warm = child(cache)
        ptx_cold = child(ptx_cache, ptxas="")
        ptx_warm = child(ptx_cache, ptxas="")
    rows = [("cold", cold["first_ms"], cold["info"]),
            ("warm disk", warm["first_ms"], warm["info"]),
            ("cold, PTX", ptx_cold["first_ms"], ptx_cold["info"]),
            ("warm disk, PTX", ptx_warm["first_ms"], ptx_warm["info"]),
            ("warm memory", warm["second_ms"], None)]
    print("| cache | first call ms | compiles | ptxas runs | cubins from disk |")
    print("|---|---|---|---|---|")
    for name, ms, info in rows:
        if info is None:
            print(f"| {name} | {ms:.1f} | 0 | 0 | 0 |")
        else:
            print(f"| {name} | {ms:.1f} | {info['compiles']} | {info['assembles']} | "
                  f"{info['cubin_disk_hits']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
