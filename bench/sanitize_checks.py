"""Small launches of every example kernel (ragged lengths, tiles that end
mid-page, empty sequences) for compute-sanitizer memcheck and racecheck."""

import math
import os

from common import ROOT, make_paged_kv
import torch

import quire
import quire_decode

EX = os.path.join(ROOT, "examples")
gen = torch.Generator(device="cuda").manual_seed(5)
n = 3001
x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
o = torch.empty_like(x)
quire.compile(os.path.join(EX, "vector_add.mlir"))[((n + 1023) // 1024,)](x, y, o, n)
a = torch.randn(37, 1000, device="cuda")
quire.compile(os.path.join(EX, "softmax.mlir"))[(37,)](a, torch.empty_like(a), 1000, 1000)
A = torch.randn(100, 50, device="cuda").half()
B = torch.randn(50, 72, device="cuda").half()
C = torch.empty(100, 72, device="cuda").half()
quire.compile(os.path.join(EX, "matmul.mlir"))[(2, 2)](A, B, C, 100, 72, 50, 50, 72, 72)
lens = [0, 1, 17, 300, 65, 129]
kc, vc, bt = make_paged_kv(6, 2, 128, 16, lens, torch.half, gen)
q = torch.randn(6, 8, 128, device="cuda").half()
sl = torch.tensor(lens, dtype=torch.int32, device="cuda")
pd = quire.compile(os.path.join(EX, "paged_decode_attention.mlir"))
pd[(6, 2)](torch.empty_like(q), q, kc, vc, bt, sl, 1 / math.sqrt(128), 8, bt.shape[1],
           kc.stride(0), kc.stride(1), kc.stride(2))
quire_decode.paged_decode(q, kc, vc, bt, sl, 1 / math.sqrt(128), max(lens), num_splits=3)
# The op (cp.async staging, 1-warp split kernel): split-KV, one split, and a
# padded head dim / odd group / small pages in bf16.
for ns in (3, 1):
    quire.ops.paged_decode_attention(q, kc, vc, bt, sl, num_splits=ns)
    # the row form too (the op picks the transposed one for this group)
    quire.ops._paged_decode(q, kc, vc, bt, sl, None, None, None, ns, transposed=False)
kc2, vc2, bt2 = make_paged_kv(4, 2, 80, 8, [0, 1, 41, 200], torch.bfloat16, gen)
q2 = torch.randn(4, 6, 80, device="cuda").bfloat16()
quire.ops.paged_decode_attention(q2, kc2, vc2, bt2, torch.tensor([0, 1, 41, 200], dtype=torch.int32, device="cuda"))
# Tensor-core kernels: the matmul at its benchmark tile shape (ragged M) and
# the paged prefill (ragged contexts and chunks, tiles crossing pages).
from matmul_kernel import matmul_mlir
import paged_prefill as pf
A = torch.randn(200, 96, device="cuda").half()
B = torch.randn(96, 160, device="cuda").half()
C = torch.empty(200, 160, device="cuda").half()
quire.compile(matmul_mlir(128, 128, 32, aligned=True))[(2, 2)](A, B, C, 200, 160, 96, 96, 160, 160)
inp = pf.make_inputs([0, 40, 300], [70, 3, 200], 16, gen, 8, 2)
for cfg in [(None, None, None, True)] + pf.CONFIGS:
    for separate in (True, False):
        pf.run_quire(inp, 1 / math.sqrt(128), torch.empty_like(inp["q"]), cfg, separate)
torch.cuda.synchronize()
print("sanitize_checks: all launches done")
