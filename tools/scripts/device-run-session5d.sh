#!/usr/bin/env bash
# Session 5: Triton's decode split kernel PTX/SASS next to Quire's, to see
# how their K/V copies differ.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
TB=$(python3 -c "import triton, os; print(os.path.join(os.path.dirname(triton.__file__), 'backends/nvidia/bin'))")
ls $TB
mkdir -p $OUT/dump
cd bench && TRITON_ALWAYS_COMPILE=1 TRITON_KERNEL_DUMP=1 TRITON_DUMP_DIR=$OUT/dump python3 - <<'PY'
import math, os, torch
from common import make_paged_kv
from triton_paged_decode import triton_paged_decode, _decode_split
gen = torch.Generator(device="cuda").manual_seed(3)
S, Hq, Hkv, L, P = 64, 32, 8, 4096, 16
kc, vc, bt = make_paged_kv(S, Hkv, 128, P, [L] * S, torch.half, gen)
q = torch.randn(S, Hq, 128, device="cuda", generator=gen).half()
sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
triton_paged_decode(q, kc, vc, bt, sl, 1 / math.sqrt(128), L, block_n=32, num_warps=4, num_stages=2)
torch.cuda.synchronize()
import glob, shutil
out = os.environ["OUT"]
for f in glob.glob(f"{out}/dump/**/*", recursive=True):
    if "_decode_split" in f and f.endswith((".ptx", ".cubin")):
        shutil.copy(f, f"{out}/triton_split" + os.path.splitext(f)[1])
        print("dumped", f)
PY
ls -R $OUT/dump | head -20
$TB/ptxas -arch=sm_90 _tmp_quire_decode.ptx -o $OUT/quire_split.cubin
for f in triton_split quire_split; do $TB/cuobjdump -sass $OUT/$f.cubin > $OUT/$f.sass 2>&1 || $TB/nvdisasm $OUT/$f.cubin > $OUT/$f.sass; done
grep -cE "LDGSTS" $OUT/*.sass
grep -E "LDGSTS" $OUT/triton_split.sass | head -20
grep -E "LDGSTS" $OUT/quire_split.sass | head -20
grep -E "cp.async" $OUT/triton_split.ptx | head -20
