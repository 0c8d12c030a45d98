"""Ready-made kernels with framework-facing signatures.

    out = quire.ops.paged_decode_attention(query, key_cache, value_cache,
                                           block_table, seq_lens)

CUDA tensors (torch, or anything with `__cuda_array_interface__`) run on the
GPU; numpy arrays run the same kernel in the reference interpreter, which is
how the op is tested without a GPU. Every argument is validated before
anything is compiled or launched; a shape the GPU backend cannot handle yet
raises NotImplementedError with the reason rather than running a wrong kernel.

What is validated where: on the host (numpy, the interpreter) the ops read
the lengths and start locations and reject any the block table cannot hold;
on the GPU they check shapes, dtypes, strides and devices only, because
reading a device tensor's values would synchronize the device on every call.
There the block table and lengths are trusted as vLLM trusts them, unless
the op is called with `checked=True`: its kernels are then compiled in
checked mode (quire.compile(..., checked=True)) with the cache's block count
as every paged load's `num_blocks`, so a block-table entry outside the cache
is reported and never read through (the launch traps).
"""

import math
import os
import string
import threading

from . import _args, _kernel as jit

_KERNEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "kernels")
_DIV = " {tile.divisibility = 16 : i32}"
_I32_MAX = 2 ** 31 - 1

_templates = {}
_sources = {}
_kernels = {}
_lock = threading.Lock()


def _template(name):
    t = _templates.get(name)
    if t is None:
        with open(os.path.join(_KERNEL_DIR, name), encoding="utf-8") as f:
            t = _templates.setdefault(name, string.Template(f.read()))
    return t


def _is_pow2(n):
    return n > 0 and n & (n - 1) == 0


# The most splits the combine kernel merges (its tile height).
MAX_SPLITS = 32


def _next_pow2(n):
    return 1 << max(0, n - 1).bit_length()


def _tile_rows(group):
    """Rows of the query tile: the GQA group padded to a power of two, at
    least the 16 rows of an mma.sync tile."""
    return max(16, _next_pow2(group))


def _tile_width(head_dim):
    """Columns of the K/V tiles, and of a partial-result row: the head dim
    padded to a power of two, at least 16."""
    return max(16, _next_pow2(head_dim))


def _select(text, flags):
    """Keeps the `// IF NAME` / `// ELSE` / `// ENDIF` branches that
    `flags[NAME]` picks; the marker lines go."""
    out, keep = [], [True]
    for line in text.splitlines(keepends=True):
        tag = line.strip()
        if tag.startswith("// IF "):
            keep.append(bool(flags[tag[len("// IF "):]]))
        elif tag == "// ELSE":
            keep[-1] = not keep[-1]
        elif tag == "// ENDIF":
            keep.pop()
        elif all(keep):
            out.append(line)
    return "".join(out)


def paged_decode_source(dtype="f16", group=4, head_dim=128, page_size=16,
                        block_n=64, aligned_pointers=True,
                        aligned_strides=True, partials=True, transposed=False,
                        checked=False):
    """The MLIR of one specialization of the paged decode kernels, from
    kernels/paged_decode_split.mlir.in: with `partials`, split-KV
    (@paged_decode_split writing partials, @paged_decode_combine merging
    them); without, one split (@paged_decode_attention writes `out`). With
    `transposed`, the dots run transposed (the GQA group is their N). With
    `checked`, the kernels take `num_blocks` after `scale` and bound every
    paged load by it (for quire.compile(..., checked=True))."""
    return _specialize("paged_decode_split.mlir.in",
                       {"PARTIALS": partials, "TRANSPOSED": transposed},
                       dtype, head_dim, aligned_pointers, aligned_strides,
                       checked,
                       GROUP=group, GP=_tile_rows(group),
                       GN=max(8, _next_pow2(group)), PAGE_SIZE=page_size,
                       BLOCK_N=block_n, SPLITS_PAD=MAX_SPLITS)


def _specialize(template, flags, dtype, head_dim, aligned_pointers,
                aligned_strides, checked, **subs):
    """`template` with `flags` and CHECKED selected and its placeholders
    filled: DTYPE, D, DP and COLS from the head dim, PTR_DIV and STRIDE_DIV
    from the alignment, NUM_BLOCKS from `checked`, the rest from `subs`.
    Cached per distinct specialization."""
    flags = dict(flags, CHECKED=checked)
    key = (template, tuple(sorted(flags.items())), dtype, head_dim,
           aligned_pointers, aligned_strides, tuple(sorted(subs.items())))
    src = _sources.get(key)
    if src is None:
        dp = _tile_width(head_dim)
        text = _select(_template(template).template, flags)
        src = string.Template(text).substitute(
            DTYPE=dtype, D=head_dim, DP=dp,
            COLS=f"cols = {head_dim} : i32, " if dp > head_dim else "",
            PTR_DIV=_DIV if aligned_pointers else "",
            STRIDE_DIV=_DIV if aligned_strides else "",
            NUM_BLOCKS=" num_blocks %num_blocks" if checked else "", **subs)
        src = _sources.setdefault(key, src)
    return src


def decode_config(head_dim, group):
    """(block_n, num_warps) of the split kernel for a head dimension and GQA
    group: one warp on 16-token tiles, staged through shared memory with
    cp.async two tiles deep (no cross-warp reductions, a small register
    footprint, many CTAs per SM), the fastest or close to it on every decode
    shape benchmarked (docs/performance.md, "Decode: split-KV over one-warp
    programs"); wider heads (256) take 4 warps on 32-token tiles, whose
    accumulator would not fit one warp's registers. Groups padded past 16
    rows get a warp per 16 rows."""
    dp = _tile_width(head_dim)
    rows = _tile_rows(group)
    return (16, rows // 16) if dp <= 128 else (32, max(4, rows // 16))


def decode_transposed(head_dim, group):
    """Whether the split kernel runs its dots transposed (the GQA group as
    the N of the MMAs, padded to 8 instead of 16 rows): for GQA groups of 2
    to 8 on one-warp programs, where it halves the accumulator and the MMAs
    and is the faster form; MHA and larger groups keep the row form
    (docs/performance.md, "Decode: the transposed form")."""
    return 2 <= group <= 8 and _tile_width(head_dim) <= 128


def num_splits_for(num_seqs, num_kv_heads, max_tokens, block_n, sms=132):
    """Splits of each sequence: enough programs for about four per SM, at
    least 4 tiles of block_n tokens per split, at most MAX_SPLITS. Depends on
    the shapes only (not on seq_lens), so a launch can be graph-captured."""
    programs = max(1, num_seqs * num_kv_heads)
    want = -(-4 * sms // programs)
    most = max(1, -(-max_tokens // (4 * block_n)))
    return max(1, min(want, most, MAX_SPLITS))


def _unsupported(reason, what="paged_decode_attention"):
    raise NotImplementedError(
        f"{what}: {reason} is not supported by Quire's GPU backend yet")


def _views(items):
    views = {}
    for name, value, dims in items:
        v = _args.view(value, name)
        if v is None:
            raise TypeError(f"{name}: expected a tensor, got "
                            f"{_args.describe(value)}")
        if len(v.shape) != len(dims):
            raise ValueError(f"{name}: expected {len(dims)} dimensions "
                             f"[{', '.join(dims)}], got shape {list(v.shape)}")
        if any(s < 0 for n, s in zip(v.shape, v.strides) if n > 1):
            raise ValueError(f"{name}: negative strides are not supported")
        views[name] = v
    return views


def _dense_last(v, name):
    if v.shape[-1] > 1 and v.strides[-1] != 1:
        raise ValueError(f"{name}: the last dimension must be contiguous "
                         f"(stride 1), got strides {list(v.strides)}")


def _stride(v, dim):
    """The stride of `dim`, 0 when the dimension has one element (its stride
    is never multiplied by anything but 0, and torch leaves it arbitrary)."""
    return v.strides[dim] if v.shape[dim] > 1 else 0


def _allocate_like(query, shape, name):
    mod = type(query).__module__.split(".")[0]
    if mod == "torch":
        import torch
        return torch.empty(shape, dtype=query.dtype, device=query.device)
    if mod == "numpy":
        import numpy
        return numpy.empty(shape, dtype=query.dtype)
    raise TypeError(f"{name}=None needs a torch tensor or numpy array query "
                    f"to allocate from; pass {name}= for "
                    f"{type(query).__name__} inputs")


def _check_placement(v):
    """Every tensor on the query's device; True when that is the host (the
    interpreter runs the kernel)."""
    q = v["query"]
    host = not q.is_cuda
    for name, x in v.items():
        if x.is_cuda == host:
            raise ValueError(
                f"{name}: on {'a CUDA device' if x.is_cuda else 'the CPU'} "
                f"but query is on {'the CPU' if host else 'a CUDA device'}")
        if (not host and x.device is not None and q.device is not None and
                x.device != q.device):
            raise ValueError(f"{name}: on cuda:{x.device} but query is on "
                             f"cuda:{q.device}")
    return host


def _check_dtypes(v, like_query, int32):
    """query f16/bf16, the `like_query` tensors (those given) of its dtype,
    the `int32` ones int32."""
    q = v["query"]
    if q.dtype not in ("f16", "bf16"):
        raise TypeError(f"query: expected float16 or bfloat16, got "
                        f"{q.dtype_name()}")
    for name in like_query:
        if name in v and v[name].dtype != q.dtype:
            raise TypeError(f"{name}: expected {q.dtype_name()} like query, "
                            f"got {v[name].dtype_name()}")
    for name in int32:
        if v[name].dtype != "i32":
            raise TypeError(f"{name}: expected int32, got "
                            f"{v[name].dtype_name()}")


def _check_cache(v):
    """The caches against each other and the query: one shape, the query's
    head_dim, a whole GQA group per KV head, dense last dimensions."""
    q, kc, vc = v["query"], v["key_cache"], v["value_cache"]
    num_heads, head_dim = q.shape[1], q.shape[2]
    _, page_size, num_kv_heads, kv_dim = kc.shape
    if vc.shape != kc.shape:
        raise ValueError(f"value_cache: shape {list(vc.shape)} differs from "
                         f"key_cache's {list(kc.shape)}")
    if kv_dim != head_dim:
        raise ValueError(f"key_cache: head_dim {kv_dim} differs from query's "
                         f"{head_dim}")
    if num_kv_heads == 0:
        raise ValueError("key_cache: num_kv_heads is 0")
    if num_heads % num_kv_heads:
        raise ValueError(f"query: num_heads {num_heads} is not a multiple of "
                         f"num_kv_heads {num_kv_heads}")
    if page_size == 0:
        raise ValueError("key_cache: block_size is 0")
    for name, x in v.items():
        if x.dtype != "i32" or name == "block_table":
            _dense_last(x, name)


def _check_scale(scale, head_dim):
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim) if head_dim else 1.0
    scale = _args.check_float(scale, {"type": "f32", "bits": 32}, "scale")
    if not math.isfinite(scale):
        raise ValueError(f"scale: must be finite, got {scale}")
    return scale


def _compiled(what, src, names, num_warps, device, key, describe,
              wgmma=True, checked=False):
    """The kernels `names` of `src` for `device`, compiled once per `key`
    (`num_warps[name]` each; in checked mode with `checked`)."""
    kernels = _kernels.get(key)
    if kernels is None:
        sm = jit.resolve_sm(None) if device is None else _device_sm(device)
        try:
            kernels = [jit.compile(src, sm=sm, num_warps=num_warps[name],
                                   kernel=name, wgmma=wgmma, checked=checked)
                       for name in names]
        except jit.CompilationError as e:
            raise NotImplementedError(
                f"{what}: the GPU backend cannot compile the specialization "
                f"{describe}:\n{e}") from e
        with _lock:
            kernels = _kernels.setdefault(key, kernels)
    return kernels


def paged_decode_attention(query, key_cache, value_cache, block_table,
                           seq_lens, scale=None, out=None, *,
                           max_seq_len=None, num_splits=None, checked=False):
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

    num_heads must be a multiple of num_kv_heads (grouped-query attention:
    query head h reads KV head h // (num_heads // num_kv_heads)); the group
    may be 1..64 and head_dim 1..256 (padded to a power of two inside the
    kernel; the padding is never read). Returns `out`. Launches two kernels on
    the current stream; nothing synchronizes and the grids depend on shapes
    only, so the call can be captured in a CUDA graph. On the host (numpy)
    seq_lens is checked against the block table (ValueError naming the
    sequence) and the interpreter checks every access; on the GPU the block
    table and lengths are not read by the host and are trusted as vLLM
    trusts them (a seq_len beyond its row reads the next row's entries),
    except that checked=True catches entries outside the cache.
    """
    return _paged_decode(query, key_cache, value_cache, block_table,
                         seq_lens, scale, out, max_seq_len, num_splits,
                         checked=checked)


def _paged_decode(query, key_cache, value_cache, block_table, seq_lens,
                  scale, out, max_seq_len, num_splits, block_n=None,
                  num_warps=None, transposed=None, checked=False):
    """paged_decode_attention, with the tile height, warps and form of the
    split kernel open for benchmarks and tests."""
    items = [("query", query, ("num_seqs", "num_heads", "head_dim")),
             ("key_cache", key_cache,
              ("num_blocks", "block_size", "num_kv_heads", "head_dim")),
             ("value_cache", value_cache,
              ("num_blocks", "block_size", "num_kv_heads", "head_dim")),
             ("block_table", block_table, ("num_seqs", "max_blocks")),
             ("seq_lens", seq_lens, ("num_seqs",))]
    if out is not None:
        items.append(("out", out, ("num_seqs", "num_heads", "head_dim")))
    v = _views(items)
    q, kc, vc, bt, lens = (v["query"], v["key_cache"], v["value_cache"],
                           v["block_table"], v["seq_lens"])

    host = _check_placement(v)
    _check_dtypes(v, ("key_cache", "value_cache", "out"),
                  ("block_table", "seq_lens"))

    # Shapes.
    num_seqs, num_heads, head_dim = q.shape
    num_blocks, page_size, num_kv_heads, kv_dim = kc.shape
    _check_cache(v)
    if bt.shape[0] != num_seqs:
        raise ValueError(f"block_table: {bt.shape[0]} rows for {num_seqs} "
                         "sequences")
    if lens.shape[0] != num_seqs:
        raise ValueError(f"seq_lens: {lens.shape[0]} entries for {num_seqs} "
                         "sequences")
    if "out" in v and v["out"].shape != q.shape:
        raise ValueError(f"out: shape {list(v['out'].shape)} differs from "
                         f"query's {list(q.shape)}")
    if num_seqs > 1 and lens.strides[0] != 1:
        raise ValueError(f"seq_lens: must be contiguous, got stride "
                         f"{lens.strides[0]}")

    scale = _check_scale(scale, head_dim)
    checked = _check_checked(checked, num_blocks)
    if host:
        _check_seq_lens(lens, bt.shape[1], page_size)

    group = num_heads // num_kv_heads if num_heads else 1
    # What the generated kernels can do (see the template's header).
    if not 1 <= head_dim <= 256:
        _unsupported(f"head_dim {head_dim} (needs 1..256)")
    if group > 64:
        _unsupported(f"num_heads / num_kv_heads = {group} (the GQA group "
                     "must be at most 64)")
    if page_size > 4096:
        _unsupported(f"block_size {page_size} (at most 4096)")
    if num_seqs > _I32_MAX:
        _unsupported(f"num_seqs {num_seqs} (grid x is below 2^31)")
    for name, n in (("num_kv_heads", num_kv_heads), ("num_heads", num_heads)):
        if n > 65535:
            _unsupported(f"{name} {n} (grid y is at most 65535)")
    max_tokens = bt.shape[1] * page_size
    if max_seq_len is not None:
        max_seq_len = _args.to_int(max_seq_len, "max_seq_len")
        if max_seq_len < 0:
            raise ValueError(f"max_seq_len: must be >= 0, got {max_seq_len}")
        max_tokens = min(max_tokens, max_seq_len)
    if max_tokens > _I32_MAX // 2:
        _unsupported(f"{max_tokens} tokens per sequence (token indices are "
                     "32-bit)")
    if out is None:
        out = _allocate_like(query, (num_seqs, num_heads, head_dim), "out")
        o = _args.view(out, "out")
    else:
        o = v["out"]
    if num_seqs == 0 or num_heads == 0:
        return out
    # Split-KV needs scratch for the partials, allocated through torch (or
    # numpy in the interpreter); other CUDA arrays run one split.
    scratch = type(query).__module__.split(".")[0] in ("torch", "numpy")

    if block_n is None or num_warps is None:
        cfg_n, cfg_w = decode_config(head_dim, group)
        block_n = block_n or cfg_n
        num_warps = num_warps or cfg_w
    if transposed is None:
        transposed = decode_transposed(head_dim, group)
    if num_splits is None and not scratch:
        num_splits = 1
    if num_splits is None:
        sms = 132 if host else _sm_count(q.device)
        num_splits = num_splits_for(num_seqs, num_kv_heads, max_tokens,
                                    block_n, sms)
    else:
        num_splits = _args.to_int(num_splits, "num_splits")
        if not 1 <= num_splits <= MAX_SPLITS:
            raise ValueError(f"num_splits: must be in [1, {MAX_SPLITS}], got "
                             f"{num_splits}")
        if num_splits > 1 and not scratch:
            raise TypeError("num_splits > 1 allocates the split partials "
                            "with torch: pass torch tensors, or num_splits=1 "
                            f"for {type(query).__name__} inputs")
    # Tokens per split: a multiple of block_n; drop splits that would start
    # past max_tokens.
    tps = -(-max(1, -(-max_tokens // num_splits)) // block_n) * block_n
    num_splits = max(1, min(num_splits, -(-max_tokens // tps)))

    q_hs, o_hs = _stride(q, 1), _stride(o, 1)
    for name, hs in (("query", q_hs), ("out", o_hs)):
        if hs * (group - 1) + head_dim > _I32_MAX:
            _unsupported(f"{name} head stride {hs} (in-tile offsets are "
                         "32-bit)")
    strides = (_stride(q, 0), q_hs, _stride(bt, 0),
               _stride(kc, 0), _stride(kc, 1), _stride(kc, 2),
               _stride(vc, 0), _stride(vc, 1), _stride(vc, 2))
    out_strides = (_stride(o, 0), o_hs)
    # Vector loads need 16-byte aligned rows; anything else gets a variant
    # without the divisibility facts (slower, still right).
    aligned_pointers = all(x.ptr % 16 == 0 for x in (o, q, kc, vc, bt))
    aligned_strides = all(s % 16 == 0 for i, s in
                          enumerate(strides + out_strides) if i != 2)
    partials = num_splits > 1
    spec = (q.dtype, group, head_dim, page_size, block_n, aligned_pointers,
            aligned_strides, partials, bool(transposed), checked)
    common = (query, key_cache, value_cache, block_table, seq_lens, scale,
              *((num_blocks,) if checked else ()), tps, *strides)
    grid = (num_seqs, num_kv_heads, num_splits)
    partial_views = []  # views of the partials, for the launches
    if partials:
        rows = num_seqs * num_heads * num_splits
        part_o = _allocate_scratch(query, (rows, _tile_width(head_dim)))
        part_ml = _allocate_scratch(query, (rows, 2))
        partial_views = [_args.view(x, "scratch") for x in (part_o, part_ml)]
        launches = [("paged_decode_split", grid, (part_o, part_ml, *common)),
                    ("paged_decode_combine", (num_seqs, num_heads, 1),
                     (out, part_o, part_ml, *out_strides, num_splits))]
    else:
        launches = [("paged_decode_attention", grid,
                     (out, *common, *out_strides))]

    src = paged_decode_source(*spec)
    if host:
        for name, g, a in launches:
            jit.interpret(src, g, *a, kernel=name)
        return out
    device = q.device
    warps = {name: 4 if name == "paged_decode_combine" else num_warps
             for name, _, _ in launches}
    kernels = _compiled("paged_decode_attention", src,
                        [name for name, _, _ in launches], warps, device,
                        ("decode", spec, num_warps, device),
                        f"dtype={q.dtype} group={group} head_dim={head_dim} "
                        f"block_size={page_size}", checked=checked)
    for kernel, (_, g, a) in zip(kernels, launches):
        _launch(kernel, g, a, list(v.values()) + [o] + partial_views, device)
    return out


def paged_prefill_source(dtype="f16", group=4, head_dim=128, page_size=16,
                         block_m=64, block_n=64, aligned_pointers=True,
                         aligned_strides=True, separate=True, checked=False):
    """The MLIR of one specialization of the paged prefill kernel
    (@paged_prefill_attention), from kernels/paged_prefill.mlir.in: with
    `separate`, the chunk's own keys/values come from k_new/v_new tensors;
    without, from the cache after the context. With `checked`, the kernel
    takes `num_blocks` after `scale` and bounds every paged load by it."""
    return _specialize("paged_prefill.mlir.in", {"SEPARATE": separate},
                       dtype, head_dim, aligned_pointers, aligned_strides,
                       checked,
                       GROUP=group, PAGE_SIZE=page_size, BLOCK_M=block_m,
                       BLOCK_N=block_n)


def prefill_config(head_dim):
    """(block_m, block_n, num_warps) of the prefill kernel for a head
    dimension: 128 query rows on 8 warps (two wgmma warpgroups) and 64 keys
    per step, the fastest tile shape benchmarked at head dim 128
    (docs/performance.md, "Prefill tiles"); head dim 256 takes 32 keys per
    step, the largest tile that does not spill."""
    return (128, 64, 8) if _tile_width(head_dim) <= 128 else (128, 32, 8)


def paged_prefill_attention(query, key_cache, value_cache, block_table,
                            query_start_loc, seq_lens, scale=None, out=None,
                            *, key=None, value=None, max_query_len=None,
                            checked=False):
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
    return _paged_prefill(query, key_cache, value_cache, block_table,
                          query_start_loc, seq_lens, scale, out, key, value,
                          max_query_len, checked=checked)


def _paged_prefill(query, key_cache, value_cache, block_table,
                   query_start_loc, seq_lens, scale, out, key, value,
                   max_query_len, block_m=None, block_n=None,
                   num_warps=None, wgmma=True, checked=False):
    """paged_prefill_attention with the tile shape (and wgmma, on sm_90)
    open for benchmarks."""
    what = "paged_prefill_attention"
    if (key is None) != (value is None):
        raise ValueError(f"{'value' if key is not None else 'key'}: key and "
                         "value are given together or not at all")
    tok = ("num_tokens", "num_heads", "head_dim")
    items = [("query", query, tok),
             ("key_cache", key_cache,
              ("num_blocks", "block_size", "num_kv_heads", "head_dim")),
             ("value_cache", value_cache,
              ("num_blocks", "block_size", "num_kv_heads", "head_dim")),
             ("block_table", block_table, ("num_seqs", "max_blocks")),
             ("query_start_loc", query_start_loc, ("num_seqs + 1",)),
             ("seq_lens", seq_lens, ("num_seqs",))]
    if out is not None:
        items.append(("out", out, tok))
    if key is not None:
        items += [("key", key, ("num_tokens", "num_kv_heads", "head_dim")),
                  ("value", value, ("num_tokens", "num_kv_heads", "head_dim"))]
    v = _views(items)
    q, kc, vc, bt = (v["query"], v["key_cache"], v["value_cache"],
                     v["block_table"])
    host = _check_placement(v)
    _check_dtypes(v, ("key_cache", "value_cache", "out", "key", "value"),
                  ("block_table", "query_start_loc", "seq_lens"))
    num_tokens, num_heads, head_dim = q.shape
    num_blocks, page_size, num_kv_heads, _ = kc.shape
    _check_cache(v)
    num_seqs = bt.shape[0]
    if v["seq_lens"].shape[0] != num_seqs:
        raise ValueError(f"seq_lens: {v['seq_lens'].shape[0]} entries for "
                         f"{num_seqs} sequences (block_table rows)")
    if v["query_start_loc"].shape[0] != num_seqs + 1:
        raise ValueError(f"query_start_loc: {v['query_start_loc'].shape[0]} "
                         f"entries for {num_seqs} sequences (needs "
                         f"{num_seqs + 1})")
    for name in ("query_start_loc", "seq_lens"):
        x = v[name]
        if x.shape[0] > 1 and x.strides[0] != 1:
            raise ValueError(f"{name}: must be contiguous, got stride "
                             f"{x.strides[0]}")
    if "out" in v and v["out"].shape != q.shape:
        raise ValueError(f"out: shape {list(v['out'].shape)} differs from "
                         f"query's {list(q.shape)}")
    for name in ("key", "value"):
        if name in v and v[name].shape != (num_tokens, num_kv_heads, head_dim):
            raise ValueError(
                f"{name}: expected shape {[num_tokens, num_kv_heads, head_dim]}"
                f" (query's tokens, the cache's heads), got "
                f"{list(v[name].shape)}")
    scale = _check_scale(scale, head_dim)
    checked = _check_checked(checked, num_blocks, what)
    group = num_heads // num_kv_heads if num_heads else 1

    if max_query_len is None:
        max_q = num_tokens
    else:
        max_q = _args.to_int(max_query_len, "max_query_len")
        if max_q < 0:
            raise ValueError(f"max_query_len: must be >= 0, got {max_q}")
        max_q = min(max_q, num_tokens)
    if host:
        _check_chunks(v, max_q, bt.shape[1] * page_size, key is not None)

    cfg = prefill_config(head_dim)
    block_m = block_m or cfg[0]
    block_n = block_n or cfg[1]
    num_warps = num_warps or cfg[2]
    if not 1 <= head_dim <= 256:
        _unsupported(f"head_dim {head_dim} (needs 1..256)", what)
    if num_seqs > _I32_MAX:
        _unsupported(f"num_seqs {num_seqs} (grid x is below 2^31)", what)
    if num_heads > 65535:
        _unsupported(f"num_heads {num_heads} (grid y is at most 65535)", what)
    if -(-max_q // block_m) > 65535:
        _unsupported(f"max_query_len {max_q} (grid z, chunks of {block_m} "
                     "tokens, is at most 65535)", what)
    if bt.shape[1] * page_size > _I32_MAX // 2 or num_tokens > _I32_MAX // 2:
        _unsupported("sequences or batches past 2^30 tokens (token indices "
                     "are 32-bit)", what)

    if out is None:
        out = _allocate_like(query, q.shape, "out")
        o = _args.view(out, "out")
    else:
        o = v["out"]
    if num_tokens == 0 or num_seqs == 0 or num_heads == 0:
        return out

    # In-tile offsets are 32-bit: a tile's rows times the token stride.
    tiled = [("query", q, block_m), ("out", o, block_m)]
    if key is not None:
        tiled += [("key", v["key"], block_n), ("value", v["value"], block_n)]
    for name, x, rows in tiled:
        ts = _stride(x, 0)
        if ts * (rows - 1) + _tile_width(head_dim) > _I32_MAX:
            _unsupported(f"{name} token stride {ts} (in-tile offsets are "
                         "32-bit)", what)
    strides = [_stride(bt, 0), _stride(q, 0), _stride(q, 1),
               _stride(o, 0), _stride(o, 1)]
    if key is not None:
        strides += [_stride(v["key"], 0), _stride(v["key"], 1),
                    _stride(v["value"], 0), _stride(v["value"], 1)]
    strides += [_stride(kc, 0), _stride(kc, 1), _stride(kc, 2),
                _stride(vc, 0), _stride(vc, 1), _stride(vc, 2)]
    data = [o, q, kc, vc, bt] + ([v["key"], v["value"]] if key is not None
                                 else [])
    aligned_pointers = all(x.ptr % 16 == 0 for x in data)
    aligned_strides = all(x % 16 == 0 for x in strides[1:])
    separate = key is not None
    spec = (q.dtype, group, head_dim, page_size, block_m, block_n,
            aligned_pointers, aligned_strides, separate, checked)
    src = paged_prefill_source(*spec)
    args = ([out, query] + ([key, value] if separate else []) +
            [key_cache, value_cache, block_table, query_start_loc, seq_lens,
             scale] + ([num_blocks] if checked else []) + strides)
    grid = (num_seqs, num_heads, max(1, -(-max_q // block_m)))
    if host:
        jit.interpret(src, grid, *args, kernel=what)
        return out
    device = q.device
    (kernel,) = _compiled(what, src, [what], {what: num_warps}, device,
                          ("prefill", spec, num_warps, wgmma, device),
                          f"dtype={q.dtype} head_dim={head_dim} "
                          f"block_size={page_size}", wgmma, checked)
    _launch(kernel, grid, args, list(v.values()) + [o], device)
    return out


def _launch(kernel, grid, args, views, device):
    """Launches with `args` validated by the op: its tensors (whose views
    are `views`) go in as their addresses, without the per-argument checks
    of kernel[grid](...) (a few microseconds each, on every call)."""
    address = {id(x.obj): x.ptr for x in views}
    values = [a if isinstance(a, (int, float)) else address[id(a)]
              for a in args]
    if device is None:
        from . import _cuda
        device = _cuda.current_device()
    kernel._launch_trusted(_args.check_grid(grid), values, device)


def _check_chunks(v, max_q, capacity, separate):
    """The interpreter's checks of what the GPU trusts: query_start_loc runs
    from 0 to num_tokens without decreasing, no chunk is longer than
    max_query_len, no sequence is shorter than its chunk or longer than its
    block-table row holds."""
    qs = [int(x) for x in v["query_start_loc"].obj.reshape(-1)]
    lens = [int(x) for x in v["seq_lens"].obj.reshape(-1)]
    num_tokens = v["query"].shape[0]
    if qs[0] != 0 or qs[-1] != num_tokens:
        raise ValueError(f"query_start_loc: must run from 0 to num_tokens "
                         f"{num_tokens}, got {qs[0]} .. {qs[-1]}")
    for s in range(len(lens)):
        if qs[s + 1] < qs[s]:
            raise ValueError(f"query_start_loc: decreases at sequence {s} "
                             f"({qs[s]} -> {qs[s + 1]})")
    for s, n in enumerate(lens):
        chunk = qs[s + 1] - qs[s]
        if n < 0:
            raise ValueError(f"seq_lens[{s}]: {n}, must be >= 0")
        if chunk > max_q:
            raise ValueError(f"max_query_len: {max_q}, but sequence {s}'s "
                             f"chunk has {chunk} tokens")
        if n < chunk:
            raise ValueError(f"seq_lens[{s}]: {n} tokens, fewer than its "
                             f"chunk's {chunk}")
        if (n if not separate else n - chunk) > capacity:
            raise ValueError(f"seq_lens[{s}]: {n} tokens, more than its "
                             f"block_table row holds ({capacity})")


def _check_seq_lens(lens, max_blocks, block_size):
    """The interpreter's check of what the GPU trusts: every length in
    [0, max_blocks * block_size], the tokens its block-table row can name
    (a longer one would read the next row's entries)."""
    capacity = max_blocks * block_size
    for s, n in enumerate(int(x) for x in lens.obj.reshape(-1)):
        if n < 0:
            raise ValueError(f"seq_lens[{s}]: {n}, must be >= 0")
        if n > capacity:
            raise ValueError(
                f"seq_lens[{s}]: {n} tokens, more than its block_table row "
                f"holds ({capacity} = {max_blocks} blocks of {block_size})")


def _check_checked(checked, num_blocks, what="paged_decode_attention"):
    """`checked` as a bool; checked mode passes num_blocks as an i32."""
    if not isinstance(checked, bool):
        raise TypeError(f"checked: expected True or False, got "
                        f"{_args.describe(checked)}")
    if checked and num_blocks > _I32_MAX:
        _unsupported(f"checked=True with {num_blocks} cache blocks (num_blocks "
                     "is 32-bit)", what)
    return checked

def _allocate_scratch(query, shape):
    """f32 scratch for the split partials, from the query's framework (torch:
    the caching allocator, stream-ordered and graph-safe)."""
    if type(query).__module__.split(".")[0] == "torch":
        import torch
        return torch.empty(shape, dtype=torch.float32, device=query.device)
    import numpy
    return numpy.empty(shape, dtype=numpy.float32)


_sm_counts = {}


def _sm_count(device):
    """The device's SM count, asked of the driver once per device (it is on
    every call's path)."""
    device = 0 if device is None else device
    count = _sm_counts.get(device)
    if count is None:
        from . import _cuda
        try:
            count = _cuda.device_attribute(
                _cuda.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)
        except _cuda.CudaError as e:
            raise _cuda.CudaError(f"paged_decode_attention: {e}") from None
        _sm_counts[device] = count
    return count


def _device_sm(device):
    from . import _cuda
    try:
        sm = _cuda.compute_capability(device)
    except _cuda.CudaError as e:
        raise _cuda.CudaError(f"quire.ops: {e}") from None
    if sm not in jit.SUPPORTED_SMS:
        raise ValueError(f"quire.ops: cuda:{device} is sm_{sm}; "
                         f"Quire generates code for sm "
                         f"{', '.join(map(str, jit.SUPPORTED_SMS))}")
    return sm


__all__ = ["paged_decode_attention", "paged_decode_source", "decode_config",
           "decode_transposed", "num_splits_for", "MAX_SPLITS",
           "paged_prefill_attention", "paged_prefill_source", "prefill_config"]
