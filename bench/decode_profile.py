"""One launch of each decode kernel on the Llama-3-8B 64 x 4096 row (fp16,
page 16), for Nsight Compute: Quire's quire.ops.paged_decode_attention
(split and combine kernels) and the Triton peer at its best configuration
(4 warps, 32 tokens, 2 stages).
Usage: ncu --kernel-name regex:'decode|combine' --launch-skip 4 \
           python3 bench/decode_profile.py"""

import math

from common import make_paged_kv  # noqa: F401  (sets sys.path)
import torch

import quire
from triton_paged_decode import triton_paged_decode

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
torch.cuda.synchronize()
print("decode_profile: done")
