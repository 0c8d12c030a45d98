"""Ready-made attention kernels with framework-facing signatures.

    out = quire.ops.unified_attention(q, k_cache, v_cache, out, cu_seqlens_q,
                                      max_seqlen_q, seq_lens, max_seqlen_k,
                                      scale, True, (-1, -1), block_table,
                                      0.0, None, None, None)
    out = quire.ops.paged_decode_attention(query, key_cache, value_cache,
                                           block_table, seq_lens)
    out = quire.ops.paged_prefill_attention(query, key_cache, value_cache,
                                            block_table, query_start_loc,
                                            seq_lens)

The kernels are @quire.jit functions with constexpr flags
(decode_kernels.py: split-KV decode and its combine; prefill_kernel.py:
query-tiled prefill); configs.py holds the tile configurations and the
choices made from shapes, validation.py and features.py the argument
checks, launch.py the specialization and launch path, and decode.py,
prefill.py and unified.py the host wrappers.

CUDA tensors (torch, or anything with `__cuda_array_interface__`) run on the
GPU; numpy arrays run the same kernels in the reference interpreter, which
is how the ops are tested without a GPU. Every argument is validated before
anything is compiled or launched; a shape the GPU backend cannot handle yet
raises NotImplementedError with the reason rather than running a wrong
kernel.

What is validated where: on the host (numpy, the interpreter) the ops read
the lengths and start locations and reject any the block table cannot hold;
on the GPU they check shapes, dtypes, strides and devices only, because
reading a device tensor's values would synchronize the device on every call.
There the block table and lengths are trusted as vLLM trusts them, unless
the op is called with `checked=True`: its kernels are then compiled in
checked mode (quire.compile(..., checked=True)) with the cache's block count
as every paged load's `num_blocks`, so a block-table entry outside the cache
is reported and never read through (the launch traps).

`import quire.ops.torch_ops` (needs torch) registers the ops as torch
custom operators, torch.ops.quire.*, for torch.compile and CUDA graphs
(torch_ops.py).
"""

from .configs import (MAX_SPLITS, decode_config, decode_transposed,
                      num_splits_for, prefill_config, unified_plan)
from .decode import _paged_decode, paged_decode_attention, paged_decode_source
from .prefill import (_paged_prefill, paged_prefill_attention,
                      paged_prefill_source)
from .plan import Plan
from .unified import plan_attention, unified_attention
from .validation import ArgumentError, ArgumentTypeError

__all__ = ["ArgumentError", "ArgumentTypeError", "paged_decode_attention", "paged_decode_source", "decode_config",
           "decode_transposed", "num_splits_for", "MAX_SPLITS",
           "paged_prefill_attention", "paged_prefill_source", "prefill_config",
           "unified_attention", "unified_plan", "plan_attention", "Plan"]
