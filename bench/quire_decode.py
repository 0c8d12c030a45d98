"""Quire's split-KV paged decode attention for the benchmark: kernels
specialized from examples/paged_decode_attention_split.mlir (GQA group and
page size substituted), compiled once per specialization."""

import math
import os
import re

from common import ROOT
import torch

import quire

_SRC = open(os.path.join(ROOT, "examples", "paged_decode_attention_split.mlir")).read()
_cache = {}


def source(group, page):
    s = _SRC.replace("tensor<4x", f"tensor<{group}x")
    s = s.replace("tile.range 0, 4 :", f"tile.range 0, {group} :")
    s = s.replace("%c4 = arith.constant 4 : i32", f"%c4 = arith.constant {group} : i32")
    s = s.replace("{page_size = 16 : i32}", f"{{page_size = {page} : i32}}")
    return s


def kernels(group, page, num_warps):
    key = (group, page, num_warps)
    if key not in _cache:
        src = source(group, page)
        _cache[key] = (quire.compile(src, num_warps=num_warps, kernel="paged_decode_split"),
                       quire.compile(src, num_warps=4, kernel="paged_decode_combine"))
    return _cache[key]


def num_splits_for(num_seqs, num_kv_heads, max_len, sms=132):
    want = max(1, math.ceil(4 * sms / (num_seqs * num_kv_heads)))
    return max(1, min(16, want, math.ceil(max_len / 256)))


def paged_decode(q, k_cache, v_cache, block_tables, seq_lens, scale, max_len,
                 num_warps=2, num_splits=None, out=None, buffers=None):
    S, Hq, D = q.shape
    page, Hkv = k_cache.shape[1], k_cache.shape[2]
    group = Hq // Hkv
    split_k, combine_k = kernels(group, page, num_warps)
    if num_splits is None:
        num_splits = num_splits_for(S, Hkv, max_len)
    tps = max(64, math.ceil(math.ceil(max_len / num_splits) / 64) * 64)
    if buffers is None:
        buffers = (torch.empty(S * Hq * num_splits, D, device=q.device, dtype=torch.float32),
                   torch.empty(S * Hq * num_splits, 2, device=q.device, dtype=torch.float32))
    part_o, part_ml = buffers
    if out is None:
        out = torch.empty_like(q)
    split_k[(S, Hkv, num_splits)](part_o, part_ml, q, k_cache, v_cache, block_tables,
                                  seq_lens, scale, Hq, block_tables.shape[1],
                                  k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
                                  tps, num_splits)
    combine_k[(S * Hq,)](out, part_o, part_ml, num_splits)
    return out
