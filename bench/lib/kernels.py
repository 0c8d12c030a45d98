"""Quire kernels built for the benchmarks: the f16 matmul of
examples/matmul.mlir with the tile shape as parameters, kernels compiled
with quirec flags the Python binding does not expose (pass options, for
ablations), and a launcher for the op's split-KV decode kernels compiled
that way."""

import json
import math
import os
import subprocess
import tempfile

from quire import Kernel

from lib.env import ROOT


def quirec():
    """$QUIRE_QUIREC, else build/bin/quirec; exits saying so when missing."""
    path = os.environ.get("QUIRE_QUIREC", os.path.join(ROOT, "build", "bin", "quirec"))
    if not os.access(path, os.X_OK):
        raise SystemExit(f"quirec not found at {path}: build it (ninja -C build "
                         "quirec) or set QUIRE_QUIREC (tools/scripts/device-unpack.sh "
                         "does)")
    return path


def compile_with(src, kernel, flags, num_warps, sm=90):
    """Kernel `kernel` of MLIR text `src`, compiled by quirec with `flags`
    (e.g. ["--paged-prefetch=false"]). Returns (quire.Kernel, PTX)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.mlir")
        with open(path, "w") as f:
            f.write(src)
        meta = os.path.join(tmp, "meta.json")
        ptx = subprocess.run([quirec(), path, f"--sm={sm}", f"--num-warps={num_warps}",
                              f"--meta-out={meta}", *flags], check=True,
                             capture_output=True, text=True).stdout
        with open(meta) as f:
            kernels = json.load(f)["kernels"]
    info = [k for k in kernels if k["name"] == kernel][0]
    return Kernel(src, "k.mlir", sm, num_warps, ptx, info), ptx


def decode_split(split_k, combine_k, q, k_cache, v_cache, block_tables, seq_lens,
                 scale, max_len, num_splits, block_n, out):
    """Launches the op's split-KV decode kernels (paged_decode_source(...,
    partials=True)) compiled by the caller: `num_splits` >= 2 programs per
    sequence and KV head, then the combine kernel."""
    import torch
    S, Hq, D = q.shape
    Hkv = k_cache.shape[2]
    tps = max(block_n, math.ceil(math.ceil(max_len / num_splits) / block_n) * block_n)
    dp = max(16, 1 << (D - 1).bit_length())
    part_o = torch.empty(S * Hq * num_splits, dp, device=q.device, dtype=torch.float32)
    part_ml = torch.empty(S * Hq * num_splits, 2, device=q.device, dtype=torch.float32)
    split_k[(S, Hkv, num_splits)](
        part_o, part_ml, q, k_cache, v_cache, block_tables, seq_lens, scale, tps,
        q.stride(0), q.stride(1), block_tables.stride(0),
        *k_cache.stride()[:3], *v_cache.stride()[:3])
    combine_k[(S, Hq, 1)](out, part_o, part_ml, out.stride(0), out.stride(1), num_splits)
    return out


def matmul_mlir(BM=64, BN=64, BK=32, aligned=False, dtype="f16",
                group_m=0):
    """C[M, N] = A[M, K] @ B[K, N] in `dtype` (f16 or bf16) with f32
    accumulation, row-major with leading dimensions lda, ldb, ldc, edges of
    any size masked; launch with grid (ceil(M / BM), ceil(N / BN)).
    `aligned`: N, K and the leading dimensions are multiples of 16 (declared
    with tile.divisibility, as Triton specializes such integers), which lets
    the masked loads and stores use 16-byte vectors. `group_m` > 0: the
    programs walk the output tiles in groups of `group_m` tile rows, column
    by column (Triton's tutorial 03 order, for L2 reuse of the B tiles);
    launch with grid (ceil(M / BM) * ceil(N / BN),)."""
    d = " {tile.divisibility = 16 : i32}" if aligned else ""
    if group_m:
        tiles = f"""
  %pid = tile.program_id x
  %c1 = arith.constant 1 : i32
  %cG = arith.constant {group_m} : i32
  %BMm1 = arith.constant {BM - 1} : i32
  %BNm1 = arith.constant {BN - 1} : i32
  %Mp = arith.addi %M, %BMm1 : i32
  %npm = arith.divsi %Mp, %cBM : i32
  %Np = arith.addi %N, %BNm1 : i32
  %npn = arith.divsi %Np, %cBN : i32
  %ping = arith.muli %cG, %npn : i32
  %gid = arith.divsi %pid, %ping : i32
  %fpm = arith.muli %gid, %cG : i32
  %left = arith.subi %npm, %fpm : i32
  %gsm = arith.minsi %left, %cG : i32
  %inr = arith.remsi %pid, %ping : i32
  %pmo = arith.remsi %inr, %gsm : i32
  %pm = arith.addi %fpm, %pmo : i32
  %pn = arith.divsi %inr, %gsm : i32"""
    else:
        tiles = """
  %pm = tile.program_id x
  %pn = tile.program_id y"""
    return (f"""
func.func @matmul(%a: !tile.ptr<f16> {{tile.divisibility = 16 : i32}},
                  %b: !tile.ptr<f16> {{tile.divisibility = 16 : i32}},
                  %c: !tile.ptr<f16> {{tile.divisibility = 16 : i32}},
                  %M: i32, %N: i32{d}, %K: i32{d},
                  %lda: i32{d}, %ldb: i32{d}, %ldc: i32{d}) attributes {{tile.kernel}} {{
  %c0 = arith.constant 0 : i32
  %cBM = arith.constant {BM} : i32
  %cBN = arith.constant {BN} : i32
  %cBK = arith.constant {BK} : i32{tiles}
  %m0 = arith.muli %pm, %cBM : i32
  %n0 = arith.muli %pn, %cBN : i32
  %rM = tile.range 0, {BM} : tensor<{BM}xi32>
  %rN = tile.range 0, {BN} : tensor<{BN}xi32>
  %rk = tile.range 0, {BK} : tensor<{BK}xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<{BM}xi32>
  %rm = arith.addi %rM, %m0s : tensor<{BM}xi32>
  %n0s = tile.splat %n0 : i32 -> tensor<{BN}xi32>
  %rn = arith.addi %rN, %n0s : tensor<{BN}xi32>
  %Ms = tile.splat %M : i32 -> tensor<{BM}xi32>
  %Ns = tile.splat %N : i32 -> tensor<{BN}xi32>
  %Ks = tile.splat %K : i32 -> tensor<{BK}xi32>
  %mmask = arith.cmpi slt, %rm, %Ms : tensor<{BM}xi32>
  %nmask = arith.cmpi slt, %rn, %Ns : tensor<{BN}xi32>
  %ldas = tile.splat %lda : i32 -> tensor<{BM}xi32>
  %arow = arith.muli %rm, %ldas : tensor<{BM}xi32>
  %arow2 = tile.expand_dims %arow {{axis = 1 : i32}} : tensor<{BM}xi32> -> tensor<{BM}x1xi32>
  %arowb = tile.broadcast %arow2 : tensor<{BM}x1xi32> -> tensor<{BM}x{BK}xi32>
  %mm2 = tile.expand_dims %mmask {{axis = 1 : i32}} : tensor<{BM}xi1> -> tensor<{BM}x1xi1>
  %mmb = tile.broadcast %mm2 : tensor<{BM}x1xi1> -> tensor<{BM}x{BK}xi1>
  %ldbs = tile.splat %ldb : i32 -> tensor<{BK}xi32>
  %bcol2 = tile.expand_dims %rn {{axis = 0 : i32}} : tensor<{BN}xi32> -> tensor<1x{BN}xi32>
  %bcolb = tile.broadcast %bcol2 : tensor<1x{BN}xi32> -> tensor<{BK}x{BN}xi32>
  %nm2 = tile.expand_dims %nmask {{axis = 0 : i32}} : tensor<{BN}xi1> -> tensor<1x{BN}xi1>
  %nmb = tile.broadcast %nm2 : tensor<1x{BN}xi1> -> tensor<{BK}x{BN}xi1>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<{BM}x{BK}x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<{BK}x{BN}x!tile.ptr<f16>>
  %za = arith.constant dense<0.0> : tensor<{BM}x{BK}xf16>
  %zb = arith.constant dense<0.0> : tensor<{BK}x{BN}xf16>
  %acc0 = arith.constant dense<0.0> : tensor<{BM}x{BN}xf32>
  %acc = scf.for %k = %c0 to %K step %cBK iter_args(%acc_i = %acc0) -> (tensor<{BM}x{BN}xf32>) : i32 {{
    %ks = tile.splat %k : i32 -> tensor<{BK}xi32>
    %kk = arith.addi %ks, %rk : tensor<{BK}xi32>
    %kmask = arith.cmpi slt, %kk, %Ks : tensor<{BK}xi32>
    %kc2 = tile.expand_dims %kk {{axis = 0 : i32}} : tensor<{BK}xi32> -> tensor<1x{BK}xi32>
    %kcb = tile.broadcast %kc2 : tensor<1x{BK}xi32> -> tensor<{BM}x{BK}xi32>
    %aoff = arith.addi %arowb, %kcb : tensor<{BM}x{BK}xi32>
    %ap = tile.addptr %as, %aoff : tensor<{BM}x{BK}x!tile.ptr<f16>>, tensor<{BM}x{BK}xi32>
    %kmc2 = tile.expand_dims %kmask {{axis = 0 : i32}} : tensor<{BK}xi1> -> tensor<1x{BK}xi1>
    %kmcb = tile.broadcast %kmc2 : tensor<1x{BK}xi1> -> tensor<{BM}x{BK}xi1>
    %amask = arith.andi %mmb, %kmcb : tensor<{BM}x{BK}xi1>
    %at = tile.load %ap, %amask, %za : tensor<{BM}x{BK}x!tile.ptr<f16>>
    %brow = arith.muli %kk, %ldbs : tensor<{BK}xi32>
    %br2 = tile.expand_dims %brow {{axis = 1 : i32}} : tensor<{BK}xi32> -> tensor<{BK}x1xi32>
    %brb = tile.broadcast %br2 : tensor<{BK}x1xi32> -> tensor<{BK}x{BN}xi32>
    %boff = arith.addi %brb, %bcolb : tensor<{BK}x{BN}xi32>
    %bp = tile.addptr %bs, %boff : tensor<{BK}x{BN}x!tile.ptr<f16>>, tensor<{BK}x{BN}xi32>
    %kmr2 = tile.expand_dims %kmask {{axis = 1 : i32}} : tensor<{BK}xi1> -> tensor<{BK}x1xi1>
    %kmrb = tile.broadcast %kmr2 : tensor<{BK}x1xi1> -> tensor<{BK}x{BN}xi1>
    %bmask = arith.andi %kmrb, %nmb : tensor<{BK}x{BN}xi1>
    %bt = tile.load %bp, %bmask, %zb : tensor<{BK}x{BN}x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<{BM}x{BK}xf16> * tensor<{BK}x{BN}xf16> -> tensor<{BM}x{BN}xf32>
    scf.yield %d : tensor<{BM}x{BN}xf32>
  }}
  %c16 = arith.truncf %acc : tensor<{BM}x{BN}xf32> to tensor<{BM}x{BN}xf16>
  %ldcs = tile.splat %ldc : i32 -> tensor<{BM}xi32>
  %crow = arith.muli %rm, %ldcs : tensor<{BM}xi32>
  %cr2 = tile.expand_dims %crow {{axis = 1 : i32}} : tensor<{BM}xi32> -> tensor<{BM}x1xi32>
  %crb = tile.broadcast %cr2 : tensor<{BM}x1xi32> -> tensor<{BM}x{BN}xi32>
  %cc2 = tile.expand_dims %rn {{axis = 0 : i32}} : tensor<{BN}xi32> -> tensor<1x{BN}xi32>
  %ccb = tile.broadcast %cc2 : tensor<1x{BN}xi32> -> tensor<{BM}x{BN}xi32>
  %coff = arith.addi %crb, %ccb : tensor<{BM}x{BN}xi32>
  %cs = tile.splat %c : !tile.ptr<f16> -> tensor<{BM}x{BN}x!tile.ptr<f16>>
  %cp = tile.addptr %cs, %coff : tensor<{BM}x{BN}x!tile.ptr<f16>>, tensor<{BM}x{BN}xi32>
  %cm1 = tile.expand_dims %mmask {{axis = 1 : i32}} : tensor<{BM}xi1> -> tensor<{BM}x1xi1>
  %cmb1 = tile.broadcast %cm1 : tensor<{BM}x1xi1> -> tensor<{BM}x{BN}xi1>
  %cm2 = tile.expand_dims %nmask {{axis = 0 : i32}} : tensor<{BN}xi1> -> tensor<1x{BN}xi1>
  %cmb2 = tile.broadcast %cm2 : tensor<1x{BN}xi1> -> tensor<{BM}x{BN}xi1>
  %cmask = arith.andi %cmb1, %cmb2 : tensor<{BM}x{BN}xi1>
  tile.store %cp, %c16, %cmask : tensor<{BM}x{BN}x!tile.ptr<f16>>
  return
}}
""").replace("f16", dtype)
