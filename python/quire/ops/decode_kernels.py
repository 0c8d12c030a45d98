"""Split-KV paged decode attention on tensor cores: the kernels behind
quire.ops.paged_decode_attention and the decode part of unified_attention
(examples/paged_decode_attention_split.mlir is one specialization, written
by hand).

`paged_decode`, grid (num_seqs, num_kv_heads, num_splits), or with
HEADS_FIRST (num_kv_heads, num_seqs, num_splits): program (s, kvh, j) reads tokens [j * tokens_per_split, (j + 1) * tokens_per_split) of
sequence s once for all GROUP query heads of KV head kvh (GQA packed into
the M of the dots, or their N when TRANSPOSED), runs the online softmax over
tiles of BLOCK_N tokens in base 2, and with PARTIALS writes the
unnormalized accumulator, the running max and the running sum of each
query head; without, it is the only split (grid z = 1) and writes `out`.
`paged_decode_combine`, grid (num_seqs, num_q_heads), merges the splits with
a log-sum-exp weighting. Neither grid depends on the sequence lengths, so
the launches can be captured in a CUDA graph.

out[s, h, :] = softmax(scale * q[s, h] . K[s, h / GROUP]^T + bias) V[s, h / GROUP]

Layouts (strides in elements, the last dimension of each dense):
  q, out        [num_seqs, num_q_heads, D]   (VARLEN: [num_tokens, ...])
  k/v_cache     [num_blocks, PAGE_SIZE, num_kv_heads, D]
  block_tables  i32 [num_seqs, max_blocks]
  seq_lens      i32 [num_seqs]
  part_o        f32 [num_seqs, num_q_heads, num_splits, DP]   (scratch)
  part_ml       f32 [num_seqs, num_q_heads, num_splits, 2]    (scratch)
  lse           f32 [num_q_heads, num_tokens]                 (LSE)
The contract with the host (ops/decode.py): seq_lens[s] <= max_blocks *
PAGE_SIZE, tokens_per_split a multiple of BLOCK_N, num_splits <=
SPLITS_PAD, in-tile offsets (a group's heads times the head stride) within
32 bits.

Constexprs, each off costing nothing:
  GROUP       query heads per KV head (GQA group)
  HEADS       the group padded to a power of two: >= 16 rows of the query
              tile (the M of mma.sync m16n8k16), or with TRANSPOSED >= 8
              columns (its N); padded heads are zero and never stored
  D, DP       the head dimension, and the tile width (D padded to a power
              of two >= 16; the paged loads carry cols = D, so the padding
              is never read)
  PAGE_SIZE   tokens per cache block
  BLOCK_N     tokens per loop iteration
  PARTIALS    split-KV: write partials for the combine kernel
  FUSED       with PARTIALS: no combine kernel; each split then counts
              itself in counters[s, kvh] (an atomic that orders the
              partials' stores), and the last of a (sequence, KV head)
              merges the group's partials into `out` (and `lse`) and sets
              the counter back to 0, ready for the next launch. The
              counters (i32 [num_seqs, num_kv_heads]) start at zero and
              belong to one stream at a time (a plan's workspace)
  TRANSPOSED  s^T = K q^T and acc^T = V^T p^T: the tokens and the head dim
              are the M of the MMAs, the group their N (half the
              accumulator and query registers and half the MMAs of the row
              form for groups of 8 or fewer)
  HEADS_FIRST the KV heads are grid x: the programs of one sequence's heads
              are launched side by side, and read each cache page (its
              heads are adjacent in memory) at about the same time
  SEQS_PAD    (not None) the programs take the sequences in order of
              length, longest first (ties by index), among the grid's
              sequences padded to SEQS_PAD, a power of two: the programs
              launched last, which make the kernel's tail, are the
              shortest (each program ranks the lengths itself, SEQS_PAD^2
              comparisons)
  VARLEN      the query of sequence s is row cu_seqlens_q[s] of q and out
              (unified_attention's layout); sequences whose chunk is not
              one token are left to the prefill kernel
  WINDOW      a left window: the query (the last token) sees the
              window_left tokens before it; the splits partition the
              window, whose first tile starts at a multiple of BLOCK_N, so
              tiles before it are never visited
  SOFTCAP     scores become softcap * tanh(scores / softcap)
  ALIBI       alibi_slopes[h] * (key position - query position) added to
              the scores of head h
  SINKS       sinks[h], a logit that takes part in head h's softmax
              denominator only (taken by split 0)
  LSE         the log-sum-exp of each head's scores (natural log; -inf for
              an empty sequence) into lse[h, row] (the one-split kernel
              here; the combine kernel with PARTIALS, the last split with
              FUSED)
  Q_DESCALE, K_DESCALE, V_DESCALE
              multiply the scores by q_descale[s, kvh] * k_descale[s, kvh]
              and the output by v_descale[s, kvh] (strides 0 for
              per-tensor factors)
`num_blocks` (not None) bounds every paged load for checked mode.
"""

from .. import language as tl
from ..runtime import jit

LOG2E = 1.44269504088896340736
LN2 = 0.69314718055994530942
# Splits the fused combine's last split merges per step of its loop.
MERGE_UNROLL = 4


@jit
def _by_head(x, TRANSPOSED: tl.constexpr):
    """A per-head vector laid along the heads of the score tile: a column
    of the row form (heads are its rows), a row of the transposed one."""
    if TRANSPOSED:
        return x[None, :]
    else:
        return x[:, None]


@jit
def _by_token(x, TRANSPOSED: tl.constexpr):
    """A vector laid along the other dimension of the score and query tiles
    (tokens, or the head dimension)."""
    if TRANSPOSED:
        return x[:, None]
    else:
        return x[None, :]


@jit
def _tanh(x):
    """tanh through one exp2: 1 - 2 / (e^2x + 1), exact to fp32 rounding
    where the SFU's tanh.approx is not (softcap multiplies its error)."""
    return 1.0 - 2.0 / (tl.exp2(x * (2.0 * LOG2E)) + 1.0)


@jit
def _longest_first(seq_lens, rank, num_seqs, N: tl.constexpr):
    """The sequence of rank `rank` among the first num_seqs (N padded) when
    they are ordered by length, longest first, ties by index: the j whose
    count of sequences ordered before it is `rank`, counted over blocks of
    16 sequences at a time. Lengths below 0 count as -1, the padding's, so
    the padding (the largest indices) ranks last whatever the lengths."""
    CHUNK: tl.constexpr = 16 if N > 16 else N
    j = tl.arange(0, N)
    len_j = tl.maximum(tl.load(seq_lens + j, mask=j < num_seqs, other=-1),
                       -1)[None, :]
    ahead = tl.zeros((N,), tl.int32)
    for i0 in tl.static_range(0, N, CHUNK):
        i = i0 + tl.arange(0, CHUNK)
        len_i = tl.maximum(tl.load(seq_lens + i, mask=i < num_seqs,
                                   other=-1), -1)[:, None]
        before = (len_i > len_j) | ((len_i == len_j) &
                                    (i[:, None] < j[None, :]))
        ahead += tl.sum(before.to(tl.int32), axis=0)
    return tl.sum(tl.where(ahead == rank, j, 0), axis=0)


@jit
def _descale(ptr, seq, kv_head, seq_stride, head_stride):
    return tl.load(ptr + seq * seq_stride + kv_head * head_stride)


@jit
def _score_scales(scale, softcap, seq, kv_head, q_descale, qd_seq_stride,
                  qd_head_stride, k_descale, kd_seq_stride, kd_head_stride,
                  SOFTCAP: tl.constexpr, Q_DESCALE: tl.constexpr,
                  K_DESCALE: tl.constexpr):
    """The factors that turn q . k into base-2 scores: (None, None,
    scale * log2(e)), or with SOFTCAP (scale / softcap, softcap * log2(e),
    None) for softcap * log2(e) * tanh(q . k * scale / softcap); the
    descale factors multiply the scale."""
    qk_scale = scale
    if Q_DESCALE:
        qk_scale = qk_scale * _descale(q_descale, seq, kv_head, qd_seq_stride,
                                       qd_head_stride)
    if K_DESCALE:
        qk_scale = qk_scale * _descale(k_descale, seq, kv_head, kd_seq_stride,
                                       kd_head_stride)
    if SOFTCAP:
        return qk_scale / softcap, softcap * LOG2E, None
    else:
        return None, None, qk_scale * LOG2E


@jit
def _chunk(cu_seqlens_q, seq):
    """(first token, length) of sequence seq's chunk of query tokens."""
    first = tl.load(cu_seqlens_q + seq)
    return first, tl.load(cu_seqlens_q + seq + 1) - first


@jit
def _merge_splits(out, part_o, part_ml, lse, row0, num_splits, row64,
                  head0_64, out_seq_stride, out_head_stride, lse_head_stride,
                  GROUP: tl.constexpr, G: tl.constexpr, D: tl.constexpr,
                  DP: tl.constexpr, LSE: tl.constexpr):
    """The combine of `paged_decode_combine` for the GROUP heads whose
    partials start at row `row0` of part_o / part_ml (rows of a head are
    num_splits apart), merged online split by split: out = sum_j w_j o_j /
    sum_j w_j l_j with w_j = exp2(m_j - max m); an empty split (m = -inf)
    weighs 0, a head without tokens gets 0 (and lse -inf)."""
    g = tl.arange(0, G)
    g_in = g < GROUP
    d = tl.arange(0, DP)
    rows = row0 + (g * num_splits).to(tl.int64)
    m_all = tl.full((G,), float("-inf"), tl.float32)
    l_all = tl.zeros((G,), tl.float32)
    o_all = tl.zeros((G, DP), tl.float32)
    # MERGE_UNROLL splits a step: their loads are independent of the
    # running maxima, so a step waits for the memory once, not once a split
    # (splits past num_splits load as empty ones and weigh 0).
    for j0 in range(0, num_splits, MERGE_UNROLL):
        for u in tl.static_range(MERGE_UNROLL):
            j = j0 + u
            ok = g_in & (j < num_splits)
            r = rows + j
            m_j = tl.load(part_ml + r * 2, mask=ok, other=float("-inf"))
            l_j = tl.load(part_ml + (r * 2 + 1), mask=ok, other=0.0)
            o_j = tl.load(part_o + (r[:, None] * DP + d[None, :]),
                          mask=ok[:, None], other=0.0)
            m_new = tl.maximum(m_all, m_j)
            a = tl.where(m_all > float("-inf"), tl.exp2(m_all - m_new), 0.0)
            w = tl.where(m_j > float("-inf"), tl.exp2(m_j - m_new), 0.0)
            o_all = o_all * a[:, None] + o_j * w[:, None]
            l_all = l_all * a + l_j * w
            m_all = m_new
    has = l_all > 0.0
    l_safe = tl.where(has, l_all, 1.0)
    res = o_all / l_safe[:, None]
    o_base = out + (row64 * out_seq_stride + head0_64 * out_head_stride)
    tl.store(o_base + (g[:, None] * out_head_stride + d[None, :]),
             res.to(out.dtype.element_ty),
             mask=g_in[:, None] & (d[None, :] < D))
    if LSE:
        lse_v = tl.where(has, (m_all + tl.log2(l_safe)) * LN2, float("-inf"))
        tl.store(lse + ((head0_64 + g) * lse_head_stride + row64), lse_v,
                 mask=g_in)


@jit
def paged_decode(
        out, part_o, part_ml, counters, q, k_cache, v_cache, block_tables,
        seq_lens,
        scale, num_blocks, tokens_per_split,
        q_seq_stride: tl.int64, q_head_stride: tl.int32, bt_stride: tl.int64,
        k_page_stride: tl.int64, k_token_stride: tl.int64,
        k_head_stride: tl.int64,
        v_page_stride: tl.int64, v_token_stride: tl.int64,
        v_head_stride: tl.int64,
        out_seq_stride: tl.int64, out_head_stride: tl.int64,
        cu_seqlens_q, alibi_slopes, sinks, lse, lse_head_stride: tl.int64,
        softcap, window_left,
        q_descale, qd_seq_stride, qd_head_stride,
        k_descale, kd_seq_stride, kd_head_stride,
        v_descale, vd_seq_stride, vd_head_stride,
        GROUP: tl.constexpr, HEADS: tl.constexpr, D: tl.constexpr,
        DP: tl.constexpr, PAGE_SIZE: tl.constexpr, BLOCK_N: tl.constexpr,
        PARTIALS: tl.constexpr, FUSED: tl.constexpr,
        TRANSPOSED: tl.constexpr, HEADS_FIRST: tl.constexpr,
        SEQS_PAD: tl.constexpr,
        VARLEN: tl.constexpr, WINDOW: tl.constexpr, SOFTCAP: tl.constexpr,
        ALIBI: tl.constexpr, SINKS: tl.constexpr, LSE: tl.constexpr,
        Q_DESCALE: tl.constexpr, K_DESCALE: tl.constexpr,
        V_DESCALE: tl.constexpr):
    if HEADS_FIRST:
        kv_head = tl.program_id(0)
        seq = tl.program_id(1)
        num_kv_heads = tl.num_programs(0)
        num_seqs = tl.num_programs(1)
    else:
        seq = tl.program_id(0)
        kv_head = tl.program_id(1)
        num_kv_heads = tl.num_programs(1)
        num_seqs = tl.num_programs(0)
    if SEQS_PAD is not None:
        seq = _longest_first(seq_lens, seq, num_seqs, SEQS_PAD)
    split = tl.program_id(2)
    num_splits = tl.num_programs(2)
    tl.multiple_of(tokens_per_split, BLOCK_N)
    COLS: tl.constexpr = D if DP > D else None

    # The query row: the sequence's, or (VARLEN) its chunk's first token;
    # a sequence without exactly one query token is not this kernel's.
    row = seq
    if VARLEN:
        row, q_len = _chunk(cu_seqlens_q, seq)
        if q_len != 1:
            return
    # This split's tokens [start0, end) of the sequence, and its
    # block-table row. The last split also takes any tokens past num_splits
    # * tokens_per_split, so an understated max_seq_len costs time, never
    # tokens.
    seq_len = tl.load(seq_lens + seq)
    if WINDOW:
        # The window's first token, and the tile it starts.
        w_start = tl.maximum(seq_len - 1 - window_left, 0)
        start0 = w_start // BLOCK_N * BLOCK_N + split * tokens_per_split
    else:
        start0 = split * tokens_per_split
    end0 = start0 + tokens_per_split
    end1 = tl.where(split == num_splits - 1, seq_len, end0)
    end = tl.minimum(end1, seq_len)
    seq64 = seq.to(tl.int64)
    row64 = row.to(tl.int64)
    bt_row = block_tables + seq64 * bt_stride

    # The group's query heads g < GROUP (heads kv_head * GROUP + g) and
    # columns d < D: rows of the query tile, or columns when TRANSPOSED;
    # padded heads and columns are zero.
    head0 = kv_head * GROUP
    head0_64 = head0.to(tl.int64)
    g = tl.arange(0, HEADS)
    g2 = _by_head(g, TRANSPOSED)
    g_ok = g2 < GROUP
    d = tl.arange(0, DP)
    d2 = _by_token(d, TRANSPOSED)
    d_ok = d2 < D
    q_mask = g_ok & d_ok
    q_base = q + (row64 * q_seq_stride +
                  head0_64 * q_head_stride.to(tl.int64))
    qv = tl.load(q_base + (g2 * q_head_stride + d2), mask=q_mask, other=0.0)
    g_in = g < GROUP

    # Scores in base 2: s = (q . k) * scale * log2(e), with the features'
    # terms.
    cap_in, cap_out, sl2 = _score_scales(
        scale, softcap, seq, kv_head, q_descale, qd_seq_stride,
        qd_head_stride, k_descale, kd_seq_stride, kd_head_stride, SOFTCAP,
        Q_DESCALE, K_DESCALE)
    if ALIBI:
        slope = _by_head(tl.load(alibi_slopes + head0 + g, mask=g_in,
                                 other=0.0).to(tl.float32) * LOG2E,
                         TRANSPOSED)
        q_pos = seq_len - 1
    if SINKS:
        # Split 0 starts from the sink: m = sink, l = exp2(sink - m) = 1.
        sink = tl.load(sinks + head0 + g, mask=g_in,
                       other=float("-inf")).to(tl.float32) * LOG2E
        m = tl.where(split == 0, sink, float("-inf"))
        l = tl.where((split == 0) & g_in, 1.0, 0.0)
    else:
        m = tl.full((HEADS,), float("-inf"), tl.float32)
        l = tl.zeros((HEADS,), tl.float32)
    if TRANSPOSED:
        acc = tl.zeros((DP, HEADS), tl.float32)
    else:
        acc = tl.zeros((HEADS, DP), tl.float32)
    AXIS: tl.constexpr = 0 if TRANSPOSED else 1
    toks0 = tl.arange(0, BLOCK_N)
    for start in range(start0, end, BLOCK_N):
        k = tl.paged_load(k_cache, bt_row, start, kv_head, (BLOCK_N, DP),
                          PAGE_SIZE, (k_page_stride, k_token_stride,
                                      k_head_stride), end, cols=COLS,
                          num_blocks=num_blocks)
        if TRANSPOSED:
            qk = tl.dot(k, qv)
        else:
            qk = tl.dot(qv, tl.trans(k))
        if SOFTCAP:
            s = _tanh(qk * cap_in) * cap_out
        else:
            s = qk * sl2
        toks = start + toks0
        if ALIBI:
            s = s + slope * _by_token((toks - q_pos).to(tl.float32),
                                      TRANSPOSED)
        valid = toks < end
        if WINDOW:
            valid = valid & (toks >= w_start)
        s = tl.where(_by_token(valid, TRANSPOSED), s, float("-inf"))
        # Online softmax update, along the tokens.
        m_new = tl.maximum(m, tl.max(s, axis=AXIS),
                           propagate_nan=tl.PropagateNan.ALL)
        p = tl.exp2(s - _by_head(m_new, TRANSPOSED))
        alpha = tl.exp2(m - m_new)
        l = l * alpha + tl.sum(p, axis=AXIS)
        v = tl.paged_load(v_cache, bt_row, start, kv_head, (BLOCK_N, DP),
                          PAGE_SIZE, (v_page_stride, v_token_stride,
                                      v_head_stride), end, cols=COLS,
                          num_blocks=num_blocks)
        acc_scaled = acc * _by_head(alpha, TRANSPOSED)
        if TRANSPOSED:
            acc = tl.dot(tl.trans(v), p.to(qv.dtype), acc_scaled)
        else:
            acc = tl.dot(p.to(qv.dtype), v, acc_scaled)
        m = m_new
    if V_DESCALE:
        acc = acc * _descale(v_descale, seq, kv_head, vd_seq_stride,
                             vd_head_stride)

    if PARTIALS:
        # Partials of the group's heads: row (seq * num_q_heads + head0 + g)
        # * num_splits + split of part_o (DP floats) and part_ml (m, l).
        hq64 = (num_kv_heads * GROUP).to(tl.int64)
        row0 = (seq64 * hq64 + head0_64) * num_splits.to(tl.int64) + \
            split.to(tl.int64)
        po_base = part_o + row0 * DP
        pml_base = part_ml + row0 * 2
        g_rows = g * num_splits
        tl.store(po_base + (_by_head(g_rows, TRANSPOSED) * DP + d2), acc,
                 mask=tl.broadcast_to(g_ok, acc.shape))
        m_off = g_rows * 2
        tl.store(pml_base + m_off, m, mask=g_in)
        tl.store(pml_base + (m_off + 1), l, mask=g_in)
        if FUSED:
            # acq_rel: this split's partials are visible to the last one,
            # and the last one sees every split's.
            counter = counters + (seq64 * num_kv_heads.to(tl.int64) +
                                  kv_head.to(tl.int64))
            if tl.atomic_add(counter, 1) == num_splits - 1:
                _merge_splits(out, part_o, part_ml, lse,
                              (seq64 * hq64 + head0_64) *
                              num_splits.to(tl.int64), num_splits, row64,
                              head0_64, out_seq_stride, out_head_stride,
                              lse_head_stride, GROUP, HEADS, D, DP, LSE)
                tl.atomic_xchg(counter, 0)
    else:
        # One split: out = acc / l for the group's heads; an empty sequence
        # (l = 0, acc = 0) writes zeros.
        has = l > 0.0
        l_safe = tl.where(has, l, 1.0)
        o = acc / _by_head(l_safe, TRANSPOSED)
        o_base = out + (row64 * out_seq_stride + head0_64 * out_head_stride)
        o_offs = g2 * out_head_stride.to(tl.int32) + d2
        tl.store(o_base + o_offs, o.to(qv.dtype), mask=q_mask)
        if LSE:
            lse_v = tl.where(has, (m + tl.log2(l_safe)) * LN2,
                             float("-inf"))
            tl.store(lse + ((head0 + g).to(tl.int64) * lse_head_stride +
                            row64), lse_v, mask=g_in)


@jit
def paged_decode_combine(
        out, part_o, part_ml, out_seq_stride: tl.int64,
        out_head_stride: tl.int64, num_splits, cu_seqlens_q, lse,
        lse_head_stride: tl.int64,
        D: tl.constexpr, DP: tl.constexpr, SPLITS_PAD: tl.constexpr,
        VARLEN: tl.constexpr, LSE: tl.constexpr):
    """out[s, h, :] = sum_j w_j * part_o[s, h, j, :] / sum_j w_j * l_j with
    w_j = exp2(m_j - max_j m_j) (m in base 2); splits that saw no token
    (m = -inf) weigh 0, and a head with no token at all (every l = 0) gets
    0. SPLITS_PAD: the most splits merged, a power of two. VARLEN and LSE as
    for paged_decode."""
    seq = tl.program_id(0)
    head = tl.program_id(1)
    num_q_heads = tl.num_programs(1)
    row = seq
    if VARLEN:
        row, q_len = _chunk(cu_seqlens_q, seq)
        if q_len != 1:
            return
    seq64 = seq.to(tl.int64)
    head64 = head.to(tl.int64)
    row0 = (seq64 * num_q_heads.to(tl.int64) + head64) * \
        num_splits.to(tl.int64)

    j = tl.arange(0, SPLITS_PAD)
    j_ok = j < num_splits
    ml_base = part_ml + row0 * 2
    m_off = j * 2
    m = tl.load(ml_base + m_off, mask=j_ok, other=float("-inf"))
    l = tl.load(ml_base + (m_off + 1), mask=j_ok, other=0.0)
    m_all = tl.max(m, axis=0)
    w = tl.where(m > float("-inf"), tl.exp2(m - m_all), 0.0)
    denom = tl.sum(w * l, axis=0)

    o_base = part_o + row0 * DP
    d = tl.arange(0, DP)
    o = tl.load(o_base + (j[:, None] * DP + d[None, :]), mask=j_ok[:, None],
                other=0.0)
    o_sum = tl.sum(o * w[:, None], axis=0)
    has = denom > 0.0
    res = o_sum / tl.where(has, denom, 1.0)

    row64 = row.to(tl.int64)
    out_base = out + (row64 * out_seq_stride + head64 * out_head_stride)
    tl.store(out_base + d, res.to(out.dtype.element_ty), mask=d < D)
    if LSE:
        lse_v = tl.where(has, (m_all + tl.log2(tl.where(has, denom, 1.0))) *
                         LN2, float("-inf"))
        tl.store(lse + (head64 * lse_head_stride + row64), lse_v)
