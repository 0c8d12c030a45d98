"""Ready-made kernels with framework-facing signatures.

    out = quire.ops.paged_decode_attention(query, key_cache, value_cache,
                                           block_table, seq_lens)

CUDA tensors (torch, or anything with `__cuda_array_interface__`) run on the
GPU; numpy arrays run the same kernel in the reference interpreter, which is
how the op is tested without a GPU. Every argument is validated before
anything is compiled or launched; a shape the GPU backend cannot handle yet
raises NotImplementedError with the reason rather than running a wrong kernel.
"""

import math
import os
import string
import threading

from . import _args, jit

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


def _select(text, partials):
    """Keeps the `// IF PARTIALS` / `// ELSE` / `// ENDIF` branch that
    `partials` picks; the marker lines go."""
    out, keep = [], [True]
    for line in text.splitlines(keepends=True):
        tag = line.strip()
        if tag == "// IF PARTIALS":
            keep.append(partials)
        elif tag == "// ELSE":
            keep[-1] = not keep[-1]
        elif tag == "// ENDIF":
            keep.pop()
        elif all(keep):
            out.append(line)
    return "".join(out)


def paged_decode_source(dtype="f16", group=4, head_dim=128, page_size=16,
                        block_n=64, aligned_pointers=True,
                        aligned_strides=True, partials=True):
    """The MLIR of one specialization of the paged decode kernels, from
    kernels/paged_decode_split.mlir.in: with `partials`, split-KV
    (@paged_decode_split writing partials, @paged_decode_combine merging
    them); without, one split (@paged_decode_attention writes `out`)."""
    key = (dtype, group, head_dim, page_size, block_n, aligned_pointers,
           aligned_strides, partials)
    src = _sources.get(key)
    if src is None:
        gp = _tile_rows(group)
        dp = _tile_width(head_dim)
        text = _select(_template("paged_decode_split.mlir.in").template,
                       partials)
        src = string.Template(text).substitute(
            DTYPE=dtype, GROUP=group, GP=gp, D=head_dim, DP=dp,
            COLS=f"cols = {head_dim} : i32, " if dp > head_dim else "",
            PAGE_SIZE=page_size, BLOCK_N=block_n, SPLITS_PAD=MAX_SPLITS,
            PTR_DIV=_DIV if aligned_pointers else "",
            STRIDE_DIV=_DIV if aligned_strides else "")
        src = _sources.setdefault(key, src)
    return src


def decode_config(head_dim, group):
    """(block_n, num_warps) of the split kernel for a head dimension and GQA
    group. Measured on an H200 (docs/performance.md, bench/decode_tune.py):
    one warp on 16-token tiles, staged through shared memory with cp.async
    two tiles deep, was within 3% of the best configuration on every decode
    shape (no cross-warp reductions, small register footprint, many CTAs per
    SM); wider heads (256) take 4 warps on 32-token tiles, whose accumulator
    would not fit one warp's registers. Groups padded past 16 rows get a
    warp per 16 rows."""
    dp = _tile_width(head_dim)
    rows = _tile_rows(group)
    return (16, rows // 16) if dp <= 128 else (32, max(4, rows // 16))


def num_splits_for(num_seqs, num_kv_heads, max_tokens, block_n, sms=132):
    """Splits of each sequence: enough programs for about four per SM, at
    least 4 tiles of block_n tokens per split, at most MAX_SPLITS. Depends on
    the shapes only (not on seq_lens), so a launch can be graph-captured."""
    programs = max(1, num_seqs * num_kv_heads)
    want = -(-4 * sms // programs)
    most = max(1, -(-max_tokens // (4 * block_n)))
    return max(1, min(want, most, MAX_SPLITS))


def _unsupported(reason):
    raise NotImplementedError(
        f"paged_decode_attention: {reason} is not supported by Quire's GPU "
        "backend yet")


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


def paged_decode_attention(query, key_cache, value_cache, block_table,
                           seq_lens, scale=None, out=None, *,
                           max_seq_len=None, num_splits=None):
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

    num_heads must be a multiple of num_kv_heads (grouped-query attention:
    query head h reads KV head h // (num_heads // num_kv_heads)); the group
    may be 1..64 and head_dim 1..256 (padded to a power of two inside the
    kernel; the padding is never read). Returns `out`. Launches two kernels on
    the current stream; nothing synchronizes and the grids depend on shapes
    only, so the call can be captured in a CUDA graph. The block table and
    lengths are trusted as vLLM trusts them (no device-side bounds check on
    the GPU; the interpreter checks every access).
    """
    return _paged_decode(query, key_cache, value_cache, block_table,
                         seq_lens, scale, out, max_seq_len, num_splits)


def _paged_decode(query, key_cache, value_cache, block_table, seq_lens,
                  scale, out, max_seq_len, num_splits, block_n=None,
                  num_warps=None):
    """paged_decode_attention, with the tile height and warps of the split
    kernel open for benchmarks (bench/quire_decode.py)."""
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

    # Where it runs: every tensor on the query's device.
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

    # Dtypes.
    if q.dtype not in ("f16", "bf16"):
        raise TypeError(f"query: expected float16 or bfloat16, got "
                        f"{q.dtype_name()}")
    for name in ("key_cache", "value_cache", "out"):
        if name in v and v[name].dtype != q.dtype:
            raise TypeError(f"{name}: expected {q.dtype_name()} like query, "
                            f"got {v[name].dtype_name()}")
    for name in ("block_table", "seq_lens"):
        if v[name].dtype != "i32":
            raise TypeError(f"{name}: expected int32, got "
                            f"{v[name].dtype_name()}")

    # Shapes.
    num_seqs, num_heads, head_dim = q.shape
    num_blocks, page_size, num_kv_heads, kv_dim = kc.shape
    if vc.shape != kc.shape:
        raise ValueError(f"value_cache: shape {list(vc.shape)} differs from "
                         f"key_cache's {list(kc.shape)}")
    if kv_dim != head_dim:
        raise ValueError(f"key_cache: head_dim {kv_dim} differs from query's "
                         f"{head_dim}")
    if bt.shape[0] != num_seqs:
        raise ValueError(f"block_table: {bt.shape[0]} rows for {num_seqs} "
                         "sequences")
    if lens.shape[0] != num_seqs:
        raise ValueError(f"seq_lens: {lens.shape[0]} entries for {num_seqs} "
                         "sequences")
    if "out" in v and v["out"].shape != q.shape:
        raise ValueError(f"out: shape {list(v['out'].shape)} differs from "
                         f"query's {list(q.shape)}")
    if num_kv_heads == 0:
        raise ValueError("key_cache: num_kv_heads is 0")
    if num_heads % num_kv_heads:
        raise ValueError(f"query: num_heads {num_heads} is not a multiple of "
                         f"num_kv_heads {num_kv_heads}")
    if page_size == 0:
        raise ValueError("key_cache: block_size is 0")
    for name in ("query", "key_cache", "value_cache", "block_table", "out"):
        if name in v:
            _dense_last(v[name], name)
    if num_seqs > 1 and lens.strides[0] != 1:
        raise ValueError(f"seq_lens: must be contiguous, got stride "
                         f"{lens.strides[0]}")

    if scale is None:
        scale = 1.0 / math.sqrt(head_dim) if head_dim else 1.0
    scale = _args.check_float(scale, {"type": "f32", "bits": 32}, "scale")
    if not math.isfinite(scale):
        raise ValueError(f"scale: must be finite, got {scale}")

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
            aligned_strides, partials)
    common = (query, key_cache, value_cache, block_table, seq_lens, scale,
              tps, *strides)
    grid = (num_seqs, num_kv_heads, num_splits)
    if partials:
        rows = num_seqs * num_heads * num_splits
        part_o = _allocate_scratch(query, (rows, _tile_width(head_dim)))
        part_ml = _allocate_scratch(query, (rows, 2))
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
    key = (spec, num_warps, device)
    kernels = _kernels.get(key)
    if kernels is None:
        sm = jit.resolve_sm(None) if device is None else _device_sm(device)
        try:
            kernels = [jit.compile(src, sm=sm,
                                   num_warps=4 if name == "paged_decode_combine"
                                   else num_warps, kernel=name)
                       for name, _, _ in launches]
        except jit.CompilationError as e:
            raise NotImplementedError(
                "paged_decode_attention: the GPU backend cannot compile the "
                f"specialization dtype={q.dtype} group={group} "
                f"head_dim={head_dim} block_size={page_size}:\n{e}") from e
        with _lock:
            kernels = _kernels.setdefault(key, kernels)
    for kernel, (_, g, a) in zip(kernels, launches):
        kernel[g](*a)
    return out


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
        raise _cuda.CudaError(f"paged_decode_attention: {e}") from None
    if sm not in jit.SUPPORTED_SMS:
        raise ValueError(f"paged_decode_attention: cuda:{device} is sm_{sm}; "
                         f"Quire generates code for sm "
                         f"{', '.join(map(str, jit.SUPPORTED_SMS))}")
    return sm


__all__ = ["paged_decode_attention", "paged_decode_source", "decode_config",
           "num_splits_for", "MAX_SPLITS"]
