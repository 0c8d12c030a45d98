"""float64 references shared by the interpreter and GPU tests."""

import math


def paged_attention_ref(np, q, k_cache, v_cache, block_table, seq_lens,
                        scale=None):
    """out[s, h] = softmax(scale * q[s, h] . K^T) V over the sequence's
    tokens gathered through the block table, in float64 (numpy)."""
    S, Hq, D = q.shape
    P, Hkv = k_cache.shape[1], k_cache.shape[2]
    group = Hq // Hkv
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    out = np.zeros((S, Hq, D))
    for s in range(S):
        L = int(seq_lens[s])
        if L == 0:
            continue
        t = np.arange(L)
        blocks = block_table[s, t // P].astype(np.int64)
        k = k_cache[blocks, t % P].astype(np.float64)  # [L, Hkv, D]
        v = v_cache[blocks, t % P].astype(np.float64)
        for h in range(Hq):
            scores = k[:, h // group, :] @ q[s, h].astype(np.float64) * scale
            p = np.exp(scores - scores.max())
            p /= p.sum()
            out[s, h] = p @ v[:, h // group, :]
    return out


def make_paged_kv(np, rng, num_seqs, num_kv_heads, head_dim, page, lens,
                  dtype, spare_blocks=3):
    """A vLLM-layout cache [num_blocks, page, heads, dim] and block tables
    naming the blocks in random order."""
    max_blocks = max(1, max((l + page - 1) // page for l in lens))
    num_blocks = num_seqs * max_blocks + spare_blocks
    k = rng.standard_normal((num_blocks, page, num_kv_heads, head_dim)).astype(dtype)
    v = rng.standard_normal((num_blocks, page, num_kv_heads, head_dim)).astype(dtype)
    perm = rng.permutation(num_blocks)[: num_seqs * max_blocks]
    block_table = perm.reshape(num_seqs, max_blocks).astype(np.int32)
    return k, v, block_table


def rel_err(np, out, ref):
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if np.isnan(out).any():
        return float("nan")
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))


def attention_ref(np, q, k_cache, v_cache, block_table, cu_seqlens_q,
                  seq_lens, scale, causal=True, window_left=-1, softcap=0.0,
                  alibi_slopes=None, sinks=None, q_descale=None,
                  k_descale=None, v_descale=None):
    """(out, lse) of unified_attention in float64: chunk token i of
    sequence s sits at position ctx + i (ctx = seq_lens[s] - chunk length)
    and sees the keys at positions <= its own (all with causal=False) and
    >= its own - window_left (window_left -1: no limit). Scores are
    scale * q_descale * k_descale * (q . k), then softcap * tanh(x /
    softcap), then + slope * (key position - query position); a sink is
    one more logit with no value. lse: [num_heads, num_tokens], natural
    log, -inf for a token that sees nothing. Descales are per tensor (one
    element) or [num_seqs, num_kv_heads]."""
    T, H, D = q.shape
    P, Hkv = k_cache.shape[1], k_cache.shape[2]
    group = H // Hkv
    out = np.zeros((T, H, D))
    lse = np.full((H, T), -np.inf)

    def factor(x, s):
        if x is None:
            return np.ones(Hkv)
        x = np.asarray(x, np.float64)
        return np.full(Hkv, x.reshape(-1)[0]) if x.size == 1 else x[s]

    for s in range(len(seq_lens)):
        a, b = int(cu_seqlens_q[s]), int(cu_seqlens_q[s + 1])
        L = int(seq_lens[s])
        n = b - a
        if n == 0:
            continue
        t = np.arange(L)
        blocks = block_table[s, t // P].astype(np.int64)
        kk = k_cache[blocks, t % P].astype(np.float64)   # [L, Hkv, D]
        vv = v_cache[blocks, t % P].astype(np.float64)
        qpos = L - n + np.arange(n)                       # [n]
        seen = np.ones((n, L), bool)
        if causal:
            seen &= t[None, :] <= qpos[:, None]
        if window_left >= 0:
            seen &= t[None, :] >= qpos[:, None] - window_left
        fq, fk, fv = (factor(x, s) for x in (q_descale, k_descale, v_descale))
        for h in range(H):
            kh = h // group
            sc = (q[a:b, h].astype(np.float64) @ kk[:, kh].T) * scale * \
                fq[kh] * fk[kh]                           # [n, L]
            if softcap:
                sc = softcap * np.tanh(sc / softcap)
            if alibi_slopes is not None:
                sc = sc + float(alibi_slopes[h]) * (t[None, :] - qpos[:, None])
            sc = np.where(seen, sc, -np.inf)
            if sinks is not None:
                sc = np.concatenate([sc, np.full((n, 1), float(sinks[h]))], 1)
            m = sc.max(axis=1, keepdims=True)
            m = np.where(np.isfinite(m), m, 0.0)
            e = np.exp(sc - m)
            tot = e.sum(axis=1)
            with np.errstate(divide="ignore"):
                lse[h, a:b] = np.log(tot) + m[:, 0]
            p = e[:, :L] / np.where(tot > 0, tot, 1.0)[:, None]
            out[a:b, h] = p @ vv[:, kh] * fv[kh]
    return out, lse


def to_bf16(np, x):
    """float32 values as bfloat16 bit patterns (uint16, round to nearest
    even), the interpreter's bf16 without ml_dtypes."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


def from_bf16(np, bits):
    """bfloat16 bit patterns as float32 values (NaN stays NaN)."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


FP8_FORMATS = {"e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}


def fp8_table(np, fmt):
    """The float64 value of each of the 256 bit patterns of an fp8 format
    ("e4m3": float8_e4m3fn, NaN only at S.1111.111; "e5m2": IEEE-like with
    infinities), decoded from the definition."""
    ebits, mbits, bias = FP8_FORMATS[fmt]
    out = np.empty(256, np.float64)
    for b in range(256):
        sign = -1.0 if b & 0x80 else 1.0
        e = (b >> mbits) & ((1 << ebits) - 1)
        m = b & ((1 << mbits) - 1)
        if fmt == "e4m3" and e == 15 and m == 7:
            v = math.nan
        elif fmt == "e5m2" and e == 31:
            v = math.inf if m == 0 else math.nan
        elif e == 0:
            v = m * 2.0 ** (1 - bias - mbits)
        else:
            v = (1 + m / (1 << mbits)) * 2.0 ** (e - bias)
        out[b] = sign * v
    return out


def from_fp8(np, bits, fmt):
    """fp8 bit patterns (uint8) as float64 values."""
    return fp8_table(np, fmt)[np.asarray(bits, np.uint8)]


def to_fp8(np, x, fmt):
    """float values as fp8 bit patterns: the nearest finite value, ties to
    the even pattern, magnitudes past the largest finite one saturating to
    it (cvt.rn.satfinite), NaN to NaN. Found by search in the decoded
    table, not by bit manipulation."""
    table = fp8_table(np, fmt)
    pos = np.array([b for b in range(128) if np.isfinite(table[b])])
    vals = table[pos]  # increasing with the pattern
    x = np.asarray(x, np.float64)
    a = np.minimum(np.abs(np.nan_to_num(x)), vals[-1])
    hi = np.clip(np.searchsorted(vals, a), 1, len(vals) - 1)
    lo = hi - 1
    dl, dh = a - vals[lo], vals[hi] - a
    pick = np.where((dh < dl) | ((dh == dl) & (pos[hi] % 2 == 0)), hi, lo)
    bits = pos[pick].astype(np.uint8)
    bits = np.where(np.signbit(x), bits | 0x80, bits)
    nan = 0x7F if fmt == "e4m3" else 0x7E
    return np.where(np.isnan(x), nan, bits).astype(np.uint8)


def marker_line(path, name):
    """The line of `path` that ends with the marker `# ERR:<name>` (where a
    test expects its located error)."""
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# ERR:{name}"):
                return i
    raise AssertionError(f"no marker {name} in {path}")


def torch_cuda():
    """torch, for a test marked gpu; skips the test without a CUDA GPU."""
    import pytest
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    return torch
