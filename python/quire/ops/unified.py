"""quire.ops.unified_attention: one call for a batch that mixes decode
tokens and prefill chunks, with vLLM's unified_attention / flash-attn's
varlen paged keywords. The kernels are the decode and prefill ops' own
(decode_kernels.py, prefill_kernel.py); configs.unified_plan picks which
run from the shapes alone."""

from . import configs, features, plan as plans, validation as val
from .decode import device_sm, outputs, run, run_decode
from .prefill import prefill_launch, prefill_views

WHAT = "unified_attention"
# The tensors of a call, in the order plan_attention's run() takes them.
ROLES = ("q", "k", "v", "out", "cu_seqlens_q", "seqused_k", "block_table",
         "q_descale", "k_descale", "v_descale", "alibi_slopes", "sinks")


def unified_attention(q, k, v, out, cu_seqlens_q, max_seqlen_q, seqused_k,
                      max_seqlen_k, softmax_scale, causal, window_size,
                      block_table, softcap, q_descale, k_descale, v_descale,
                      alibi_slopes=None, sinks=None, return_lse=False, *,
                      num_splits=None, checked=False):
    """Paged attention for a batch of sequences, each with a chunk of new
    query tokens (one for a decode step, more for a prefill chunk) whose
    keys and values are already in the cache (vLLM writes the cache
    first):

      q             [num_tokens, num_heads, head_dim] f16 or bf16: the
                    chunks back to back
      k, v          [num_blocks, block_size, num_kv_heads, head_dim], q's
                    dtype, any strides with the last dimension contiguous
                    (kv_cache[0] and kv_cache[1] of vLLM's [2, num_blocks,
                    ...] cache); fp8 caches raise NotImplementedError
      out           [num_tokens, num_heads, head_dim] to write (None: a new
                    tensor)
      cu_seqlens_q  int32 [num_seqs + 1]: sequence s's chunk is tokens
                    cu_seqlens_q[s] .. cu_seqlens_q[s+1]-1, the last entry
                    num_tokens
      max_seqlen_q  the longest chunk (an int): sizes the prefill grid and,
                    with the shapes, picks the kernels
      seqused_k     int32 [num_seqs]: the sequence's tokens in the cache,
                    its chunk included (at most max_blocks * block_size)
      max_seqlen_k  the longest sequence (an int): sizes the split-KV
                    partition (an understated value costs time, not
                    correctness)
      softmax_scale the scale of q . k (None: 1 / sqrt(head_dim))
      causal        chunk token i sees the keys up to its own position
                    (serving's case); False: every key of its sequence
      window_size   (left, right), -1 for no limit: query position p sees
                    keys p - left .. p + right (right is 0 with causal;
                    a right window without causal is not supported)
      block_table   int32 [num_seqs, max_blocks]
      softcap       0 for none, else scores become softcap * tanh(scores /
                    softcap) (Gemma 2)
      q_descale, k_descale, v_descale
                    None, or float32 factors, one element or [num_seqs,
                    num_kv_heads] (flash-attn's shape; strides 0 allowed):
                    the scores are multiplied by q_descale * k_descale and
                    the output by v_descale (for fp16/bf16 caches too)
      alibi_slopes  None or f32 [num_heads]: slope * (key position - query
                    position) is added to head h's scores (after softcap)
      sinks         None or [num_heads] (f32, f16 or bf16): one more logit
                    per head in the softmax denominator, with no value
                    (gpt-oss)
      return_lse    also return the log-sum-exp of each head's scores
                    (natural log, sinks included), f32 [num_heads,
                    num_tokens]: the result is (out, lse)
      num_splits    split-KV programs per decode sequence (default: from
                    the shapes and the SM count, at most MAX_SPLITS)
      checked       compile the kernels in checked mode (as for
                    paged_decode_attention)

    The kernels are picked from the shapes only (configs.unified_plan), so
    a call can be captured in a CUDA graph: max_seqlen_q <= 1 runs the
    split-KV decode kernel (the GQA group packed into one MMA tile,
    exactly paged_decode_attention's kernel when num_tokens == num_seqs);
    a batch whose shapes leave no room for a one-token chunk runs the
    query-tiled prefill kernel (paged_prefill_attention's, chunk read from
    the cache); any other batch runs both, the decode kernel taking the
    one-token chunks and the prefill kernel the rest, on the GPU side by
    side: the prefill kernel on a side stream forked from the caller's
    stream and joined back before the call returns (plan.py). On the GPU the
    lengths, start locations and max_seqlen_q are trusted as vLLM trusts
    them; on the host (numpy arrays, the interpreter) they are checked.
    A repeated call with the same layout runs a cached plan (plan.py).
    """
    return plans.cached(
        WHAT, ROLES, (q, k, v, out, cu_seqlens_q, seqused_k, block_table,
                      q_descale, k_descale, v_descale, alibi_slopes, sinks),
        (max_seqlen_q, max_seqlen_k, softmax_scale, causal, window_size,
         softcap, return_lse, num_splits, checked),
        lambda: _unified(q, k, v, out, cu_seqlens_q, max_seqlen_q, seqused_k,
                         max_seqlen_k, softmax_scale, causal, window_size,
                         block_table, softcap, q_descale, k_descale,
                         v_descale, alibi_slopes, sinks, return_lse,
                         num_splits, checked))


def plan_attention(q, k, v, out, cu_seqlens_q, max_seqlen_q, seqused_k,
                   max_seqlen_k, softmax_scale, causal, window_size,
                   block_table, softcap, q_descale, k_descale, v_descale,
                   alibi_slopes=None, sinks=None, return_lse=False, *,
                   num_splits=None, checked=False, concurrent=True,
                   fused_combine=None):
    """A Plan of unified_attention with these arguments (plan.py): the
    validation, kernel choice, specialization and compilation done now,
    nothing launched. Its `run(q, k, v, out, cu_seqlens_q, seqused_k,
    block_table, q_descale=None, k_descale=None, v_descale=None,
    alibi_slopes=None, sinks=None)` launches the planned kernels over
    tensors laid out as these were (dtype, shape, strides, device, 16-byte
    alignment; ValueError naming the tensor otherwise) and returns out, or
    (out, lse) with return_lse. `out` None at planning time lets run()
    allocate one per call (out=None). The tensors' values are not read:
    the maxima, scale and flags are the plan's, and the lengths and start
    locations of each run are trusted as the GPU path trusts them. A plan
    owns its split-KV workspace: order its runs on one stream. With
    `concurrent` (the default) a mixed batch's prefill kernel runs on a
    side stream beside its decode kernels, forked from the caller's stream
    and joined back before run() returns (plan.concurrent says whether the
    plan has two such parts). With `fused_combine`, split-KV decode merges
    its splits in the split kernel (the last split of each sequence and KV
    head, counted with an atomic) instead of a second kernel: one launch
    fewer per run; the plan keeps the zeroed counters that takes, which the
    kernel sets back to zero. None (the default) fuses where the split
    count is at most configs.FUSED_MAX_SPLITS (8), False never, True
    always."""
    result, rec = plans.record(lambda: _unified(
        q, k, v, out, cu_seqlens_q, max_seqlen_q, seqused_k, max_seqlen_k,
        softmax_scale, causal, window_size, block_table, softcap, q_descale,
        k_descale, v_descale, alibi_slopes, sinks, return_lse, num_splits,
        checked), fused_combine=None if fused_combine is None
        else bool(fused_combine))
    given = dict(zip(ROLES, (q, k, v, out, cu_seqlens_q, seqused_k,
                             block_table, q_descale, k_descale, v_descale,
                             alibi_slopes, sinks)))
    return plans.Plan(WHAT, ROLES, given, result, rec, concurrent)


def _unified(q, k, v, out, cu_seqlens_q, max_seqlen_q, seqused_k,
             max_seqlen_k, softmax_scale, causal, window_size, block_table,
             softcap, q_descale, k_descale, v_descale, alibi_slopes, sinks,
             return_lse, num_splits, checked):
    extra, optional = features.optional_items(alibi_slopes, sinks, q_descale,
                                              k_descale, v_descale)
    names = ("q", "k", "v", "block_table", "cu_seqlens_q", "seqused_k",
             "out")
    vw = prefill_views(q, k, v, block_table, cu_seqlens_q, seqused_k, out,
                       extra, names)
    host, dtype = val.check_attention(
        vw, "q", "k", "v", ("out",),
        ("block_table", "cu_seqlens_q", "seqused_k"))
    qv, kc, bt = vw["q"], vw["k"], vw["block_table"]
    num_tokens, num_heads, head_dim = qv.shape
    num_blocks, page_size, num_kv_heads, _ = kc.shape
    num_seqs = bt.shape[0]
    val.check_batch(vw, num_seqs, "seqused_k", "cu_seqlens_q", "q",
                    " (block_table rows)")
    max_q = min(val.to_int(max_seqlen_q, "max_seqlen_q"), num_tokens)
    max_k = val.to_int(max_seqlen_k, "max_seqlen_k")
    scale = val.check_scale(softmax_scale, head_dim, "softmax_scale")
    val.check_bool(causal, "causal")
    checked = val.check_checked(checked, num_blocks, WHAT)
    feats = features.parse(vw, optional, num_heads, num_seqs, num_kv_heads,
                           causal, window_size, softcap, return_lse)
    num_splits = val.check_num_splits(num_splits, configs.MAX_SPLITS)
    capacity = bt.shape[1] * page_size
    if host:
        val.check_chunks(vw["cu_seqlens_q"], vw["seqused_k"], num_tokens,
                         max_q, capacity, False, "cu_seqlens_q", "seqused_k",
                         "max_seqlen_q")
    out, o, lse = outputs(q, qv.shape, out, vw, return_lse)

    plan = configs.unified_plan(num_tokens, num_seqs, max_q)
    # The ops' own names for the views.
    common = {n: x for n, x in vw.items() if n not in names}
    dec = dict(common, query=qv, key_cache=kc, value_cache=vw["v"],
               block_table=bt, seq_lens=vw["seqused_k"])
    if plan != "prefill":
        # One query row per sequence in order (every chunk one token) is
        # exactly paged_decode_attention's layout.
        cu = None if plan == "decode" and num_tokens == num_seqs else \
            vw["cu_seqlens_q"]
        decodes = configs.possible_decodes(num_tokens, num_seqs, max_q)
        run_decode(WHAT, dec, o, dtype, host, scale, feats, checked,
                   min(capacity, max_k), num_splits, decodes, lse, cu)
    if plan != "decode":
        pre = dict(common, query=qv, key_cache=kc, value_cache=vw["v"],
                   block_table=bt, query_start_loc=vw["cu_seqlens_q"],
                   seq_lens=vw["seqused_k"])
        # (Pages through cp.async, the form test_unified checks on the
        # GPU; the prefill op passes 128-token pages through TMA.)
        launches, tensors = prefill_launch(
            WHAT, pre, o, dtype, scale, feats, checked, max_q, lse, causal,
            plan == "mixed", (None, None, None, None), "query_start_loc",
            "seq_lens", 90 if host else device_sm(qv.device),
            tma_pages=False)
        run(WHAT, launches, tensors, host, qv.device, checked)
    return (out, lse) if return_lse else out
