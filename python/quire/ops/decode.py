"""quire.ops.paged_decode_attention, and the split-KV decode launches that
unified_attention shares: validation, the plan (splits, kernel form,
specializations), scratch, and the launches of decode_kernels.py."""

import threading

from .. import _args
from . import configs, features, launch, plan as plans, validation as val
from .decode_kernels import paged_decode, paged_decode_combine

WHAT = "paged_decode_attention"
ROLES = ("query", "key_cache", "value_cache", "block_table", "seq_lens",
         "out", "alibi_slopes", "sinks", "q_descale", "k_descale",
         "v_descale")
_plans = {}
# A thread's plan recorder (plan.record): run() hands it the launches and
# the allocations register what they made.
_local = threading.local()


def _split_spec(dtype, group, head_dim, page_size, block_n, aligned_pointers,
                aligned_strides, partials, transposed, checked, varlen,
                feats, kv_dtype=None, fused=False, num_stages=None,
                heads_first=False, seqs_pad=None, gathered_rows=False,
                token_strides=()):
    """The Specialization of the split (PARTIALS) or one-split kernel;
    `kv_dtype` is the caches' element type when it is not `dtype` (fp8);
    `fused`: the splits merge themselves (FUSED, no combine kernel);
    `num_stages`: the cp.async staging depth (configs.decode_stages when
    None); `heads_first`: the grid's x is the KV heads (HEADS_FIRST);
    `seqs_pad`: the programs take the sequences longest first, among the
    grid's padded to this power of two (SEQS_PAD; None: in order);
    `gathered_rows`: quire.compile's option; `token_strides`: (name, value)
    pairs of the caches' token strides compiled as constants."""
    P = launch.core.pointer_type(launch.DTYPES[dtype])
    KP = launch.core.pointer_type(launch.DTYPES[kv_dtype or dtype])
    F32P = launch.core.pointer_type(launch.F32)
    I32P = launch.core.pointer_type(launch.I32)
    I32, I64 = launch.I32, launch.I64
    pd = 16 if aligned_pointers else 1
    sd = 16 if aligned_strides else 1
    consts = dict(
        GROUP=group, D=head_dim, DP=configs.tile_width(head_dim),
        HEADS=configs.tile_cols(group) if transposed else
        configs.tile_rows(group), PAGE_SIZE=page_size, BLOCK_N=block_n,
        PARTIALS=partials, FUSED=fused, TRANSPOSED=transposed,
        HEADS_FIRST=heads_first, SEQS_PAD=seqs_pad, VARLEN=varlen)
    args = dict(
        q=(P, pd), k_cache=(KP, pd), v_cache=(KP, pd),
        block_tables=(I32P, pd),
        seq_lens=(I32P, 1), scale=(launch.F32, 1),
        tokens_per_split=(I32, block_n), q_seq_stride=(I64, sd),
        q_head_stride=(I32, sd), bt_stride=(I64, 1),
        k_page_stride=(I64, sd), k_token_stride=(I64, sd),
        k_head_stride=(I64, sd), v_page_stride=(I64, sd),
        v_token_stride=(I64, sd), v_head_stride=(I64, sd))
    if partials:
        args.update(part_o=(F32P, 16), part_ml=(F32P, 16))
    else:
        consts.update(part_o=None, part_ml=None)
    if partials and not fused:
        consts.update(out=None, out_seq_stride=None, out_head_stride=None)
    else:
        args.update(out=(P, pd), out_seq_stride=(I64, sd),
                    out_head_stride=(I64, sd))
    if fused:
        args["counters"] = (I32P, 16)
    else:
        consts["counters"] = None
    if checked:
        args["num_blocks"] = (I32, 1)
    else:
        consts["num_blocks"] = None
    if varlen:
        args["cu_seqlens_q"] = (I32P, 1)
    else:
        consts["cu_seqlens_q"] = None
    feats.spec(consts, args)
    if partials and not fused:
        # The combine kernel writes the log-sum-exp.
        consts["LSE"] = False
        consts["lse"] = consts["lse_head_stride"] = None
        args.pop("lse", None)
        args.pop("lse_head_stride", None)
    name = "paged_decode_split_fused" if fused else "paged_decode_split" \
        if partials else "paged_decode_attention"
    launch.as_constants(consts, args, token_strides)
    if num_stages is None:
        num_stages = configs.decode_stages(kv_dtype in val.FP8)
    return launch.specialize(paged_decode, name, consts, args, num_stages,
                             (("gathered_rows", True),) if gathered_rows
                             else ())


def _combine_spec(dtype, head_dim, aligned_pointers, aligned_strides, varlen,
                  lse):
    P = launch.core.pointer_type(launch.DTYPES[dtype])
    F32P = launch.core.pointer_type(launch.F32)
    pd = 16 if aligned_pointers else 1
    sd = 16 if aligned_strides else 1
    consts = dict(D=head_dim, DP=configs.tile_width(head_dim),
                  SPLITS_PAD=configs.MAX_SPLITS, VARLEN=varlen, LSE=lse)
    args = dict(out=(P, pd), part_o=(F32P, 16), part_ml=(F32P, 16),
                out_seq_stride=(launch.I64, sd),
                out_head_stride=(launch.I64, sd),
                num_splits=(launch.I32, 1))
    if varlen:
        args["cu_seqlens_q"] = (launch.core.pointer_type(launch.I32), 1)
    else:
        consts["cu_seqlens_q"] = None
    if lse:
        args.update(lse=(F32P, 1), lse_head_stride=(launch.I64, 1))
    else:
        consts.update(lse=None, lse_head_stride=None)
    return launch.specialize(paged_decode_combine, "paged_decode_combine",
                             consts, args)


def paged_decode_source(dtype="f16", group=4, head_dim=128, page_size=16,
                        block_n=64, aligned_pointers=True,
                        aligned_strides=True, partials=True, transposed=False,
                        checked=False):
    """The MLIR of one specialization of the decode kernels, as the
    frontend generates it from decode_kernels.py (without the optional
    features): with `partials`, split-KV (@paged_decode_split writing
    partials, then @paged_decode_combine merging them, in one module);
    without, one split (@paged_decode_attention writes `out`). With
    `transposed`, the dots run transposed (the GQA group is their N). With
    `checked`, the kernels take `num_blocks` after `scale` and bound every
    paged load by it (for quire.compile(..., checked=True))."""
    feats = features.Features(-1, 0.0, None, None, False, {})
    text = _split_spec(dtype, group, head_dim, page_size, block_n,
                       aligned_pointers, aligned_strides, partials,
                       transposed, checked, False, feats).source
    if partials:
        text += _combine_spec(dtype, head_dim, aligned_pointers,
                              aligned_strides, False, False).source
    return text


def decode_views(query, key_cache, value_cache, block_table, seq_lens, out,
                 extra=()):
    items = [("query", query, ("num_seqs", "num_heads", "head_dim")),
             ("key_cache", key_cache, val.KV_DIMS),
             ("value_cache", value_cache, val.KV_DIMS),
             ("block_table", block_table, ("num_seqs", "max_blocks")),
             ("seq_lens", seq_lens, ("num_seqs",))]
    if out is not None:
        items.append(("out", out, ("num_seqs", "num_heads", "head_dim")))
    return val.views(items + list(extra))


def paged_decode_attention(query, key_cache, value_cache, block_table,
                           seq_lens, scale=None, out=None, *,
                           max_seq_len=None, num_splits=None, checked=False,
                           window_size=(-1, -1), softcap=0.0,
                           alibi_slopes=None, sinks=None, return_lse=False,
                           q_descale=None, k_descale=None, v_descale=None):
    """Decode attention (one query token per sequence) over a paged KV cache,
    with vLLM's layout:

      query        [num_seqs, num_heads, head_dim]            f16 or bf16
      key_cache,   [num_blocks, block_size, num_kv_heads, head_dim], the
      value_cache  query's dtype; any strides, last dimension contiguous
      block_table  int32 [num_seqs, max_blocks]: the cache blocks of each
                   sequence, in order
      seq_lens     int32 [num_seqs]: tokens per sequence, at most
                   max_blocks * block_size (0 gives zeros)
      scale        softmax scale (default 1 / sqrt(head_dim))
      out          [num_seqs, num_heads, head_dim] to write, last dimension
                   contiguous (default: a new tensor)
      max_seq_len  the longest sequence, if known (vLLM passes it): sizes
                   the split-KV partition; default max_blocks * block_size.
                   An understated value costs time, not correctness.
      num_splits   how many programs share each sequence (split-KV, merged
                   by a log-sum-exp combine kernel); default from the shapes
                   and the SM count, at most MAX_SPLITS
      checked      compile the kernels in checked mode with the cache's
                   num_blocks: a block-table entry outside [0, num_blocks)
                   that a sequence reaches is never read through; on the GPU
                   the kernel prints it and traps (the launch fails and the
                   CUDA context with it), in the interpreter it raises
                   InterpreterError
      window_size, softcap, alibi_slopes, sinks, return_lse, q_descale,
      k_descale, v_descale
                   as for unified_attention (the query is each sequence's
                   last token); with return_lse the result is (out, lse),
                   lse f32 [num_heads, num_seqs]

    num_heads must be a multiple of num_kv_heads (grouped-query attention:
    query head h reads KV head h // (num_heads // num_kv_heads)); the group
    may be 1..64 and head_dim 1..256 (padded to a power of two inside the
    kernel; the padding is never read). Returns `out`. Launches two kernels
    on the current stream (one with a single split); nothing synchronizes
    and the grids depend on shapes only, so the call can be captured in a
    CUDA graph. On the host (numpy) seq_lens is checked against the block
    table (ValueError naming the sequence) and the interpreter checks every
    access; on the GPU the block table and lengths are not read by the host
    and are trusted as vLLM trusts them (a seq_len beyond its row reads the
    next row's entries), except that checked=True catches entries outside
    the cache.
    """
    return plans.cached(
        WHAT, ROLES, (query, key_cache, value_cache, block_table, seq_lens,
                      out, alibi_slopes, sinks, q_descale, k_descale,
                      v_descale),
        (scale, max_seq_len, num_splits, checked, window_size, softcap,
         return_lse),
        lambda: _paged_decode(query, key_cache, value_cache, block_table,
                              seq_lens, scale, out, max_seq_len, num_splits,
                              checked=checked, window_size=window_size,
                              softcap=softcap, alibi_slopes=alibi_slopes,
                              sinks=sinks, return_lse=return_lse,
                              q_descale=q_descale, k_descale=k_descale,
                              v_descale=v_descale))


def _paged_decode(query, key_cache, value_cache, block_table, seq_lens,
                  scale, out, max_seq_len, num_splits, block_n=None,
                  num_warps=None, transposed=None, checked=False,
                  window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                  sinks=None, return_lse=False, q_descale=None,
                  k_descale=None, v_descale=None, wide_fp8_operands=True,
                  num_stages=None, heads_first=None, longest_first=None,
                  gathered_rows=False):
    """paged_decode_attention, with the tile height, warps, form and
    staging depth of the split kernel and its grid order (`heads_first`,
    `longest_first`) open for benchmarks and tests (and
    `wide_fp8_operands` and `gathered_rows`, compile options, for their
    ablation; with gathered rows the caches' token strides compile as
    constants, as in the prefill op)."""
    extra, optional = features.optional_items(alibi_slopes, sinks, q_descale,
                                              k_descale, v_descale)
    v = decode_views(query, key_cache, value_cache, block_table, seq_lens,
                     out, extra)
    q, kc, bt, lens = (v["query"], v["key_cache"], v["block_table"],
                       v["seq_lens"])
    host, dtype = val.check_attention(
        v, "query", "key_cache", "value_cache", ("out",),
        ("block_table", "seq_lens"))
    num_seqs, num_heads, head_dim = q.shape
    num_blocks, page_size, num_kv_heads, _ = kc.shape
    if bt.shape[0] != num_seqs:
        raise ValueError(f"block_table: {bt.shape[0]} rows for {num_seqs} "
                         "sequences")
    val.check_batch(v, num_seqs, "seq_lens")
    scale = val.check_scale(scale, head_dim)
    checked = val.check_checked(checked, num_blocks, WHAT)
    feats = features.parse(v, optional, num_heads, num_seqs, num_kv_heads,
                           True, window_size, softcap, return_lse)
    if host:
        val.check_lengths(lens, bt.shape[1], page_size)
    max_tokens = bt.shape[1] * page_size
    if max_seq_len is not None:
        max_tokens = min(max_tokens, val.to_int(max_seq_len, "max_seq_len"))
    num_splits = val.check_num_splits(num_splits, configs.MAX_SPLITS)
    out, o, lse = outputs(query, q.shape, out, v, return_lse)
    val.check_bool(wide_fp8_operands, "wide_fp8_operands")
    val.check_bool(gathered_rows, "gathered_rows")
    val.check_num_stages(num_stages)
    run_decode(WHAT, v, o, dtype, host, scale, feats, checked, max_tokens,
               num_splits, num_seqs, lse, block_n=block_n,
               num_warps=num_warps, transposed=transposed,
               wide_fp8_operands=wide_fp8_operands, num_stages=num_stages,
               heads_first=heads_first, longest_first=longest_first,
               gathered_rows=gathered_rows)
    return (out, lse) if return_lse else out


def run_decode(what, v, o, dtype, host, scale, feats, checked, max_tokens,
               num_splits, split_seqs, lse, cu=None, block_n=None,
               num_warps=None, transposed=None, wide_fp8_operands=True,
               num_stages=None, heads_first=None, longest_first=None,
               gathered_rows=False):
    """Launches the decode kernels over every sequence of the validated
    views `v` (query rows by sequence, or by cu_seqlens_q with `cu`),
    writing `o` (and `lse`). `split_seqs` is how many sequences the split
    count is sized for."""
    q, kc, vc, bt, lens = (v["query"], v["key_cache"], v["value_cache"],
                           v["block_table"], v["seq_lens"])
    num_seqs = bt.shape[0]
    num_tokens, num_heads, head_dim = q.shape
    num_blocks, page_size, num_kv_heads, _ = kc.shape
    group = num_heads // num_kv_heads if num_heads else 1
    # What the generated kernels can do (decode_kernels.py's contract).
    if not 1 <= head_dim <= 256:
        val.unsupported(what, f"head_dim {head_dim} (needs 1..256)")
    if group > 64:
        val.unsupported(what, f"num_heads / num_kv_heads = {group} (the GQA "
                        "group must be at most 64)")
    if page_size > 4096:
        val.unsupported(what, f"block_size {page_size} (at most 4096)")
    if num_seqs > val.I32_MAX:
        val.unsupported(what, f"num_seqs {num_seqs} (grid x is below 2^31)")
    for name, n in (("num_kv_heads", num_kv_heads),
                    ("num_heads", num_heads)):
        if n > 65535:
            val.unsupported(what, f"{name} {n} (grid y is at most 65535)")
    if max_tokens > val.I32_MAX // 2 or num_tokens > val.I32_MAX // 2:
        val.unsupported(what, f"{max_tokens} tokens per sequence (token "
                        "indices are 32-bit)")
    if num_seqs == 0 or num_heads == 0 or num_tokens == 0:
        return
    # Split-KV needs scratch for the partials, allocated through torch (or
    # numpy in the interpreter); other CUDA arrays run one split.
    scratch = _framework(q.obj) in ("torch", "numpy")
    fp8 = kc.dtype in val.FP8
    chosen = block_n is None and num_warps is None and longest_first is None
    cfg_n, cfg_w = configs.decode_config(head_dim, group, fp8)
    block_n = block_n or cfg_n
    num_warps = num_warps or cfg_w
    if transposed is None:
        transposed = configs.decode_transposed(head_dim, group, fp8)
    tokens = configs.window_tokens(max_tokens, feats.window_left, block_n)
    if num_splits is None:
        if scratch:
            sms, shared = (132, configs.SHARED_PER_SM) if host else \
                device_resources(q.device)
            num_splits, longest_first = configs.decode_splits(
                num_seqs, split_seqs, num_kv_heads, tokens, head_dim, group,
                block_n, num_warps, fp8, transposed, num_stages, sms, shared,
                longest_first)
            wide = configs.decode_one_split_tile(
                split_seqs, num_kv_heads, num_splits, block_n, num_warps,
                head_dim, fp8, sms) if chosen else None
            if wide:
                # One split on wider tiles, the sequences longest first
                # where the kernel ranks them.
                block_n, num_splits = wide, 1
                longest_first = configs.decode_seqs_pad(num_seqs,
                                                        True) is not None
                tokens = configs.window_tokens(max_tokens,
                                               feats.window_left, block_n)
        else:
            num_splits = 1
    elif num_splits > 1 and not scratch:
        raise TypeError("num_splits > 1 allocates the split partials with "
                        "torch: pass torch tensors, or num_splits=1 for "
                        f"{type(q.obj).__name__} inputs")
    tps, num_splits = configs.tokens_per_split(tokens, num_splits, block_n)
    if heads_first is None:
        heads_first = configs.DECODE_HEADS_FIRST
    # Grid y is at most 65535.
    heads_first = bool(heads_first) and num_seqs <= 65535
    seqs_pad = configs.decode_seqs_pad(num_seqs, longest_first)

    q_hs, o_hs = val.stride(q, 1), val.stride(o, 1)
    for name, hs in (("query", q_hs), ("out", o_hs)):
        if hs * (group - 1) + head_dim > val.I32_MAX:
            val.unsupported(what, f"{name} head stride {hs} (in-tile offsets "
                            "are 32-bit)")
    strides = dict(
        q_seq_stride=val.stride(q, 0), q_head_stride=q_hs,
        bt_stride=val.stride(bt, 0),
        k_page_stride=val.stride(kc, 0), k_token_stride=val.stride(kc, 1),
        k_head_stride=val.stride(kc, 2), v_page_stride=val.stride(vc, 0),
        v_token_stride=val.stride(vc, 1), v_head_stride=val.stride(vc, 2))
    out_strides = dict(out_seq_stride=val.stride(o, 0), out_head_stride=o_hs)
    # Vector loads need 16-byte aligned rows; anything else gets a variant
    # without the divisibility facts (slower, still right).
    aligned_pointers = all(x.ptr % 16 == 0 for x in (o, q, kc, vc, bt))
    aligned_strides = all(s % 16 == 0 for n, s in
                          list(strides.items()) + list(out_strides.items())
                          if n != "bt_stride")
    partials = num_splits > 1
    # A plan (plan_attention's fused_combine: True, or None for up to
    # configs.FUSED_MAX_SPLITS splits) merges the splits in the split
    # kernel; its workspace keeps the zeroed counters that needs. The plain
    # calls' plans record with False.
    rec = getattr(_local, "recorder", None)
    fused = partials and rec is not None and (
        num_splits <= configs.FUSED_MAX_SPLITS if rec.fused_combine is None
        else rec.fused_combine)
    varlen = cu is not None
    kv_dtype = kc.dtype if kc.dtype in val.FP8 else dtype
    # As in prefill_launch: with gathered rows the token strides are
    # constants.
    token_strides = launch.constant_strides(
        strides, ("k_token_stride", "v_token_stride"), gathered_rows)
    key = (dtype, kv_dtype, group, head_dim, page_size, block_n,
           aligned_pointers, aligned_strides, partials, fused,
           bool(transposed), checked, varlen, feats.key, num_stages,
           heads_first, seqs_pad, gathered_rows, token_strides)
    plan = _plans.get(key)
    if plan is None:
        first = _split_spec(dtype, group, head_dim, page_size, block_n,
                            aligned_pointers, aligned_strides, partials,
                            bool(transposed), checked, varlen, feats,
                            kv_dtype, fused, num_stages, heads_first,
                            seqs_pad, gathered_rows, token_strides)
        combine = _combine_spec(dtype, head_dim, aligned_pointers,
                                aligned_strides, varlen,
                                feats.lse) if partials and not fused else None
        plan = _plans.setdefault(key, (first, combine))
    first, combine = plan

    values = dict(strides, q=q.obj, k_cache=kc.obj, v_cache=vc.obj,
                  block_tables=bt.obj, seq_lens=lens.obj, scale=scale,
                  num_blocks=num_blocks, tokens_per_split=tps,
                  cu_seqlens_q=None if cu is None else cu.obj)
    feats.values(values, None if lse is None else lse,
                 num_tokens if lse is not None else 0)
    grid = (num_kv_heads, num_seqs, num_splits) if heads_first else \
        (num_seqs, num_kv_heads, num_splits)
    tensors = list(v.values()) + [o] + feats.views()
    if lse is not None:
        tensors.append(_args.view(lse, "lse"))
    if partials:
        rows = num_seqs * num_heads * num_splits
        part_o = allocate_scratch(q.obj, (rows, configs.tile_width(head_dim)))
        part_ml = allocate_scratch(q.obj, (rows, 2))
        tensors += [_args.view(x, "scratch") for x in (part_o, part_ml)]
        values.update(part_o=part_o, part_ml=part_ml)
        if fused:
            counters = allocate_counters(q.obj, num_seqs * num_kv_heads)
            tensors.append(_args.view(counters, "scratch"))
            values.update(out_strides, out=o.obj, counters=counters)
            launches = [(first, grid, values, num_warps)]
        else:
            combine_values = dict(out_strides, out=o.obj, part_o=part_o,
                                  part_ml=part_ml, num_splits=num_splits,
                                  cu_seqlens_q=values["cu_seqlens_q"],
                                  lse=lse, lse_head_stride=num_tokens)
            launches = [(first, grid, values, num_warps),
                        (combine, (num_seqs, num_heads, 1), combine_values,
                         4)]
    else:
        values.update(out_strides, out=o.obj)
        launches = [(first, grid, values, num_warps)]
    run(what, launches, tensors, host, q.device, checked,
        wide_fp8_operands=wide_fp8_operands)


def run(what, launches, tensors, host, device, checked=False, wgmma=True,
        early_dots=False, wide_fp8_operands=True):
    """Runs [(spec, grid, values, num_warps)] in order: in the interpreter
    on the host, else compiled for `device` and launched on its current
    stream."""
    if not launches:
        return
    rec = getattr(_local, "recorder", None)
    if host:
        if rec is not None:
            rec.runs.append((True, None, launches, None))
            return
        for spec, grid, values, _ in launches:
            launch.interpret(spec, grid, values)
        return
    sm = device_sm(device)
    address = {id(x.obj): x.ptr for x in tensors}
    kernels = []
    for spec, _, _, warps in launches:
        try:
            kernels.append(launch.compiled(spec, sm, warps, wgmma, checked,
                                           early_dots, wide_fp8_operands))
        except launch._kernel.CompilationError as e:
            raise NotImplementedError(
                f"{what}: the GPU backend cannot compile {spec.name}:\n{e}"
            ) from e
    if rec is not None:
        rec.runs.append((False, kernels, launches, device))
        return
    for kernel, (spec, grid, values, _) in zip(kernels, launches):
        launch.launch(kernel, spec, grid, values, address, device)


def _made(x):
    """`x`, registered with the thread's plan recorder if there is one."""
    rec = getattr(_local, "recorder", None)
    if rec is not None:
        rec.created.append(x)
    return x


def _framework(obj):
    return type(obj).__module__.split(".")[0]


def outputs(like, shape, out, v, return_lse):
    """(out, its view, lse): `out` as given (its view in `v`) or a new
    tensor of `shape` like the query `like`, and the log-sum-exp output f32
    [num_heads, num_tokens] when asked for."""
    if out is None:
        out = allocate_like(like, shape, "out")
        o = _args.view(out, "out")
    else:
        o = v["out"]
    lse = allocate_lse(like, shape[1], shape[0]) if return_lse else None
    return out, o, lse


def allocate_like(like, shape, name):
    """A new tensor of `like`'s dtype and device, from its framework."""
    mod = _framework(like)
    if mod == "torch":
        import torch
        return _made(torch.empty(shape, dtype=like.dtype,
                                 device=like.device))
    if mod == "numpy":
        import numpy
        return _made(numpy.empty(shape, dtype=like.dtype))
    raise TypeError(f"{name}=None needs a torch tensor or numpy array query "
                    f"to allocate from; pass {name}= for "
                    f"{type(like).__name__} inputs")


def allocate_scratch(like, shape):
    """f32 scratch for the split partials, from the query's framework (torch:
    the caching allocator, stream-ordered and graph-safe)."""
    if _framework(like) == "torch":
        import torch
        return _made(torch.empty(shape, dtype=torch.float32,
                                 device=like.device))
    import numpy
    return _made(numpy.empty(shape, dtype=numpy.float32))


def allocate_counters(like, n):
    """n zeroed int32 counters for the fused combine, beside `like`
    (torch, or numpy in the interpreter), registered with the plan being
    recorded, which keeps them: the kernel sets each back to 0."""
    if _framework(like) == "torch":
        import torch
        x = torch.zeros(max(n, 1), dtype=torch.int32, device=like.device)
    else:
        import numpy
        x = numpy.zeros(max(n, 1), numpy.int32)
    return _made(x)


def allocate_lse(like, num_heads, num_tokens):
    """The log-sum-exp output, f32 [num_heads, num_tokens]."""
    mod = _framework(like)
    if mod not in ("torch", "numpy"):
        raise TypeError("return_lse=True allocates the log-sum-exp with torch "
                        f"or numpy: pass torch tensors for "
                        f"{type(like).__name__} inputs")
    return allocate_scratch(like, (num_heads, num_tokens))


_resources = {}


def device_resources(device):
    """(SM count, shared memory per SM in bytes) of the device, asked of
    the driver once per device (it is on every call's path)."""
    from .. import _cuda
    device = 0 if device is None else device
    got = _resources.get(device)
    if got is None:
        try:
            got = tuple(_cuda.device_attribute(a, device) for a in (
                _cuda.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                _cuda.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR))
        except _cuda.CudaError as e:
            raise _cuda.CudaError(f"quire.ops: {e}") from None
        _resources[device] = got
    return got


_device_sms = {}


def device_sm(device):
    """The compute capability to compile for on `device`."""
    sm = _device_sms.get(device)
    if sm is not None:
        return sm
    from .. import _cuda
    if device is None:
        sm = launch._kernel.resolve_sm(None)
    else:
        try:
            sm = _cuda.compute_capability(device)
        except _cuda.CudaError as e:
            raise _cuda.CudaError(f"quire.ops: {e}") from None
    if sm not in launch._kernel.SUPPORTED_SMS:
        raise ValueError(f"quire.ops: cuda:{device} is sm_{sm}; Quire "
                         f"generates code for sm "
                         f"{', '.join(map(str, launch._kernel.SUPPORTED_SMS))}")
    _device_sms[device] = sm
    return sm
