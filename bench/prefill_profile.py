"""One launch of each prefill kernel on the 4 x ctx 4096 + 512 row, for
`ncu` (Nsight Compute): Quire's op (default tiles) and the Triton peer.
Usage: ncu --kernel-name regex:'paged_prefill|_prefill_kernel' \
           --launch-skip 1 python3 bench/prefill_profile.py"""

import math

from common import bench  # noqa: F401  (sets sys.path)
import torch

import paged_prefill as pf

gen = torch.Generator(device="cuda").manual_seed(3)
inp = pf.make_inputs([4096] * 4, [512] * 4, 16, gen)
out = torch.empty_like(inp["q"])
scale = 1 / math.sqrt(pf.D)
for _ in range(2):
    pf.run_quire(inp, scale, out)
    pf.run_triton(inp, scale, out, block_n=64, num_warps=4, num_stages=2)
torch.cuda.synchronize()
print("prefill_profile: done")
