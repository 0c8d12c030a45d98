"""The attention ops as torch custom operators: `import quire.ops.torch_ops`
registers them under torch.ops.quire.*, so torch.compile (fullgraph=True)
sees each call as one opaque node with a known output shape, functionalizes
the write to `out`, and CUDA graphs capture the launches.

    import quire.ops.torch_ops   # noqa: F401  (needs torch)
    torch.ops.quire.unified_attention(q, k, v, out, cu_seqlens_q,
                                      max_seqlen_q, seqused_k, max_seqlen_k,
                                      scale, True, [-1, -1], block_table,
                                      0.0, None, None, None)

  quire::unified_attention      writes `out` (declared mutated), returns
                                nothing: vLLM's unified_attention
  quire::unified_attention_lse  the same, returns the log-sum-exp f32
                                [num_heads, num_tokens]
  quire::paged_decode_attention returns a new output [num_seqs, num_heads,
                                head_dim] (functional)
  quire::paged_prefill_attention
                                returns a new output [num_tokens, num_heads,
                                head_dim] (functional)

The arguments mean what they mean for the quire.ops functions of the same
names (their docstrings), with two differences torch's schemas impose:
window sizes are a list [left, right] (None for no window in the functional
ops), and the functional ops take everything after `seq_lens` by keyword.

Errors follow torch's convention that an op's argument checks raise
RuntimeError: a wrong shape, stride, device or value raises
quire.ops.ArgumentError (a ValueError and a RuntimeError), a wrong dtype
or argument type quire.ops.ArgumentTypeError (a TypeError and a
RuntimeError); NotImplementedError (a shape the kernels cannot handle
yet), quire.CudaError and quire.InterpreterError are RuntimeErrors
already. Called directly, the
quire.ops functions raise the plain ValueError and TypeError subclasses
they always have, so both `except ValueError` and `except RuntimeError`
catch them.

Torch tensors on the CPU run the same kernels in Quire's interpreter (as
numpy arrays do through quire.ops), which is how these registrations are
tested where there is no GPU.
"""

from typing import List, Optional

import torch
from torch import Tensor

from . import decode, prefill, unified
from .validation import ArgumentError, ArgumentTypeError

NAMESPACE = "quire"


def _torch_errors(fn, *args, **kwargs):
    """`fn(*args, **kwargs)` with its ValueError / TypeError argument checks
    raised as the RuntimeError subclasses above (same message, same
    traceback)."""
    try:
        return fn(*args, **kwargs)
    except (RuntimeError, ArgumentError, ArgumentTypeError):
        raise
    except ValueError as e:
        raise ArgumentError(*e.args).with_traceback(e.__traceback__) from None
    except TypeError as e:
        raise ArgumentTypeError(*e.args).with_traceback(e.__traceback__) from None


def _window(window_size):
    if window_size is None:
        return (-1, -1)
    if len(window_size) != 2:
        raise ArgumentError(f"window_size: expected [left, right], got "
                            f"{list(window_size)}")
    return tuple(window_size)


@torch.library.custom_op(f"{NAMESPACE}::unified_attention",
                         mutates_args=("out",))
def unified_attention(q: Tensor, k: Tensor, v: Tensor, out: Tensor,
                      cu_seqlens_q: Tensor, max_seqlen_q: int,
                      seqused_k: Tensor, max_seqlen_k: int,
                      softmax_scale: Optional[float], causal: bool,
                      window_size: List[int], block_table: Tensor,
                      softcap: float, q_descale: Optional[Tensor],
                      k_descale: Optional[Tensor], v_descale: Optional[Tensor],
                      alibi_slopes: Optional[Tensor] = None,
                      sinks: Optional[Tensor] = None,
                      num_splits: Optional[int] = None,
                      checked: bool = False) -> None:
    """quire.ops.unified_attention writing `out`."""
    _torch_errors(unified.unified_attention, q, k, v, out, cu_seqlens_q,
                  max_seqlen_q, seqused_k, max_seqlen_k, softmax_scale,
                  causal, _window(window_size), block_table, softcap,
                  q_descale, k_descale, v_descale, alibi_slopes, sinks,
                  num_splits=num_splits, checked=checked)


@unified_attention.register_fake
def _(q, *_, **__):
    return None


@torch.library.custom_op(f"{NAMESPACE}::unified_attention_lse",
                         mutates_args=("out",))
def unified_attention_lse(q: Tensor, k: Tensor, v: Tensor, out: Tensor,
                          cu_seqlens_q: Tensor, max_seqlen_q: int,
                          seqused_k: Tensor, max_seqlen_k: int,
                          softmax_scale: Optional[float], causal: bool,
                          window_size: List[int], block_table: Tensor,
                          softcap: float, q_descale: Optional[Tensor],
                          k_descale: Optional[Tensor],
                          v_descale: Optional[Tensor],
                          alibi_slopes: Optional[Tensor] = None,
                          sinks: Optional[Tensor] = None,
                          num_splits: Optional[int] = None,
                          checked: bool = False) -> Tensor:
    """quire.ops.unified_attention(..., return_lse=True) writing `out`;
    returns the log-sum-exp f32 [num_heads, num_tokens]."""
    _, lse = _torch_errors(
        unified.unified_attention, q, k, v, out, cu_seqlens_q, max_seqlen_q,
        seqused_k, max_seqlen_k, softmax_scale, causal, _window(window_size),
        block_table, softcap, q_descale, k_descale, v_descale, alibi_slopes,
        sinks, True, num_splits=num_splits, checked=checked)
    return lse


@unified_attention_lse.register_fake
def _(q, *_, **__):
    return q.new_empty((q.shape[1], q.shape[0]), dtype=torch.float32)


@torch.library.custom_op(f"{NAMESPACE}::paged_decode_attention",
                         mutates_args=())
def paged_decode_attention(query: Tensor, key_cache: Tensor,
                           value_cache: Tensor, block_table: Tensor,
                           seq_lens: Tensor, scale: Optional[float] = None,
                           max_seq_len: Optional[int] = None,
                           num_splits: Optional[int] = None,
                           window_size: Optional[List[int]] = None,
                           softcap: float = 0.0,
                           alibi_slopes: Optional[Tensor] = None,
                           sinks: Optional[Tensor] = None,
                           q_descale: Optional[Tensor] = None,
                           k_descale: Optional[Tensor] = None,
                           v_descale: Optional[Tensor] = None,
                           checked: bool = False) -> Tensor:
    """quire.ops.paged_decode_attention into a new output tensor."""
    return _torch_errors(
        decode.paged_decode_attention, query, key_cache, value_cache,
        block_table, seq_lens, scale, None, max_seq_len=max_seq_len,
        num_splits=num_splits, checked=checked,
        window_size=_window(window_size), softcap=softcap,
        alibi_slopes=alibi_slopes, sinks=sinks, q_descale=q_descale,
        k_descale=k_descale, v_descale=v_descale)


@paged_decode_attention.register_fake
def _(query, *_, **__):
    return query.new_empty(query.shape)


@torch.library.custom_op(f"{NAMESPACE}::paged_prefill_attention",
                         mutates_args=())
def paged_prefill_attention(query: Tensor, key_cache: Tensor,
                            value_cache: Tensor, block_table: Tensor,
                            query_start_loc: Tensor, seq_lens: Tensor,
                            scale: Optional[float] = None,
                            key: Optional[Tensor] = None,
                            value: Optional[Tensor] = None,
                            max_query_len: Optional[int] = None,
                            causal: bool = True,
                            window_size: Optional[List[int]] = None,
                            softcap: float = 0.0,
                            alibi_slopes: Optional[Tensor] = None,
                            sinks: Optional[Tensor] = None,
                            q_descale: Optional[Tensor] = None,
                            k_descale: Optional[Tensor] = None,
                            v_descale: Optional[Tensor] = None,
                            checked: bool = False) -> Tensor:
    """quire.ops.paged_prefill_attention into a new output tensor."""
    return _torch_errors(
        prefill.paged_prefill_attention, query, key_cache, value_cache,
        block_table, query_start_loc, seq_lens, scale, None, key=key,
        value=value, max_query_len=max_query_len, checked=checked,
        causal=causal, window_size=_window(window_size), softcap=softcap,
        alibi_slopes=alibi_slopes, sinks=sinks, q_descale=q_descale,
        k_descale=k_descale, v_descale=v_descale)


@paged_prefill_attention.register_fake
def _(query, *_, **__):
    return query.new_empty(query.shape)


OPS = ("unified_attention", "unified_attention_lse",
       "paged_decode_attention", "paged_prefill_attention")
