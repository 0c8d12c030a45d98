"""Argument checks of the attention ops, shared by the decode, prefill and
unified entry points. Each check names the argument it rejects: a wrong
dtype is a TypeError, a wrong shape, device, stride or value a ValueError,
a shape the kernels cannot handle yet a NotImplementedError with the
reason.

What is checked where: shapes, dtypes, strides and devices always; on the
host (numpy arrays, run by the interpreter) also the lengths and start
locations the GPU path trusts, since reading a device tensor's values would
synchronize the device on every call."""

import math

from .. import _args

I32_MAX = 2 ** 31 - 1
KV_DIMS = ("num_blocks", "block_size", "num_kv_heads", "head_dim")


class Unsupported(NotImplementedError):
    pass


class ArgumentError(ValueError, RuntimeError):
    """A wrong shape, stride, device or value, as torch.ops.quire.* raise it
    (torch's ops raise RuntimeError for their argument checks)."""


class ArgumentTypeError(TypeError, RuntimeError):
    """A wrong dtype or argument type, as torch.ops.quire.* raise it."""


def unsupported(what, reason):
    raise Unsupported(f"{what}: {reason} is not supported by Quire's GPU "
                      "backend yet")


def views(items):
    """The ArrayViews of `items` [(name, value, dim names)], each checked
    for being a tensor of that rank with no negative strides."""
    out = {}
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
        out[name] = v
    return out


def dense_last(v, name):
    if v.shape[-1] > 1 and v.strides[-1] != 1:
        raise ValueError(f"{name}: the last dimension must be contiguous "
                         f"(stride 1), got strides {list(v.strides)}")


def contiguous_1d(v, name):
    if v.shape[0] > 1 and v.strides[0] != 1:
        raise ValueError(f"{name}: must be contiguous, got stride "
                         f"{v.strides[0]}")


def stride(v, dim):
    """The stride of `dim`, 0 when the dimension has one element (its stride
    is never multiplied by anything but 0, and torch leaves it arbitrary)."""
    return v.strides[dim] if v.shape[dim] > 1 else 0


def check_placement(v, first):
    """Every tensor on `first`'s device; True when that is the host (the
    interpreter runs the kernels)."""
    q = v[first]
    host = not q.is_cuda
    for name, x in v.items():
        if x.is_cuda == host:
            raise ValueError(
                f"{name}: on {'a CUDA device' if x.is_cuda else 'the CPU'} "
                f"but {first} is on {'the CPU' if host else 'a CUDA device'}")
        if (not host and x.device is not None and q.device is not None and
                x.device != q.device):
            raise ValueError(f"{name}: on cuda:{x.device} but {first} is on "
                             f"cuda:{q.device}")
    return host


def data_dtype(v, host):
    """The element type of attention data: f16 or bf16 (on the host a
    uint16 array is bf16 bit patterns, as the interpreter takes them)."""
    return "bf16" if host and v.dtype == "u16" else v.dtype


FP8 = _args.FP8


def check_dtypes(v, first, like_first, int32, host, caches=()):
    """`first` f16/bf16, the `like_first` tensors (those given) of its
    dtype, the `int32` ones int32, the `caches` (a key and a value cache)
    of its dtype or both of one fp8 type. Returns the data dtype."""
    q = v[first]
    dt = data_dtype(q, host)
    if dt not in ("f16", "bf16"):
        raise TypeError(f"{first}: expected float16 or bfloat16, got "
                        f"{q.dtype_name()}")
    if caches:
        kc, vc = (v[n] for n in caches)
        if kc.dtype in FP8 or vc.dtype in FP8:
            if kc.dtype != vc.dtype:
                raise TypeError(f"{caches[1]}: expected {kc.dtype_name()} "
                                f"like {caches[0]}, got {vc.dtype_name()}")
        else:
            like_first = tuple(caches) + tuple(like_first)
    for name in like_first:
        if name in v and data_dtype(v[name], host) != dt:
            fp8 = " or float8_e4m3fn/float8_e5m2" if name in caches else ""
            raise TypeError(f"{name}: expected {q.dtype_name()} like {first}"
                            f"{fp8}, got {v[name].dtype_name()}")
    for name in int32:
        if v[name].dtype != "i32":
            raise TypeError(f"{name}: expected int32, got "
                            f"{v[name].dtype_name()}")
    return dt


def check_cache(v, first, key, value):
    """The caches against each other and the query: one shape, the query's
    head_dim, a whole GQA group per KV head, dense last dimensions."""
    q, kc, vc = v[first], v[key], v[value]
    num_heads, head_dim = q.shape[1], q.shape[2]
    _, page_size, num_kv_heads, kv_dim = kc.shape
    if vc.shape != kc.shape:
        raise ValueError(f"{value}: shape {list(vc.shape)} differs from "
                         f"{key}'s {list(kc.shape)}")
    if kv_dim != head_dim:
        raise ValueError(f"{key}: head_dim {kv_dim} differs from {first}'s "
                         f"{head_dim}")
    if num_kv_heads == 0:
        raise ValueError(f"{key}: num_kv_heads is 0")
    if num_heads % num_kv_heads:
        raise ValueError(f"{first}: num_heads {num_heads} is not a multiple "
                         f"of num_kv_heads {num_kv_heads}")
    if page_size == 0:
        raise ValueError(f"{key}: block_size is 0")


def check_attention(v, q, k, vc, like, ints):
    """Placement, dtypes (q f16/bf16, the caches of its dtype or of one
    fp8 type, the `like` tensors of its dtype, the `ints` int32), the caches against q, dense last dimensions. Returns
    (host, dtype)."""
    host = check_placement(v, q)
    dtype = check_dtypes(v, q, tuple(like), ints, host, (k, vc))
    check_cache(v, q, k, vc)
    for name in (q, k, vc) + tuple(like):
        if name in v:
            dense_last(v[name], name)
    return host, dtype


def check_batch(v, num_seqs, lens, starts=None, first="query", whose=""):
    """`lens` [num_seqs] and `starts` [num_seqs + 1] (when given),
    contiguous, and `out` (when given) of `first`'s shape."""
    if v[lens].shape[0] != num_seqs:
        raise ValueError(f"{lens}: {v[lens].shape[0]} entries for {num_seqs} "
                         f"sequences{whose}")
    if starts is not None and v[starts].shape[0] != num_seqs + 1:
        raise ValueError(f"{starts}: {v[starts].shape[0]} entries for "
                         f"{num_seqs} sequences (needs {num_seqs + 1})")
    for name in (starts, lens):
        if name is not None:
            contiguous_1d(v[name], name)
    if "out" in v and v["out"].shape != v[first].shape:
        raise ValueError(f"out: shape {list(v['out'].shape)} differs from "
                         f"{first}'s {list(v[first].shape)}")


def check_num_splits(num_splits, most):
    """None (the op's choice) or an int in [1, most]."""
    if num_splits is None:
        return None
    num_splits = _args.to_int(num_splits, "num_splits")
    if not 1 <= num_splits <= most:
        raise ValueError(f"num_splits: must be in [1, {most}], got "
                         f"{num_splits}")
    return num_splits


def check_scale(scale, head_dim, name="scale"):
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim) if head_dim else 1.0
    scale = _args.check_float(scale, {"type": "f32", "bits": 32}, name)
    if not math.isfinite(scale):
        raise ValueError(f"{name}: must be finite, got {scale}")
    return scale


def check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"{name}: expected True or False, got "
                        f"{_args.describe(value)}")
    return value


def check_num_stages(num_stages):
    """A kernel's cp.async staging depth: None (its default) or 2..8."""
    if num_stages is not None and (
            isinstance(num_stages, bool) or not isinstance(num_stages, int)
            or not 2 <= num_stages <= 8):
        raise ValueError(f"num_stages must be None or an int in [2, 8], got "
                         f"{num_stages!r}")
    return num_stages


def check_checked(checked, num_blocks, what):
    """`checked` as a bool; checked mode passes num_blocks as an i32."""
    check_bool(checked, "checked")
    if checked and num_blocks > I32_MAX:
        unsupported(what, f"checked=True with {num_blocks} cache blocks "
                    "(num_blocks is 32-bit)")
    return checked


def check_window(window_size, causal):
    """(left, right) as flash-attn takes it: -1 is no limit; causal implies
    right = 0. Returns the left bound (-1: none)."""
    if (not isinstance(window_size, (tuple, list)) or len(window_size) != 2
            or not all(isinstance(w, int) and not isinstance(w, bool)
                       for w in window_size)):
        raise TypeError(f"window_size: expected a (left, right) tuple of "
                        f"ints, got {window_size!r}")
    left, right = window_size
    for side, w in (("left", left), ("right", right)):
        if w < -1:
            raise ValueError(f"window_size: {side} must be -1 (no window) or "
                             f">= 0, got {w}")
    if left > I32_MAX:
        raise ValueError(f"window_size: left {left} does not fit 32 bits")
    if causal and right not in (-1, 0):
        raise ValueError(f"window_size: right {right} with causal=True "
                         "(causal attention sees no key after the query; "
                         "pass -1 or 0)")
    if not causal and right >= 0:
        raise Unsupported("window_size: a right window without causal "
                          "(local attention) is not supported yet")
    return left


def check_softcap(softcap):
    """The logit soft cap: 0 (or None) for none, else a positive float."""
    if softcap is None:
        return 0.0
    softcap = _args.check_float(softcap, {"type": "f32", "bits": 32},
                                "softcap")
    if not math.isfinite(softcap) or softcap < 0:
        raise ValueError(f"softcap: must be 0 (none) or a positive finite "
                         f"float, got {softcap}")
    return softcap


def head_vector(v, name, num_heads, dtypes=("f32",)):
    """alibi_slopes / sinks: [num_heads], contiguous, of `dtypes`."""
    x = v[name]
    if x.dtype not in dtypes:
        want = " or ".join(_args.DTYPE_NAMES[d] for d in dtypes)
        raise TypeError(f"{name}: expected {want}, got {x.dtype_name()}")
    if x.shape != (num_heads,):
        raise ValueError(f"{name}: expected shape [{num_heads}] (one per "
                         f"query head), got {list(x.shape)}")
    contiguous_1d(x, name)


def descale_strides(v, name, num_seqs, num_kv_heads):
    """A descale factor: float32, one element (per tensor) or [num_seqs,
    num_kv_heads] (per sequence and KV head, flash-attn's shape). Returns
    its (sequence, head) strides, 0 for a broadcast dimension."""
    x = v[name]
    if x.dtype != "f32":
        raise TypeError(f"{name}: expected float32, got {x.dtype_name()}")
    if x.numel == 1 and len(x.shape) <= 2:
        return 0, 0
    if x.shape != (num_seqs, num_kv_heads):
        raise ValueError(f"{name}: expected one element or shape "
                         f"[{num_seqs}, {num_kv_heads}] (num_seqs, "
                         f"num_kv_heads), got {list(x.shape)}")
    s0, s1 = stride(x, 0), stride(x, 1)
    if max(s0 * (num_seqs - 1), s1 * (num_kv_heads - 1)) > I32_MAX:
        unsupported(name, "strides past 2^31 elements")
    return s0, s1


def tensor_items(pairs, dims):
    """[(name, value, dims)] for the given (non-None) optional tensors."""
    return [(n, x, dims[n]) for n, x in pairs if x is not None]


def check_lengths(lens, max_blocks, block_size, name="seq_lens"):
    """The interpreter's check of what the GPU trusts: every length in
    [0, max_blocks * block_size], the tokens its block-table row can name
    (a longer one would read the next row's entries)."""
    capacity = max_blocks * block_size
    for s, n in enumerate(int(x) for x in lens.obj.reshape(-1)):
        if n < 0:
            raise ValueError(f"{name}[{s}]: {n}, must be >= 0")
        if n > capacity:
            raise ValueError(
                f"{name}[{s}]: {n} tokens, more than its block_table row "
                f"holds ({capacity} = {max_blocks} blocks of {block_size})")


def check_chunks(qs_view, lens_view, num_tokens, max_q, capacity, separate,
                 qs_name="query_start_loc", lens_name="seq_lens",
                 max_name="max_query_len"):
    """The interpreter's checks of what the GPU trusts: the start locations
    run from 0 to num_tokens without decreasing, no chunk is longer than
    the stated maximum, no sequence is shorter than its chunk or longer
    than its block-table row holds. Returns the chunk lengths."""
    qs = [int(x) for x in qs_view.obj.reshape(-1)]
    lens = [int(x) for x in lens_view.obj.reshape(-1)]
    if qs[0] != 0 or qs[-1] != num_tokens:
        raise ValueError(f"{qs_name}: must run from 0 to num_tokens "
                         f"{num_tokens}, got {qs[0]} .. {qs[-1]}")
    for s in range(len(lens)):
        if qs[s + 1] < qs[s]:
            raise ValueError(f"{qs_name}: decreases at sequence {s} "
                             f"({qs[s]} -> {qs[s + 1]})")
    chunks = []
    for s, n in enumerate(lens):
        chunk = qs[s + 1] - qs[s]
        chunks.append(chunk)
        if n < 0:
            raise ValueError(f"{lens_name}[{s}]: {n}, must be >= 0")
        if chunk > max_q:
            raise ValueError(f"{max_name}: {max_q}, but sequence {s}'s "
                             f"chunk has {chunk} tokens")
        if n < chunk:
            raise ValueError(f"{lens_name}[{s}]: {n} tokens, fewer than its "
                             f"chunk's {chunk}")
        if (n if not separate else n - chunk) > capacity:
            raise ValueError(f"{lens_name}[{s}]: {n} tokens, more than its "
                             f"block_table row holds ({capacity})")
    return chunks


def to_int(value, name, lo=0):
    n = _args.to_int(value, name)
    if n < lo:
        raise ValueError(f"{name}: must be >= {lo}, got {n}")
    return n
