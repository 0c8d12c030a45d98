"""The hand-written examples (examples/*.mlir) written again in the frontend,
op for op where the language allows: same tiles, same signatures, same
arguments. test_frontend_examples.py checks each pair computes the same in
the interpreter; perf/frontend_parity times their PTX side by side (the
frontend should cost nothing).

Each entry of EXAMPLES maps an example's file name to (JIT function, the
constexprs that fix its tiles). Integer arguments the example does not mark
`tile.divisibility` are `do_not_specialize` here, so both compile from the
same facts."""

import quire
import quire.language as tl


@quire.jit(do_not_specialize=["n"])
def vector_add(x, y, out, n):
    pid = tl.program_id(0)
    offs = pid * 1024 + tl.arange(0, 1024)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) +
             tl.load(y + offs, mask=mask), mask=mask)


@quire.jit(do_not_specialize=["row_stride", "n"])
def softmax(x, out, row_stride, n):
    row = tl.program_id(0)
    row_start = row * row_stride
    cols = tl.arange(0, 1024)
    mask = cols < n
    offs = row_start + cols
    v = tl.load(x + offs, mask=mask, other=float("-inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    y = e / tl.sum(e, axis=0)
    tl.store(out + offs, y, mask=mask)


@quire.jit(do_not_specialize=["M", "N", "K", "lda", "ldb", "ldc"])
def matmul(a, b, c, M, N, K, lda, ldb, ldc):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * 64 + tl.arange(0, 64)
    rn = pn * 64 + tl.arange(0, 64)
    rk = tl.arange(0, 32)
    mmask = rm < M
    nmask = rn < N
    acc = tl.zeros((64, 64), tl.float32)
    for k in range(0, K, 32):
        kk = k + rk
        kmask = kk < K
        at = tl.load(a + rm[:, None] * lda + kk[None, :],
                     mask=mmask[:, None] & kmask[None, :], other=0.0)
        bt = tl.load(b + kk[:, None] * ldb + rn[None, :],
                     mask=kmask[:, None] & nmask[None, :], other=0.0)
        acc = tl.dot(at, bt, acc)
    tl.store(c + rm[:, None] * ldc + rn[None, :], acc.to(tl.float16),
             mask=mmask[:, None] & nmask[None, :])


@quire.jit(do_not_specialize=["seq_lens", "num_q_heads", "max_pages"])
def paged_decode_attention(out, q, k_cache, v_cache, block_tables, seq_lens,
                           scale, num_q_heads, max_pages,
                           page_stride: tl.int64, token_stride: tl.int64,
                           head_stride: tl.int64):
    seq = tl.program_id(0)
    kv_head = tl.program_id(1)
    seq_len = tl.load(seq_lens + seq)
    bt_row = block_tables + seq * max_pages
    base = (seq * num_q_heads + kv_head * 4) * 128
    # As the example builds them: full-size sums of broadcast parts.
    q_offs = (base + tl.broadcast_to(tl.arange(0, 4)[:, None] * 128, (4, 128))
              + tl.broadcast_to(tl.arange(0, 128)[None, :], (4, 128)))
    qv = tl.load(q + q_offs)
    m = tl.full((4,), float("-inf"), tl.float32)
    l = tl.zeros((4,), tl.float32)
    acc = tl.zeros((4, 128), tl.float32)
    toks0 = tl.arange(0, 64)
    for start in range(0, seq_len, 64):
        k = tl.paged_load(k_cache, bt_row, start, kv_head, (64, 128), 16,
                          (page_stride, token_stride, head_stride), seq_len)
        s = tl.dot(qv, tl.trans(k)) * scale
        valid = start + toks0 < seq_len
        s = tl.where(valid[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1), propagate_nan="ALL")
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        l = l * alpha + tl.sum(p, axis=1)
        v = tl.paged_load(v_cache, bt_row, start, kv_head, (64, 128), 16,
                          (page_stride, token_stride, head_stride), seq_len)
        pv = tl.dot(p.to(tl.float16), v)
        acc = acc * alpha[:, None] + pv
        m = m_new
    l_safe = tl.where(l > 0.0, l, 1.0)
    tl.store(out + q_offs, (acc / l_safe[:, None]).to(tl.float16))


EXAMPLES = {
    "vector_add.mlir": (vector_add, {}),
    "softmax.mlir": (softmax, {}),
    "matmul.mlir": (matmul, {}),
    "paged_decode_attention.mlir": (paged_decode_attention, {}),
}
