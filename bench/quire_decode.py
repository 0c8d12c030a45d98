"""Quire's split-KV paged decode attention for the benchmarks and ablations:
the kernels of quire.ops.paged_decode_attention (python/quire/kernels/
paged_decode_split.mlir.in), launched by hand so that an ablation can put
its own compilation in `_cache[(group, page, num_warps)]`."""

import math

import torch

import quire
from quire import ops

_cache = {}


def source(group, page, block_n=64, head_dim=128, dtype="f16"):
    """The split-KV kernels (with partials) of one specialization."""
    return ops.paged_decode_source(dtype, group, head_dim, page, block_n,
                                   True, True, True)


def kernels(group, page, num_warps, block_n=64, num_stages=2):
    key = (group, page, num_warps)
    if key not in _cache:
        src = source(group, page, block_n)
        _cache[key] = (quire.compile(src, num_warps=num_warps, kernel="paged_decode_split",
                                     num_stages=num_stages),
                       quire.compile(src, num_warps=4, kernel="paged_decode_combine"))
    return _cache[key]


def paged_decode(q, k_cache, v_cache, block_tables, seq_lens, scale, max_len,
                 num_warps=2, num_splits=None, out=None, block_n=64):
    """Split + combine with the given split kernel configuration (at least
    2 splits: the one-split variant is ops' business)."""
    S, Hq, D = q.shape
    page, Hkv = k_cache.shape[1], k_cache.shape[2]
    split_k, combine_k = kernels(Hq // Hkv, page, num_warps, block_n)
    if num_splits is None:
        num_splits = ops.num_splits_for(S, Hkv, max_len, block_n)
    num_splits = max(2, num_splits)
    tps = max(block_n, math.ceil(math.ceil(max_len / num_splits) / block_n) * block_n)
    part_o = torch.empty(S * Hq * num_splits, D, device=q.device, dtype=torch.float32)
    part_ml = torch.empty(S * Hq * num_splits, 2, device=q.device, dtype=torch.float32)
    if out is None:
        out = torch.empty_like(q)
    split_k[(S, Hkv, num_splits)](
        part_o, part_ml, q, k_cache, v_cache, block_tables, seq_lens, scale, tps,
        q.stride(0), q.stride(1), block_tables.stride(0),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2))
    combine_k[(S, Hq, 1)](out, part_o, part_ml, out.stride(0), out.stride(1), num_splits)
    return out
