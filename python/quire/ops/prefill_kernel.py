"""Paged prefill attention (vLLM's prefix prefill / chunked prefill) on
tensor cores: the kernel behind quire.ops.paged_prefill_attention and the
query-tiled part of unified_attention (examples/paged_prefill_attention.mlir
is one specialization, written by hand).

A program takes BLOCK_M query tokens of one sequence's chunk and one query
head; they attend over
  1. the sequence's cached context (its first ctx_s tokens), read through
     the block table with tl.paged_load, K transposed for Q K^T, and
  2. the chunk's own tokens (causally: query token i sees new tokens
     j <= i), read from k_new/v_new (SEPARATE) or from the cache, where
     they are tokens ctx_s + j of the sequence (vLLM writes the chunk's K/V
     into the cache before attention). From the cache with ONE_LOOP, one
     loop reads both parts by position, in tiles starting at multiples of
     BLOCK_N.
Online softmax in base 2 over tiles of BLOCK_N keys; P stays in registers
(the S accumulator becomes the A operand of P V).

Layouts (strides in elements; the last dimension of each is dense):
  q, out        [num_tokens, num_q_heads, D]   the batch's chunks back to back
  k_new, v_new  [num_tokens, num_kv_heads, D]  (SEPARATE)
  k/v_cache     [num_blocks, PAGE_SIZE, num_kv_heads, D]
  block_tables  i32 [num_seqs, max_blocks]
  query_start   i32 [num_seqs + 1]  chunk of sequence s: tokens
                                    query_start[s] .. query_start[s+1]-1
  seq_lens      i32 [num_seqs]      tokens of sequence s with its chunk:
                                    context ctx_s = seq_lens[s] - chunk
                                    length (clamped at 0)
  lse           f32 [num_q_heads, num_tokens]  (LSE)
out[t, h, :] = softmax(scale * q[t, h] . [K_ctx; K_new[:i+1]]^T + bias) [V_ctx; V_new[:i+1]]

Grid: (num_seqs * GROUP, ceil(max_chunk_len / BLOCK_M), num_kv_heads): x
the sequence, then the query head within its KV head's group (query head
z * GROUP + x // num_seqs), y the query block, z the KV head; or with FLAT
(num_tokens // BLOCK_M + num_seqs, num_q_heads, 1), where sequence s owns
the programs query_start[s] // BLOCK_M + s .. query_start[s + 1] //
BLOCK_M + s (at least its chunk's blocks: vLLM's unified attention numbers
its query blocks so) and a program finds its sequence by binary search;
programs past their chunk's end do nothing. Either grid depends on shapes
and the longest chunk only. The GPU starts programs in the order of their
index (x fastest, z slowest), so in the first grid the programs running at
once read one KV head's keys and values, which stay in the L2 cache for
all of them, rather than every head's (docs/performance.md, "The first
grid's order"). With LAST_FIRST, grid y counts a chunk's blocks from its
last: under causal masking the last blocks read the most keys, so a KV
head's longest programs start first and its short ones fill in behind
them (FlashAttention orders its causal query blocks so). The contract
with the host (ops/prefill.py): query_start is non-decreasing from 0 to
num_tokens and seq_lens[s] <= max_blocks * PAGE_SIZE (the cache holds the
context, and the chunk too when it is read from there); in-tile offsets
(BLOCK_M rows of q/out, BLOCK_N of k_new/v_new) fit 32 bits.

Constexprs, each off costing nothing:
  GROUP        query heads per KV head (GQA group)
  D, DP        the head dimension and the tile width (D padded to a power
               of two >= 16; the paged loads carry cols = D)
  PAGE_SIZE    tokens per cache block
  BLOCK_M      query tokens per program, a power of two >= 16
  BLOCK_N      keys per loop iteration, a power of two >= 16
  SEPARATE     the chunk's keys and values come from k_new/v_new
  CAUSAL       query token i of a chunk sees its chunk's tokens j <= i
               (else all of them)
  FLAT         the flat grid above (configs.prefill_grid: where it has fewer
               programs, as in a mixed batch of many one-token chunks and a
               few long ones); the kernel then takes num_seqs and
               search_steps (ceil(log2(num_seqs)))
  SKIP_DECODE  programs of sequences with a one-token chunk return at once
               (unified_attention's mixed batches: the split-KV decode
               kernel takes those)
  WINDOW       a left window: query position p sees keys p - window_left
               .. p; each loop starts at the tile holding the first key
               any of the program's rows sees, so tiles before the window
               are never visited
  SOFTCAP, ALIBI, SINKS, LSE, Q_DESCALE, K_DESCALE, V_DESCALE
               as for the decode kernel (decode_kernels.py), per query head
  FOLD_SCALE   without SOFTCAP and ALIBI, the scale multiplies the
               exponent rather than every score (_softmax_step; off only
               for the benchmarks' ablation)
  LAST_FIRST   grid y counts each chunk's blocks from the last (above; off
               only for the benchmarks' ablation)
  KV_TOGETHER  the first grid's z takes KV_TOGETHER KV heads: grid
               (num_seqs * GROUP * KV_TOGETHER, blocks, num_kv_heads /
               KV_TOGETHER), so that many KV heads' programs run together
               (1, one KV head's, but for the benchmarks' ablation)
  KV_DESC      k_cache and v_cache are tensor descriptors of the caches
               (block [1, min(PAGE_SIZE, BLOCK_N), 1, DP]), whose strides
               they carry (the k/v stride parameters are then None): with
               producer warps on sm_90 TMA copies the tiles' pages
  ONE_LOOP     without SEPARATE, the chunk's keys are read in the
               context's loop (above), so every tile starts at a multiple
               of BLOCK_N; else in a loop of their own from position
               ctx_len (the kernel with KV_DESC takes ONE_LOOP: only
               aligned tiles are TMA's)
`num_blocks` (not None) bounds every paged load for checked mode.
"""

from .. import language as tl
from ..runtime import jit
from .decode_kernels import (LN2, LOG2E, _chunk, _descale, _score_scales,
                             _tanh)


@jit
def _scores(qv, k, cap_in, cap_out, sl2, SOFTCAP: tl.constexpr,
            FOLD: tl.constexpr):
    """Q K^T in base 2: scale * log2(e) * (q . k), or with SOFTCAP
    softcap * log2(e) * tanh(scale * (q . k) / softcap); with FOLD, q . k
    itself (_softmax_step multiplies the exponent)."""
    qk = tl.dot(qv, tl.trans(k))
    if FOLD:
        return qk
    elif SOFTCAP:
        return _tanh(qk * cap_in) * cap_out
    else:
        return qk * sl2


# The least positive normal f32: the folded scale's floor.
F32_MIN = 1.1754943508222875e-38


@jit
def _softmax_step(s, sl2, m, l, GUARD: tl.constexpr, FOLD: tl.constexpr):
    """One online-softmax step over the score tile `s` (-inf where masked):
    (m_new, p, alpha, l_new). With GUARD, a row that has seen no key yet
    (m_new = -inf: a window may mask a whole tile for some rows) takes 0 as
    its exponent base, so its p and alpha are 0 rather than NaN.

    With FOLD the scores are sl2 * s with the scale folded in: the row
    maxima of s are scaled (two multiplies a thread, not one an element),
    and p = exp2(s * sl2 - m) contracts to one fma an element. sl2 must be
    positive (the kernel makes it so: q's sign flipped for a negative
    scale, exact in any float type, and a zero scale raised to F32_MIN,
    which gives every key the same weight as zero does; a NaN factor stays
    NaN); then max(s) * sl2 is max(s * sl2) exactly and masked scores
    (-inf) stay -inf. The fma's unrounded product leaves the row maximum an
    exponent of at most half an ulp of m instead of 0: the same error the
    other scores' rounding gives them, and a factor past 2 only where |m| >
    2^24 (a hard max; past 2^31, inf or 0)."""
    if FOLD:
        row_max = tl.max(s, axis=1) * sl2
    else:
        row_max = tl.max(s, axis=1)
    m_new = tl.maximum(m, row_max, propagate_nan=tl.PropagateNan.ALL)
    if GUARD:
        m_use = tl.where(m_new > float("-inf"), m_new, 0.0)
    else:
        m_use = m_new
    if FOLD:
        p = tl.exp2(s * sl2 - m_use[:, None])
    else:
        p = tl.exp2(s - m_use[:, None])
    alpha = tl.exp2(m - m_use)
    return m_new, p, alpha, l * alpha + tl.sum(p, axis=1)


@jit
def _flat_block(query_start, pid, num_seqs, search_steps,
                BLOCK_M: tl.constexpr):
    """(sequence, query block) of program pid of the flat grid: the last
    sequence s whose first program query_start[s] // BLOCK_M + s is at most
    pid (first programs increase with s), by binary search over [0,
    num_seqs) in search_steps halvings."""
    lo = 0
    hi = num_seqs
    for _ in range(0, search_steps):
        mid = (lo + hi) // 2
        below = tl.load(query_start + mid) // BLOCK_M + mid <= pid
        lo = tl.where(below, mid, lo)
        hi = tl.where(below, hi, mid)
    return lo, pid - (tl.load(query_start + lo) // BLOCK_M + lo)


@jit
def _prefill_tile(
        seq, mblk, head, out, q, k_new, v_new, k_cache, v_cache, block_tables,
        query_start, seq_lens, scale, num_blocks, bt_stride, q_token_stride,
        q_head_stride, out_token_stride, out_head_stride, kn_token_stride,
        kn_head_stride, vn_token_stride, vn_head_stride, k_page_stride,
        k_token_stride, k_head_stride, v_page_stride, v_token_stride,
        v_head_stride, alibi_slopes, sinks, lse, lse_head_stride, softcap,
        window_left, q_descale, qd_seq_stride, qd_head_stride, k_descale,
        kd_seq_stride, kd_head_stride, v_descale, vd_seq_stride,
        vd_head_stride, num_seqs, search_steps, GROUP: tl.constexpr,
        D: tl.constexpr, DP: tl.constexpr, PAGE_SIZE: tl.constexpr,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, SEPARATE: tl.constexpr,
        CAUSAL: tl.constexpr, FLAT: tl.constexpr, SKIP_DECODE: tl.constexpr,
        WINDOW: tl.constexpr, SOFTCAP: tl.constexpr, ALIBI: tl.constexpr,
        SINKS: tl.constexpr, LSE: tl.constexpr, Q_DESCALE: tl.constexpr,
        K_DESCALE: tl.constexpr, V_DESCALE: tl.constexpr,
        FOLD_SCALE: tl.constexpr, LAST_FIRST: tl.constexpr,
        KV_DESC: tl.constexpr, ONE_LOOP: tl.constexpr):
    """One program's tile: BLOCK_M query rows from block mblk of
    sequence seq's chunk, query head `head` (the module docstring)."""
    kv_head = head // GROUP
    COLS: tl.constexpr = D if DP > D else None

    # This program's chunk rows and the sequence's context.
    q_begin, q_len = _chunk(query_start, seq)
    if SKIP_DECODE:
        if q_len == 1:
            return
    seq_len = tl.load(seq_lens + seq)
    ctx_len = tl.maximum(seq_len - q_len, 0)
    m0 = mblk * BLOCK_M
    active = m0 < q_len
    seq64 = seq.to(tl.int64)
    bt_row = block_tables + seq64 * bt_stride
    head64 = head.to(tl.int64)
    kv_head64 = kv_head.to(tl.int64)
    tok0 = q_begin + m0
    tok0_64 = tok0.to(tl.int64)

    # Query rows i = m0 + r of the chunk (r < BLOCK_M), valid while
    # i < q_len; columns d < D.
    r = tl.arange(0, BLOCK_M)
    rows = r + m0
    row_ok = rows < q_len
    d = tl.arange(0, DP)
    d2 = d[None, :]
    d_ok = d2 < D
    q_mask = row_ok[:, None] & d_ok
    r2 = r[:, None]
    # q rows: base (q_begin + m0) * q_token_stride + head * q_head_stride
    # (64 bits), in-tile offsets r * q_token_stride + d.
    q_base = q + (tok0_64 * q_token_stride.to(tl.int64) +
                  head64 * q_head_stride)
    qv = tl.load(q_base + (r2 * q_token_stride + d2), mask=q_mask, other=0.0)

    # Scores in base 2: s = (q . k) * scale * log2(e), with the features'
    # terms.
    cap_in, cap_out, sl2 = _score_scales(
        scale, softcap, seq, kv_head, q_descale, qd_seq_stride,
        qd_head_stride, k_descale, kd_seq_stride, kd_head_stride, SOFTCAP,
        Q_DESCALE, K_DESCALE)
    # Without softcap or ALiBi the scale multiplies the exponent, not the
    # scores (_softmax_step).
    FOLD: tl.constexpr = FOLD_SCALE and not SOFTCAP and not ALIBI
    if FOLD:
        qv = tl.where(sl2 < 0.0, -qv, qv)
        sl2 = tl.maximum(tl.abs(sl2), F32_MIN,
                         propagate_nan=tl.PropagateNan.ALL)
    if ALIBI:
        slope = tl.load(alibi_slopes + head).to(tl.float32) * LOG2E
    if SINKS:
        # The sink starts the softmax: m = sink, l = exp2(sink - m) = 1.
        sink = tl.load(sinks + head).to(tl.float32) * LOG2E
        m = tl.full((BLOCK_M,), sink, tl.float32)
        l = tl.full((BLOCK_M,), 1.0, tl.float32)
    else:
        m = tl.full((BLOCK_M,), float("-inf"), tl.float32)
        l = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, DP), tl.float32)
    cols = tl.arange(0, BLOCK_N)

    # (A cache passed as tensor descriptors carries its strides.)
    if KV_DESC:
        k_strides = None
        v_strides = None
    else:
        k_strides = (k_page_stride, k_token_stride, k_head_stride)
        v_strides = (v_page_stride, v_token_stride, v_head_stride)

    # 1. The cache's keys at positions [0, kv_end): the context, and with
    # ONE_LOOP the chunk too (causally: query position ctx_len + i sees
    # keys at positions <= ctx_len + i), in tiles starting at multiples of
    # BLOCK_N (so a tile's pages are whole: TMA copies them with KV_DESC).
    # Each query row sees every context token (in its window).
    q_pos = rows + ctx_len
    if SEPARATE or not ONE_LOOP:
        kv_end = ctx_len
        # Tiles ending at or before it need no mask (a window masks all).
        full_end = ctx_len
        loop_end = ctx_len
    else:
        kv_end = ctx_len + q_len
        if CAUSAL:
            full_end = ctx_len + m0 + 1
            loop_end = tl.minimum(ctx_len + m0 + BLOCK_M, kv_end)
        else:
            full_end = kv_end
            loop_end = kv_end
    ctx_end = tl.where(active, loop_end, 0)
    ctx_start = 0
    if WINDOW:
        # Row i (position ctx_len + i) sees keys from ctx_len + i -
        # window_left; the program's first row sees the most.
        lo_pos = q_pos - window_left
        ctx_start = tl.maximum(ctx_len + m0 - window_left, 0) // BLOCK_N * \
            BLOCK_N
    for start in range(ctx_start, ctx_end, BLOCK_N):
        k = tl.paged_load(k_cache, bt_row, start, kv_head, (BLOCK_N, DP),
                          PAGE_SIZE, k_strides, kv_end, cols=COLS,
                          num_blocks=num_blocks)
        s = _scores(qv, k, cap_in, cap_out, sl2, SOFTCAP, FOLD)
        toks = start + cols
        if ALIBI:
            s = s + slope * (toks[None, :] - q_pos[:, None]).to(tl.float32)
        # Only the tiles past full_end need the mask (a window masks every
        # tile).
        if WINDOW:
            tok_ok = (toks < kv_end)[None, :] & \
                (toks[None, :] >= lo_pos[:, None])
            if CAUSAL and ONE_LOOP:
                tok_ok = tok_ok & (toks[None, :] <= q_pos[:, None])
            s = tl.where(tok_ok, s, float("-inf"))
        else:
            if start + BLOCK_N > full_end:
                tok_ok = (toks < kv_end)[None, :]
                if CAUSAL and ONE_LOOP:
                    tok_ok = tok_ok & (toks[None, :] <= q_pos[:, None])
                s = tl.where(tok_ok, s, float("-inf"))
        m_new, p, alpha, l = _softmax_step(s, sl2, m, l, WINDOW, FOLD)
        v = tl.paged_load(v_cache, bt_row, start, kv_head, (BLOCK_N, DP),
                          PAGE_SIZE, v_strides, kv_end, cols=COLS,
                          num_blocks=num_blocks)
        acc = tl.dot(p.to(qv.dtype), v, acc * alpha[:, None])
        m = m_new

    # 2. Unless ONE_LOOP read them, the chunk's own tokens j < min(m0 +
    # BLOCK_M, q_len), causal: j <= i (all j < q_len without CAUSAL), from
    # k_new/v_new (SEPARATE) or the cache (tokens ctx_len + j).
    if SEPARATE or not ONE_LOOP:
        if CAUSAL:
            new_end = tl.where(active, tl.minimum(m0 + BLOCK_M, q_len), 0)
        else:
            new_end = tl.where(active, q_len, 0)
        new_start = 0
        if WINDOW:
            lo_row = rows - window_left
            new_start = tl.maximum(m0 - window_left, 0) // BLOCK_N * BLOCK_N
        rows2 = rows[:, None]
        if SEPARATE:
            # k_new/v_new rows: base q_begin * token_stride + kv_head *
            # head_stride (64 bits), in-tile offsets (j - start) *
            # token_stride + d.
            # (The token strides may be compile-time ints: prefill_launch.)
            q_begin64 = q_begin.to(tl.int64)
            kn_base = k_new + (q_begin64 * kn_token_stride +
                               kv_head64 * kn_head_stride)
            vn_base = v_new + (q_begin64 * vn_token_stride +
                               kv_head64 * vn_head_stride)
            c2 = cols[:, None]
            kn_offs = c2 * kn_token_stride + d2
            vn_offs = c2 * vn_token_stride + d2
        else:
            # The chunk's keys are the cache's tokens ctx_len + j < seq_len.
            seq_end = ctx_len + q_len
        # (The names differ from the first loop's: a name local to one
        # run-time loop cannot be assigned in a later one.)
        for start in range(new_start, new_end, BLOCK_N):
            j = start + cols
            if SEPARATE:
                kv_mask = (j < q_len)[:, None] & d_ok
                k_j = tl.load(kn_base + start * kn_token_stride + kn_offs,
                              mask=kv_mask, other=0.0)
            else:
                first = ctx_len + start
                k_j = tl.paged_load(k_cache, bt_row, first, kv_head,
                                    (BLOCK_N, DP), PAGE_SIZE, k_strides,
                                    seq_end, cols=COLS, num_blocks=num_blocks)
            s_j = _scores(qv, k_j, cap_in, cap_out, sl2, SOFTCAP, FOLD)
            if ALIBI:
                s_j = s_j + slope * (j[None, :] - rows2).to(tl.float32)
            if CAUSAL:
                seen = j[None, :] <= rows2
            else:
                seen = (j < q_len)[None, :]
            # Only the tiles at an edge need the mask: past the program's
            # first row (causal: they cross the diagonal) or past the
            # chunk. A window masks every tile.
            if WINDOW:
                seen = seen & (j[None, :] >= lo_row[:, None])
                s_j = tl.where(seen, s_j, float("-inf"))
            else:
                if CAUSAL:
                    partial = start + BLOCK_N > m0 + 1
                else:
                    partial = start + BLOCK_N > q_len
                if partial:
                    s_j = tl.where(seen, s_j, float("-inf"))
            m_j, p_j, alpha_j, l = _softmax_step(s_j, sl2, m, l, WINDOW,
                                                 FOLD)
            if SEPARATE:
                v_j = tl.load(vn_base + start * vn_token_stride + vn_offs,
                              mask=kv_mask, other=0.0)
            else:
                v_j = tl.paged_load(v_cache, bt_row, first, kv_head,
                                    (BLOCK_N, DP), PAGE_SIZE, v_strides,
                                    seq_end, cols=COLS, num_blocks=num_blocks)
            acc = tl.dot(p_j.to(qv.dtype), v_j, acc * alpha_j[:, None])
            m = m_j

    # out = acc / l for the valid rows (every valid row saw at least
    # itself, or with a window the keys inside it).
    has = l > 0.0
    l_safe = tl.where(has, l, 1.0)
    o = acc / l_safe[:, None]
    if V_DESCALE:
        o = o * _descale(v_descale, seq, kv_head, vd_seq_stride,
                         vd_head_stride)
    o_base = out + (tok0_64 * out_token_stride.to(tl.int64) +
                    head64 * out_head_stride)
    tl.store(o_base + (r2 * out_token_stride + d2), o.to(qv.dtype),
             mask=q_mask)
    if LSE:
        lse_v = tl.where(has, (m + tl.log2(l_safe)) * LN2, float("-inf"))
        tl.store(lse + (head64 * lse_head_stride + (tok0 + r)), lse_v,
                 mask=row_ok)


@jit
def paged_prefill(
        out, q, k_new, v_new, k_cache, v_cache, block_tables, query_start,
        seq_lens, scale, num_blocks, bt_stride: tl.int64,
        q_token_stride: tl.int32, q_head_stride: tl.int64,
        out_token_stride: tl.int32, out_head_stride: tl.int64,
        kn_token_stride: tl.int32, kn_head_stride: tl.int64,
        vn_token_stride: tl.int32, vn_head_stride: tl.int64,
        k_page_stride: tl.int64, k_token_stride: tl.int64,
        k_head_stride: tl.int64,
        v_page_stride: tl.int64, v_token_stride: tl.int64,
        v_head_stride: tl.int64,
        alibi_slopes, sinks, lse, lse_head_stride: tl.int64, softcap,
        window_left,
        q_descale, qd_seq_stride, qd_head_stride,
        k_descale, kd_seq_stride, kd_head_stride,
        v_descale, vd_seq_stride, vd_head_stride, num_seqs, search_steps,
        GROUP: tl.constexpr, D: tl.constexpr, DP: tl.constexpr,
        PAGE_SIZE: tl.constexpr, BLOCK_M: tl.constexpr,
        BLOCK_N: tl.constexpr, SEPARATE: tl.constexpr, CAUSAL: tl.constexpr,
        FLAT: tl.constexpr, SKIP_DECODE: tl.constexpr, WINDOW: tl.constexpr,
        SOFTCAP: tl.constexpr, ALIBI: tl.constexpr, SINKS: tl.constexpr,
        LSE: tl.constexpr, Q_DESCALE: tl.constexpr, K_DESCALE: tl.constexpr,
        V_DESCALE: tl.constexpr, FOLD_SCALE: tl.constexpr,
        LAST_FIRST: tl.constexpr, KV_DESC: tl.constexpr,
        ONE_LOOP: tl.constexpr, num_q_heads=None, num_mblocks=None,
        PERSISTENT: tl.constexpr = False, KV_TOGETHER: tl.constexpr = 1):
    # A program's tiles: with PERSISTENT, tiles p, p + programs, ... in the
    # order sequence fastest, then head, then block; else its
    # own, in a loop of one iteration, which the compiler folds away.
    if PERSISTENT:
        per_block = num_seqs * num_q_heads
        first = tl.program_id(0)
        last = per_block * num_mblocks
        step = tl.num_programs(0)
    else:
        first = 0
        last = 1
        step = 1
    for t in range(first, last, step):
        if PERSISTENT:
            seq = t % num_seqs
            head = t // num_seqs % num_q_heads
            mblk = t // per_block
            if LAST_FIRST:
                mblk = num_mblocks - 1 - mblk
        else:
            if FLAT:
                seq, mblk = _flat_block(query_start, tl.program_id(0),
                                        num_seqs, search_steps, BLOCK_M)
                head = tl.program_id(1)
            else:
                # x: the sequence, then the query head among the
                # KV_TOGETHER KV heads' groups of z; y: the block.
                ROUND: tl.constexpr = GROUP * KV_TOGETHER
                nseq = tl.num_programs(0) // ROUND
                x = tl.program_id(0)
                seq = x % nseq
                head = tl.program_id(2) * ROUND + x // nseq
                mblk = tl.program_id(1)
                if LAST_FIRST:
                    mblk = tl.num_programs(1) - 1 - mblk
        _prefill_tile(seq, mblk, head, out, q, k_new, v_new, k_cache, v_cache,
                      block_tables, query_start, seq_lens, scale, num_blocks,
                      bt_stride, q_token_stride, q_head_stride,
                      out_token_stride, out_head_stride, kn_token_stride,
                      kn_head_stride, vn_token_stride, vn_head_stride,
                      k_page_stride, k_token_stride, k_head_stride,
                      v_page_stride, v_token_stride, v_head_stride,
                      alibi_slopes, sinks, lse, lse_head_stride, softcap,
                      window_left, q_descale, qd_seq_stride, qd_head_stride,
                      k_descale, kd_seq_stride, kd_head_stride, v_descale,
                      vd_seq_stride, vd_head_stride, num_seqs, search_steps,
                      GROUP, D, DP, PAGE_SIZE, BLOCK_M, BLOCK_N, SEPARATE,
                      CAUSAL, FLAT, SKIP_DECODE, WINDOW, SOFTCAP, ALIBI, SINKS,
                      LSE, Q_DESCALE, K_DESCALE, V_DESCALE, FOLD_SCALE,
                      LAST_FIRST, KV_DESC, ONE_LOOP)
