"""quire.ops.paged_prefill_attention, and the query-tiled prefill launch
that unified_attention shares: validation, the specialization and the
launch of prefill_kernel.py."""

from .. import _args, _kernel, _lib
from . import configs, features, launch, plan as plans, validation as val
from .decode import device_resources, device_sm, outputs, run
from ..compiler import code_generator
from ..tools.tensor_descriptor import TensorDescriptor, tma_box
from .prefill_kernel import paged_prefill

WHAT = "paged_prefill_attention"
ROLES = ("query", "key_cache", "value_cache", "block_table",
         "query_start_loc", "seq_lens", "out", "key", "value",
         "alibi_slopes", "sinks", "q_descale", "k_descale", "v_descale")
_plans = {}
# quire.compile's options for the passes that reshape the attention loop
# after its schedule (docs/passes.md), with the op's defaults (None: the
# op's choice, prefill_launch's): _paged_prefill takes each by name,
# prefill_launch passes the ones that differ from quire.compile's defaults
# to the kernel's compile options.
LOOP_PASSES = {"early_release": True, "skip_unit_rescale": False,
               "ordered_release": False, "convert_after_wait": False,
               "split_iterations": None}


def loop_passes(options):
    """The (name, value) pairs of LOOP_PASSES, each the value `options` (a
    dict of keyword arguments) gives or the default, checked: an unknown
    name or a value that is not a bool (or None, where that is the
    default) raises TypeError."""
    for name, value in options.items():
        if name not in LOOP_PASSES:
            raise TypeError(f"{WHAT}: unexpected keyword argument '{name}'")
        if value is not None or LOOP_PASSES[name] is not None:
            val.check_bool(value, name)
    return tuple((name, options.get(name, LOOP_PASSES[name]))
                 for name in LOOP_PASSES)


def _compile_passes(passes):
    """The pairs of loop_passes' `passes` whose values differ from
    quire.compile's defaults: the kernel's compile options."""
    defaults = {o.name: o.default for o in _lib.OPTIONS}
    return tuple((n, x) for n, x in passes if x != defaults[n])


def _spec(dtype, group, head_dim, page_size, block_m, block_n,
          aligned_pointers, aligned_strides, separate, checked, causal,
          skip_decode, feats, kv_dtype=None, num_stages=2, flat=False,
          fold_scale=True, pingpong=False, gathered_rows=False,
          token_strides=(), warp_specialize=False, producer_warpgroup=False,
          producer_registers=0, last_first=True, overlap_softmax=False,
          kv_desc=None, one_loop=True, persistent=False, passes=(),
          kv_heads_together=1):
    """The prefill kernel's Specialization. `kv_desc`: (shape_div16,
    stride_div16) of the caches passed as tensor descriptors (KV_DESC;
    DescriptorArg's facts), or None; `one_loop` (or `kv_desc`) without
    `separate`: the chunk's keys read in the context's loop (ONE_LOOP);
    False: in a loop of their own. `passes`: loop_passes' pairs (no
    None), compile options where they differ from quire.compile's.
    `kv_heads_together`: the first grid's KV heads a round (KV_TOGETHER)."""
    P = launch.core.pointer_type(launch.DTYPES[dtype])
    KP = launch.core.pointer_type(launch.DTYPES[kv_dtype or dtype])
    I32P = launch.core.pointer_type(launch.I32)
    I32, I64 = launch.I32, launch.I64
    pd = 16 if aligned_pointers else 1
    sd = 16 if aligned_strides else 1
    consts = dict(GROUP=group, D=head_dim, DP=configs.tile_width(head_dim),
                  PAGE_SIZE=page_size, BLOCK_M=block_m, BLOCK_N=block_n,
                  SEPARATE=separate, CAUSAL=causal, FLAT=flat,
                  SKIP_DECODE=skip_decode, FOLD_SCALE=fold_scale,
                  LAST_FIRST=last_first, KV_DESC=kv_desc is not None,
                  ONE_LOOP=(one_loop or kv_desc is not None) and
                  not separate)
    args = dict(
        out=(P, pd), q=(P, pd), k_cache=(KP, pd), v_cache=(KP, pd),
        block_tables=(I32P, pd), query_start=(I32P, 1), seq_lens=(I32P, 1),
        scale=(launch.F32, 1), bt_stride=(I64, 1),
        q_token_stride=(I32, sd), q_head_stride=(I64, sd),
        out_token_stride=(I32, sd), out_head_stride=(I64, sd),
        k_page_stride=(I64, sd), k_token_stride=(I64, sd),
        k_head_stride=(I64, sd), v_page_stride=(I64, sd),
        v_token_stride=(I64, sd), v_head_stride=(I64, sd))
    new = dict(k_new=(P, pd), v_new=(P, pd), kn_token_stride=(I32, sd),
               kn_head_stride=(I64, sd), vn_token_stride=(I32, sd),
               vn_head_stride=(I64, sd))
    if separate:
        args.update(new)
    else:
        consts.update(dict.fromkeys(new))
    launch.as_constants(consts, args, token_strides)
    if kv_desc is not None:
        box = page_box(page_size, block_n, head_dim)
        for name in ("k", "v"):
            args[f"{name}_cache"] = (code_generator.DescriptorArg(
                launch.DTYPES[dtype], box, "zero", *kv_desc), 1)
            for part in ("page", "token", "head"):
                stride = f"{name}_{part}_stride"
                args.pop(stride, None)
                consts[stride] = None
    if checked:
        args["num_blocks"] = (I32, 1)
    else:
        consts["num_blocks"] = None
    consts["PERSISTENT"] = persistent
    consts["KV_TOGETHER"] = kv_heads_together
    if flat:
        args.update(num_seqs=(I32, 1), search_steps=(I32, 1))
    else:
        consts.update(num_seqs=None, search_steps=None)
    if persistent:
        consts.pop("num_seqs", None)
        args.update(num_seqs=(I32, 1), num_q_heads=(I32, 1),
                    num_mblocks=(I32, 1))
    else:
        consts.update(num_q_heads=None, num_mblocks=None)
    feats.spec(consts, args)
    flags = dict(pingpong=pingpong, gathered_rows=gathered_rows,
                 warp_specialize=warp_specialize,
                 producer_warpgroup=producer_warpgroup,
                 overlap_softmax=overlap_softmax)
    options = tuple((name, True) for name, on in flags.items() if on)
    if producer_registers:
        options += (("producer_registers", producer_registers),)
    options += _compile_passes(passes)
    return launch.specialize(paged_prefill, "paged_prefill_attention",
                             consts, args, num_stages, options)


def paged_prefill_source(dtype="f16", group=4, head_dim=128, page_size=16,
                         block_m=64, block_n=64, aligned_pointers=True,
                         aligned_strides=True, separate=True, checked=False):
    """The MLIR of one specialization of the paged prefill kernel
    (@paged_prefill_attention, causal, without the optional features), as
    the frontend generates it from prefill_kernel.py: with `separate`, the
    chunk's own keys/values come from k_new/v_new tensors; without, from
    the cache in the context's loop (ONE_LOOP). With `checked`, the kernel
    takes `num_blocks` after `scale` and bounds every paged load by it."""
    feats = features.Features(-1, 0.0, None, None, False, {})
    return _spec(dtype, group, head_dim, page_size, block_m, block_n,
                 aligned_pointers, aligned_strides, separate, checked, True,
                 False, feats).source


def paged_prefill_attention(query, key_cache, value_cache, block_table,
                            query_start_loc, seq_lens, scale=None, out=None,
                            *, key=None, value=None, max_query_len=None,
                            checked=False, causal=True, window_size=(-1, -1),
                            softcap=0.0, alibi_slopes=None, sinks=None,
                            return_lse=False, q_descale=None, k_descale=None,
                            v_descale=None):
    """Prefill / chunked-prefill attention over a paged KV cache, with vLLM's
    layout: each sequence's chunk of new query tokens attends over the
    sequence's cached context and, causally, over the chunk itself.

      query            [num_tokens, num_heads, head_dim] f16 or bf16: the
                       batch's chunks back to back
      key_cache,       [num_blocks, block_size, num_kv_heads, head_dim], the
      value_cache      query's dtype; any strides, last dimension contiguous
      block_table      int32 [num_seqs, max_blocks]
      query_start_loc  int32 [num_seqs + 1]: sequence s's chunk is query
                       tokens query_start_loc[s] .. query_start_loc[s+1]-1
      seq_lens         int32 [num_seqs]: tokens of sequence s including its
                       chunk (its context is seq_lens[s] - chunk length)
      scale            softmax scale (default 1 / sqrt(head_dim))
      out              [num_tokens, num_heads, head_dim] to write (default: a
                       new tensor)
      key, value       [num_tokens, num_kv_heads, head_dim]: the chunk's own
                       keys and values when they are not in the cache yet;
                       without them (vLLM's order: the cache is written
                       first) they are read from the cache, as tokens
                       context .. seq_len - 1 of each sequence
      max_query_len    the longest chunk, as vLLM passes it: sizes the grid.
                       Default num_tokens (right, with idle programs). It is
                       trusted on the GPU: a smaller value than the longest
                       chunk leaves that chunk's later rows unwritten (the
                       interpreter checks it)
      checked          compile the kernel in checked mode with the cache's
                       num_blocks (as for paged_decode_attention)
      causal, window_size, softcap, alibi_slopes, sinks, return_lse,
      q_descale, k_descale, v_descale
                       as for unified_attention; with return_lse the result
                       is (out, lse), lse f32 [num_heads, num_tokens]

    Query head h reads KV head h // (num_heads // num_kv_heads). head_dim may
    be 1..256 (padded to a power of two inside the kernel; the padding is
    never read). Returns `out`. One launch on the current stream whose grid
    depends on shapes and max_query_len only, so it can be graph-captured.
    On the host (numpy) the start locations and lengths are checked against
    each other and the block table (ValueError naming the sequence) and the
    interpreter checks every access; on the GPU they are not read by the
    host and are trusted as vLLM trusts them, except that checked=True
    catches block-table entries outside the cache.
    """
    return plans.cached(
        WHAT, ROLES, (query, key_cache, value_cache, block_table,
                      query_start_loc, seq_lens, out, key, value,
                      alibi_slopes, sinks, q_descale, k_descale, v_descale),
        (scale, max_query_len, checked, causal, window_size, softcap,
         return_lse),
        lambda: _paged_prefill(query, key_cache, value_cache, block_table,
                               query_start_loc, seq_lens, scale, out, key,
                               value, max_query_len, checked=checked,
                               causal=causal, window_size=window_size,
                               softcap=softcap, alibi_slopes=alibi_slopes,
                               sinks=sinks, return_lse=return_lse,
                               q_descale=q_descale, k_descale=k_descale,
                               v_descale=v_descale))


def prefill_views(query, key_cache, value_cache, block_table,
                  query_start_loc, seq_lens, out, extra=(),
                  names=("query", "key_cache", "value_cache", "block_table",
                         "query_start_loc", "seq_lens", "out")):
    tok = ("num_tokens", "num_heads", "head_dim")
    q, kc, vc, bt, qs, sl, o = names
    items = [(q, query, tok), (kc, key_cache, val.KV_DIMS),
             (vc, value_cache, val.KV_DIMS),
             (bt, block_table, ("num_seqs", "max_blocks")),
             (qs, query_start_loc, ("num_seqs + 1",)),
             (sl, seq_lens, ("num_seqs",))]
    if out is not None:
        items.append((o, out, tok))
    return val.views(items + list(extra))


def _paged_prefill(query, key_cache, value_cache, block_table,
                   query_start_loc, seq_lens, scale, out, key, value,
                   max_query_len, block_m=None, block_n=None,
                   num_warps=None, wgmma=True, checked=False, causal=True,
                   window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                   sinks=None, return_lse=False, q_descale=None,
                   k_descale=None, v_descale=None, num_stages=None,
                   early_dots=False, fold_scale=True, pingpong=False,
                   gathered_rows=False, warp_specialize=None,
                   producer_warpgroup=None, producer_registers=0,
                   last_first=True, overlap_softmax=None, tma_pages=None,
                   one_loop=True, persistent=False, kv_heads_together=1,
                   **passes):
    """paged_prefill_attention with the tile shape, the staging depth, the
    tensor-core options (wgmma, early_dots, pingpong, warp_specialize,
    producer_warpgroup; sm_90; None: configs.prefill_warp_specialize;
    producer_registers, overlap_softmax and the LOOP_PASSES `passes`
    (early_release, skip_unit_rescale, ordered_release, convert_after_wait,
    split_iterations),
    quire.compile's; overlap_softmax None:
    configs.prefill_overlap_softmax, with 3 stages), the gathered rows'
    layout (gathered_rows, quire.compile's), the folded scale
    (fold_scale, prefill_kernel.FOLD_SCALE) and the order of a
    chunk's blocks (last_first, prefill_kernel.LAST_FIRST) open for
    benchmarks. `tma_pages`: on the GPU, pass the caches as tensor
    descriptors where TMA can copy their pages (prefill_launch; None:
    where the chunk's K/V come from the cache and a page holds a whole
    tile of keys);
    `one_loop`: the chunk's keys from the cache read in the context's loop
    (prefill_kernel.ONE_LOOP, the default; False: in a loop of their own,
    unless tma_pages); `persistent`: prefill_launch's (True, or a number of
    programs); `kv_heads_together`: prefill_launch's."""
    if (key is None) != (value is None):
        raise ValueError(f"{'value' if key is not None else 'key'}: key and "
                         "value are given together or not at all")
    extra, optional = features.optional_items(alibi_slopes, sinks, q_descale,
                                              k_descale, v_descale)
    if key is not None:
        kvd = ("num_tokens", "num_kv_heads", "head_dim")
        extra += [("key", key, kvd), ("value", value, kvd)]
    v = prefill_views(query, key_cache, value_cache, block_table,
                      query_start_loc, seq_lens, out, extra)
    host, dtype = val.check_attention(
        v, "query", "key_cache", "value_cache", ("out", "key", "value"),
        ("block_table", "query_start_loc", "seq_lens"))
    q, kc, bt = v["query"], v["key_cache"], v["block_table"]
    num_tokens, num_heads, head_dim = q.shape
    num_blocks, page_size, num_kv_heads, _ = kc.shape
    num_seqs = bt.shape[0]
    val.check_batch(v, num_seqs, "seq_lens", "query_start_loc",
                    whose=" (block_table rows)")
    for name in ("key", "value"):
        if name in v and v[name].shape != (num_tokens, num_kv_heads, head_dim):
            raise ValueError(
                f"{name}: expected shape {[num_tokens, num_kv_heads, head_dim]}"
                f" (query's tokens, the cache's heads), got "
                f"{list(v[name].shape)}")
    scale = val.check_scale(scale, head_dim)
    checked = val.check_checked(checked, num_blocks, WHAT)
    val.check_bool(causal, "causal")
    feats = features.parse(v, optional, num_heads, num_seqs, num_kv_heads,
                           causal, window_size, softcap, return_lse)
    if max_query_len is None:
        max_q = num_tokens
    else:
        max_q = min(val.to_int(max_query_len, "max_query_len"), num_tokens)
    if host:
        val.check_chunks(v["query_start_loc"], v["seq_lens"], num_tokens,
                         max_q, bt.shape[1] * page_size, key is not None)
    val.check_num_stages(num_stages)
    val.check_bool(early_dots, "early_dots")
    val.check_bool(pingpong, "pingpong")
    val.check_bool(gathered_rows, "gathered_rows")
    for name, x in (("warp_specialize", warp_specialize),
                    ("producer_warpgroup", producer_warpgroup)):
        if x is not None:
            val.check_bool(x, name)
    val.check_bool(fold_scale, "fold_scale")
    val.check_bool(last_first, "last_first")
    if overlap_softmax is not None:
        val.check_bool(overlap_softmax, "overlap_softmax")
    if tma_pages is not None:
        val.check_bool(tma_pages, "tma_pages")
    val.check_bool(one_loop, "one_loop")
    passes = loop_passes(passes)
    if not isinstance(persistent, bool):
        persistent = val.to_int(persistent, "persistent", 1)
    kv_heads_together = val.to_int(kv_heads_together, "kv_heads_together", 1)
    _kernel._check_producer_registers("producer_registers", producer_registers)
    out, o, lse = outputs(query, q.shape, out, v, return_lse)
    cfg = (block_m, block_n, num_warps, num_stages)
    launches, tensors = prefill_launch(
        WHAT, v, o, dtype, scale, feats, checked, max_q, lse, causal, False,
        cfg, "query_start_loc", "seq_lens",
        90 if host else device_sm(q.device), wgmma, fold_scale, pingpong,
        gathered_rows, warp_specialize, producer_warpgroup, early_dots,
        producer_registers, last_first, overlap_softmax,
        tma_pages if not host else False, one_loop, persistent, passes,
        kv_heads_together)
    run(WHAT, launches, tensors, host, q.device, checked, wgmma, early_dots)
    return (out, lse) if return_lse else out


def page_box(page_size, block_n, head_dim):
    """The block of the caches' descriptors (KV_DESC): one page's box of
    min(page_size, block_n) tokens, the kernel's tile width."""
    return [1, min(page_size, block_n), 1, configs.tile_width(head_dim)]


def tma_pages_fit(v, sm, block_n, page_size, head_dim, warp_specialize,
                  checked):
    """True if the kernel's producer warps can copy the caches' pages of
    `v` with TMA (prefill_launch's tma_pages): sm_90 with producer warps,
    unchecked, 16-bit caches at 16-byte aligned addresses with 16-byte
    strides and contiguous rows, and tiles of whole boxes of min(page_size,
    block_n) tokens that fill 1024-byte swizzle periods (the compiler's
    tile.tma_copy_pages rule: Tile.h, tmaPagesFit)."""
    kc, vc = v["key_cache"], v["value_cache"]
    if sm != 90 or not warp_specialize or checked or kc.dtype in val.FP8:
        return False
    for x in (kc, vc):
        if x.itemsize != 2 or x.ptr % 16 or val.stride(x, 3) != 1 or \
                any(val.stride(x, i) * 2 % 16 for i in range(3)):
            return False
    block = page_box(page_size, block_n, head_dim)
    box = block[1]
    # (Boxes TMA stages at all: tma_box's (column, rows, swizzle) or None.)
    staged = tma_box(16, block, "zero")
    return (staged is not None and block_n % box == 0 and
            page_size % box == 0 and box * staged[2] % 1024 == 0)


def prefill_launch(what, v, o, dtype, scale, feats, checked, max_q, lse,
                   causal, skip_decode, cfg, qs_name, lens_name, sm=90,
                   wgmma=True, fold_scale=True, pingpong=False,
                   gathered_rows=False, warp_specialize=None,
                   producer_warpgroup=None, early_dots=False,
                   producer_registers=0, last_first=True,
                   overlap_softmax=None, tma_pages=None, one_loop=True,
                   persistent=False, passes=None, kv_heads_together=1):
    """([launch], tensors) of the prefill kernel over every sequence of the
    validated views `v` ("key"/"value" in `v`: the chunk's K/V separate),
    writing `o` (and `lse`); none for an empty batch. `pingpong`: the
    kernel compiles with quire-pingpong (docs/passes.md); `gathered_rows`,
    `warp_specialize` and `producer_warpgroup`: quire.compile's options
    (None: configs.prefill_warp_specialize for both, unless `pingpong` or
    `early_dots`, which the caller compiles the kernel with), and
    `producer_registers`, `overlap_softmax` and `passes` (loop_passes'
    pairs; None: the defaults), quire.compile's (overlap_softmax None:
    configs.prefill_overlap_softmax, which also takes 3 stages unless `cfg`
    names them, the consumer warpgroups' turns and, unless `passes` says,
    split_iterations; True: the overlap at the stages `cfg` names, with
    turns only if `pingpong`). `cfg` is
    (block_m, block_n, num_warps, num_stages), None for each default, the
    defaults those of configs.prefill_config for compute capability `sm`
    (the interpreter: 90) and `wgmma`; `fold_scale` as the kernel's
    FOLD_SCALE, `last_first` as its LAST_FIRST. With `tma_pages` (a GPU
    launch; None: the chunk's K/V from the cache in one loop and pages of
    at least block_n tokens) the caches go as tensor descriptors (KV_DESC)
    where the kernel's producer warps can copy their pages with TMA
    (tma_pages_fit); plans re-encode their tensor maps when a run's caches
    lie elsewhere (plan.Plan); `one_loop` as _spec's. With `persistent`
    (not with skip_decode, which keeps a program per tile) the kernel is
    PERSISTENT: a program per SM (the interpreter: 4), or with a number
    that many programs (at most the tiles), each taking the first grid's
    tiles in turn (never the flat grid), so that its producer warps fill
    the next tile's stages while the consumers finish the last one. The
    first grid takes `kv_heads_together` KV heads' programs a round (1:
    one KV head's, the op's; a divisor of the KV heads)."""
    q, kc, vc, bt = v["query"], v["key_cache"], v["value_cache"], \
        v["block_table"]
    num_tokens, num_heads, head_dim = q.shape
    num_blocks, page_size, num_kv_heads, _ = kc.shape
    num_seqs = bt.shape[0]
    group = num_heads // num_kv_heads if num_heads else 1
    dflt = configs.prefill_config(head_dim, sm, kc.dtype in val.FP8, wgmma,
                                  checked)
    block_m, block_n, num_warps = (c or d for c, d in zip(cfg, dflt))
    num_stages = cfg[3] or 2
    # (quire-pingpong's and early dots' loop forms are the unspecialized
    # kernel's: asked for, they keep it.)
    specialize = configs.prefill_warp_specialize(
        (block_m, block_n, num_warps), sm, kc.dtype in val.FP8, wgmma,
        checked, feats.flags) and not pingpong and not early_dots
    if warp_specialize is None:
        warp_specialize = specialize
    if producer_warpgroup is None:
        producer_warpgroup = warp_specialize
    if not 1 <= head_dim <= 256:
        val.unsupported(what, f"head_dim {head_dim} (needs 1..256)")
    # (A round that is not whole KV heads would leave heads out of the grid.)
    if num_kv_heads % kv_heads_together:
        raise ValueError(f"kv_heads_together: {kv_heads_together} does not "
                         f"divide the cache's {num_kv_heads} KV heads")
    round_heads = group * kv_heads_together
    if num_seqs * round_heads > val.I32_MAX:
        val.unsupported(what, f"num_seqs {num_seqs} (grid x, num_seqs times "
                        f"{round_heads} query heads, is below 2^31)")
    if num_heads > 65535:
        val.unsupported(what, f"num_heads {num_heads} (grid y is at most "
                        "65535)")
    programs, flat = configs.prefill_grid(num_tokens, num_seqs, max_q,
                                          block_m)
    # (A persistent program passes over the first grid's idle tiles at the
    # cost of their scalars.)
    programs_asked = persistent
    persistent = persistent is not False and not skip_decode
    flat = flat and not persistent
    # The first grid: a chunk's blocks of block_m tokens, its tiles.
    mblocks = max(1, -(-max_q // block_m))
    tiles = num_seqs * num_heads * mblocks
    if not flat and not persistent and mblocks > 65535:
        val.unsupported(what, f"max_query_len {max_q} (grid y, chunks of "
                        f"{block_m} tokens, is at most 65535)")
    if flat and programs > val.I32_MAX:
        val.unsupported(what, f"{num_tokens} tokens in {num_seqs} sequences "
                        "(grid x is below 2^31)")
    if persistent and tiles > val.I32_MAX // 2:
        val.unsupported(what, f"{tiles} tiles of a persistent launch (its "
                        "32-bit tile index stops at 2^30)")
    if bt.shape[1] * page_size > val.I32_MAX // 2 or \
            num_tokens > val.I32_MAX // 2:
        val.unsupported(what, "sequences or batches past 2^30 tokens (token "
                        "indices are 32-bit)")
    if num_tokens == 0 or num_seqs == 0 or num_heads == 0:
        return [], []
    separate = "key" in v
    # In-tile offsets are 32-bit: a tile's rows times the token stride.
    tiled = [("query", q, block_m), ("out", o, block_m)]
    if separate:
        tiled += [("key", v["key"], block_n), ("value", v["value"], block_n)]
    for name, x, rows in tiled:
        ts = val.stride(x, 0)
        if ts * (rows - 1) + configs.tile_width(head_dim) > val.I32_MAX:
            val.unsupported(what, f"{name} token stride {ts} (in-tile offsets "
                            "are 32-bit)")
    strides = dict(
        q_token_stride=val.stride(q, 0), q_head_stride=val.stride(q, 1),
        out_token_stride=val.stride(o, 0), out_head_stride=val.stride(o, 1),
        k_page_stride=val.stride(kc, 0), k_token_stride=val.stride(kc, 1),
        k_head_stride=val.stride(kc, 2), v_page_stride=val.stride(vc, 0),
        v_token_stride=val.stride(vc, 1), v_head_stride=val.stride(vc, 2))
    data = [o, q, kc, vc, bt]
    if separate:
        kn, vn = v["key"], v["value"]
        strides.update(kn_token_stride=val.stride(kn, 0),
                       kn_head_stride=val.stride(kn, 1),
                       vn_token_stride=val.stride(vn, 0),
                       vn_head_stride=val.stride(vn, 1))
        data += [kn, vn]
    aligned_pointers = all(x.ptr % 16 == 0 for x in data)
    aligned_strides = all(s % 16 == 0 for s in strides.values())
    kv_dtype = kc.dtype if kc.dtype in val.FP8 else dtype
    # With gathered rows a thread's rows of a context tile are consecutive
    # in one page: the K/V token strides as constants make their offsets
    # immediates (without, each row's page offset is its own); those of
    # k_new/v_new too.
    token_strides = launch.constant_strides(
        strides, ("k_token_stride", "v_token_stride") +
        (("kn_token_stride", "vn_token_stride") if separate else ()),
        gathered_rows)
    if tma_pages is None:
        # TMA copies the pages where a page holds a whole tile of keys and
        # every tile is a loop's over the cache (docs/performance.md, "The
        # softmax overlap on the cache form": 488 against 467 TFLOP/s with
        # pages of 128 tokens; with 16 it is slower).
        tma_pages = q.device != "cpu" and not separate and one_loop and \
            page_size >= block_n
    kv_desc = None
    if tma_pages and tma_pages_fit(v, sm, block_n, page_size, head_dim,
                                   warp_specialize, checked):
        # Which of the caches' shapes and strides are multiples of 16.
        kv_desc = tuple(
            tuple(all(x % 16 == 0 for x in xs) for xs in zip(*parts))
            for parts in ((kc.shape, vc.shape),
                          ([val.stride(kc, i) for i in range(3)],
                           [val.stride(vc, i) for i in range(3)])))
        token_strides = tuple((n, x) for n, x in token_strides
                              if n not in ("k_token_stride",
                                           "v_token_stride"))
    passes = dict(loop_passes({}) if passes is None else passes)
    chosen = overlap_softmax is None
    if overlap_softmax is None:
        # One loop through cp.async (not TMA's pages, whose clears the
        # overlap leaves alone), at 3 stages; not over the dots' turns or
        # early dots, nor at another staging depth asked for.
        overlap_softmax = configs.prefill_overlap_softmax(
            (block_m, block_n, num_warps), sm, producer_warpgroup,
            separate or not one_loop, page_size) and kv_desc is None and \
            not pingpong and not early_dots and cfg[3] in (None, 3)
        if overlap_softmax:
            # With the two consumer warpgroups taking turns at their dots
            # (quire-overlap-softmax's pingpong: 0-3% faster on those
            # rows, docs/performance.md).
            num_stages = 3
            pingpong = True
    if passes["split_iterations"] is None:
        # The mask's branch out of the overlapped loop's unmasked tiles
        # (quire-split-iterations; docs/performance.md).
        passes["split_iterations"] = chosen and overlap_softmax
    passes = tuple(passes.items())
    key = (dtype, kv_dtype, group, head_dim, page_size, block_m, block_n,
           aligned_pointers, aligned_strides, separate, checked, causal,
           skip_decode, feats.key, num_stages, flat, fold_scale, pingpong,
           gathered_rows, warp_specialize, producer_warpgroup,
           producer_registers, last_first, overlap_softmax, passes, kv_desc,
           kv_heads_together, one_loop and not separate, persistent,
           token_strides)
    spec = _plans.get(key)
    if spec is None:
        spec = _plans.setdefault(key, _spec(
            dtype, group, head_dim, page_size, block_m, block_n,
            aligned_pointers, aligned_strides, separate, checked, causal,
            skip_decode, feats, kv_dtype, num_stages, flat, fold_scale,
            pingpong, gathered_rows, token_strides, warp_specialize,
            producer_warpgroup, producer_registers, last_first,
            overlap_softmax, kv_desc, one_loop, persistent, passes,
            kv_heads_together))
    values = dict(strides, out=o.obj, q=q.obj, k_cache=kc.obj,
                  v_cache=vc.obj, block_tables=bt.obj,
                  query_start=v[qs_name].obj, seq_lens=v[lens_name].obj,
                  scale=scale, num_blocks=num_blocks,
                  bt_stride=val.stride(bt, 0))
    if separate:
        values.update(k_new=v["key"].obj, v_new=v["value"].obj)
    if kv_desc is not None:
        box = page_box(page_size, block_n, head_dim)
        for name, x in (("k_cache", kc), ("v_cache", vc)):
            values[name] = TensorDescriptor.from_tensor(x.obj, box)
    feats.values(values, lse, num_tokens if lse is not None else 0)
    tensors = list(v.values()) + [o] + feats.views()
    if lse is not None:
        tensors.append(_args.view(lse, "lse"))
    if flat:
        values.update(num_seqs=num_seqs,
                      search_steps=max(0, num_seqs - 1).bit_length())
        grid = (programs, num_heads, 1)
    else:
        grid = (num_seqs * round_heads, mblocks, num_heads // round_heads)
    if persistent:
        if programs_asked is True:
            programs_asked = 4 if q.device == "cpu" else \
                device_resources(q.device)[0]
        values.update(num_seqs=num_seqs, num_q_heads=num_heads,
                      num_mblocks=mblocks)
        grid = (min(tiles, programs_asked), 1, 1)
    return [(spec, grid, values, num_warps)], tensors
