"""quire.ops.unified_attention in the interpreter (numpy inputs run the
same kernels as the GPU) against a float64 reference: each optional feature
alone and together (sliding window, softcap, ALiBi, sinks, the log-sum-exp,
descale factors, non-causal), on decode-only, prefill-only and mixed batches
with ragged lengths including 0 and 1, head dims 64..256, pages 16/32/128,
GQA groups 1..16, fp16 and bf16 (uint16 bit patterns), forced split counts;
NaN-poisoned outputs and fresh random inputs per case. Then the kernel
choice, the decode and prefill ops with the same keywords, and every
validation error."""

import math
import zlib

import pytest

import quire
from conftest import FakeCudaArray, has_gpu
from helpers import (attention_ref, from_bf16, from_fp8, make_paged_kv,
                     rel_err, to_bf16, to_fp8)

np = pytest.importorskip("numpy")
ua = quire.ops.unified_attention
FP8_DTYPES = {"e4m3": quire.language.float8e4nv,
              "e5m2": quire.language.float8e5}

# (contexts, chunk lengths) of the batch kinds; the plan each one takes.
BATCHES = {
    "decode": ([0, 37, 129, 5, 60], [1, 1, 1, 1, 1]),         # "decode"
    "decode-varlen": ([10, 3, 0, 70], [1, 0, 1, 1]),          # "decode"
    "prefill": ([0, 45], [40, 40]),                           # "prefill"
    "mixed": ([100, 3, 0, 5, 20, 0], [1, 17, 1, 0, 64, 1]),   # "mixed"
}
PLANS = {"decode": "decode", "decode-varlen": "decode",
         "prefill": "prefill", "mixed": "mixed"}


def _seed(*parts):
    return zlib.crc32(repr(parts).encode())


class Batch:
    """A paged cache holding each sequence's context and chunk, its queries,
    in fp16 or bf16 (as uint16 bits), and the float64 view of each."""

    def __init__(self, rng, ctx, qlens, page=16, hkv=2, group=4, d=32,
                 dtype="f16", kv=None):
        self.lens = np.array([c + n for c, n in zip(ctx, qlens)], np.int32)
        self.cu = np.cumsum([0] + list(qlens)).astype(np.int32)
        self.max_q, self.max_k = max(qlens), int(self.lens.max())
        k, v, self.bt = make_paged_kv(np, rng, len(ctx), hkv, d, page,
                                      list(self.lens), np.float32)
        q = rng.standard_normal((int(self.cu[-1]), hkv * group, d))
        self.dtype = dtype
        self.q, self.k, self.v = (self.cast(x) for x in (q, k, v))
        self.kv = kv
        if kv is not None:
            # An fp8 cache ("e4m3" or "e5m2"): the values rounded to it,
            # passed as uint8 bit patterns reinterpreted.
            dt = FP8_DTYPES[kv]
            self.k, self.v = (quire.reinterpret(to_fp8(np, 4 * x, kv), dt)
                              for x in (k, v))
        self.heads, self.hkv, self.d = hkv * group, hkv, d

    def cast(self, x):
        return to_bf16(np, x) if self.dtype == "bf16" else \
            np.asarray(x).astype(np.float16)

    def f64(self, x):
        if isinstance(x, quire.TensorWrapper):
            return from_fp8(np, x.base, self.kv)
        return from_bf16(np, x).astype(np.float64) if self.dtype == "bf16" \
            else np.asarray(x, np.float64)

    def poisoned(self):
        out = np.full(self.q.shape, np.nan, np.float32)
        return self.cast(out)

    @property
    def tol(self):
        return 2e-3 if self.dtype == "f16" else 1.6e-2


def features(name, b, rng):
    """unified_attention's optional arguments for feature set `name`, and
    the reference's."""
    kw = dict(window_size=(-1, -1), softcap=0.0)
    ref = {}
    S = len(b.lens)
    for part in name.split("+"):
        if part.startswith("window"):
            w = int(part[len("window"):])
            kw["window_size"] = (w, 0)
            ref["window_left"] = w
        elif part.startswith("softcap"):
            kw["softcap"] = ref["softcap"] = float(part[len("softcap"):])
        elif part == "alibi":
            kw["alibi_slopes"] = ref["alibi_slopes"] = \
                rng.uniform(0.05, 0.5, b.heads).astype(np.float32)
        elif part == "sinks":
            kw["sinks"] = ref["sinks"] = \
                (2 * rng.standard_normal(b.heads)).astype(np.float32)
        elif part == "lse":
            kw["return_lse"] = True
        elif part == "descale":
            kw["q_descale"] = ref["q_descale"] = np.array([0.7], np.float32)
            kw["k_descale"] = ref["k_descale"] = \
                rng.uniform(0.5, 1.5, (S, b.hkv)).astype(np.float32)
            # A per-tensor factor expanded to [num_seqs, num_kv_heads], as
            # vLLM passes it (strides 0).
            kw["v_descale"] = ref["v_descale"] = np.broadcast_to(
                np.array([1.3], np.float32), (S, b.hkv))
        elif part != "none":
            raise AssertionError(part)
    return kw, ref


def run(b, kw, ref_kw, causal=True, scale=None, **extra):
    """Runs the op on NaN-poisoned output and checks it (and the lse, if
    asked for) against the reference."""
    scale = 1 / math.sqrt(b.d) if scale is None else scale
    out = b.poisoned()
    lse_on = kw.pop("return_lse", False)
    res = ua(b.q, b.k, b.v, out, b.cu, b.max_q, b.lens, b.max_k, scale,
             causal, kw.pop("window_size"), b.bt, kw.pop("softcap"),
             kw.pop("q_descale", None), kw.pop("k_descale", None),
             kw.pop("v_descale", None), return_lse=lse_on, **kw, **extra)
    ref, ref_lse = attention_ref(np, b.f64(b.q), b.f64(b.k), b.f64(b.v), b.bt,
                                 b.cu, b.lens, scale, causal, **ref_kw)
    got = b.f64(out)
    assert not np.isnan(got).any(), "rows left unwritten"
    assert rel_err(np, got, ref) < b.tol
    if lse_on:
        res_out, lse = res
        assert res_out is out and lse.shape == (b.heads, b.q.shape[0])
        assert lse.dtype == np.float32
        assert (np.isinf(lse) == np.isinf(ref_lse)).all()
        fin = np.isfinite(ref_lse)
        np.testing.assert_allclose(lse[fin], ref_lse[fin], rtol=1e-4,
                                   atol=2e-3)
    else:
        assert res is out
    return out


FEATURES = ["none", "window0", "window8", "window40", "softcap30",
            "softcap50", "softcap2", "alibi", "sinks", "lse", "descale",
            "window24+softcap5+alibi+sinks+lse+descale"]


@pytest.mark.parametrize("feature", FEATURES)
@pytest.mark.parametrize("kind", sorted(BATCHES))
def test_features_match_float64(kind, feature):
    rng = np.random.default_rng(_seed(kind, feature))
    b = Batch(rng, *BATCHES[kind])
    assert quire.ops.unified_plan(b.q.shape[0], len(b.lens),
                                  b.max_q) == PLANS[kind]
    kw, ref = features(feature, b, rng)
    run(b, kw, ref)


@pytest.mark.parametrize("scale", [-0.2, 0.0])
@pytest.mark.parametrize("feature", ["none", "window8+lse", "sinks"])
def test_scale_of_any_sign(feature, scale):
    # The prefill kernel folds the scale into the exponent where there is
    # no softcap or ALiBi (q's sign flipped for a negative scale); a window
    # masks whole tiles for some rows.
    rng = np.random.default_rng(_seed("scale", feature, scale))
    b = Batch(rng, *BATCHES["prefill"])
    kw, ref = features(feature, b, rng)
    run(b, kw, ref, scale=scale)


@pytest.mark.parametrize("feature", ["none", "window16", "alibi+sinks+lse"])
@pytest.mark.parametrize("kind", ["prefill", "mixed", "decode"])
def test_non_causal(kind, feature):
    rng = np.random.default_rng(_seed(kind, feature, "non-causal"))
    b = Batch(rng, *BATCHES[kind])
    kw, ref = features(feature, b, rng)
    if "window_left" in ref:
        kw["window_size"] = (ref["window_left"], -1)
    run(b, kw, ref, causal=False)


ALL = "window24+softcap5+alibi+sinks+lse+descale"


@pytest.mark.parametrize("d, page, group, dtype", [
    (64, 16, 4, "f16"), (80, 16, 4, "f16"), (96, 32, 4, "f16"),
    (128, 16, 4, "f16"), (192, 16, 2, "f16"), (256, 16, 2, "f16"),
    (64, 32, 8, "f16"), (64, 128, 8, "f16"),
    (64, 16, 1, "f16"), (64, 16, 16, "f16"),
    (64, 16, 4, "bf16"), (128, 32, 8, "bf16"),
])
@pytest.mark.parametrize("feature", ["none", ALL])
def test_shapes_mixed_batch(d, page, group, dtype, feature):
    rng = np.random.default_rng(_seed(d, page, group, dtype, feature))
    ctx, qlens = [150, 3, 0, 40, 0], [1, 20, 1, 0, 33]
    b = Batch(rng, ctx, qlens, page=page, hkv=2 if group < 16 else 1,
              group=group, d=d, dtype=dtype)
    kw, ref = features(feature, b, rng)
    run(b, kw, ref)


@pytest.mark.parametrize("kv", ["e4m3", "e5m2"])
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("feature", ["none", "descale", ALL])
@pytest.mark.parametrize("kind", sorted(BATCHES))
def test_fp8_caches(kind, feature, dtype, kv):
    # The caches hold fp8 values, converted exactly to q's dtype in
    # registers; the descale factors multiply the scores and the output.
    rng = np.random.default_rng(_seed(kind, feature, dtype, kv))
    b = Batch(rng, *BATCHES[kind], dtype=dtype, kv=kv)
    kw, ref = features(feature, b, rng)
    run(b, kw, ref)


@pytest.mark.parametrize("d, page, group", [(64, 16, 4), (128, 32, 8),
                                            (80, 128, 1), (256, 16, 16)])
def test_fp8_cache_shapes(d, page, group):
    rng = np.random.default_rng(_seed(d, page, group, "fp8"))
    b = Batch(rng, [150, 3, 0, 40, 0], [1, 20, 1, 0, 33], page=page,
              hkv=2 if group < 16 else 1, group=group, d=d, kv="e4m3")
    kw, ref = features(ALL, b, rng)
    run(b, kw, ref)


@pytest.mark.parametrize("num_splits", [1, 3, 32])
@pytest.mark.parametrize("feature", ["sinks+lse", "window30+alibi+lse",
                                     "softcap20+descale"])
@pytest.mark.parametrize("kind", ["decode", "mixed"])
def test_split_counts(kind, feature, num_splits):
    # Split 0 takes the sinks, the combine kernel the log-sum-exp; the
    # splits partition the window.
    rng = np.random.default_rng(_seed(kind, feature, num_splits))
    ctx, qlens = ([0, 200, 77, 5], [1, 1, 1, 1]) if kind == "decode" else \
        ([0, 200, 40, 5], [1, 1, 30, 0])
    b = Batch(rng, ctx, qlens)
    kw, ref = features(feature, b, rng)
    run(b, kw, ref, num_splits=num_splits)


@pytest.mark.parametrize("feature", ["sinks+lse", "window30+alibi+lse"])
@pytest.mark.parametrize("kind", ["decode", "mixed"])
def test_longest_first_under_the_split_rule(kind, feature, monkeypatch):
    # Where configs.decode_longest_first holds (batches too large for the
    # interpreter), the split kernel ranks the sequences and the split
    # count drops SPLIT_TOKENS' term: here it holds for every batch.
    c = quire.ops.configs
    monkeypatch.setattr(c, "decode_longest_first", lambda *a: True)
    monkeypatch.setattr(c, "SPLIT_TOKENS", 64)
    pads = []
    pad = c.decode_seqs_pad
    monkeypatch.setattr(c, "decode_seqs_pad",
                        lambda n, lf: pads.append(pad(n, lf)) or pads[-1])
    rng = np.random.default_rng(_seed(kind, feature, "longest"))
    ctx, qlens = ([0, 200, 77, 5, 130], [1, 1, 1, 1, 1]) if kind == "decode" \
        else ([0, 200, 40, 5, 130], [1, 1, 30, 0, 1])
    b = Batch(rng, ctx, qlens)
    kw, ref = features(feature, b, rng)
    run(b, kw, ref)
    assert pads[-1] == 8               # the launch's SEQS_PAD


@pytest.mark.parametrize("feature", ["none", "window40+alibi+sinks+lse"])
def test_mixed_batch_on_the_flat_prefill_grid(feature):
    # Chunks longer than the 128-row query tile among decode tokens: the
    # prefill kernel runs on the flat grid (8 programs a head, not 6 x 2).
    ctx, qlens = [20, 5, 0, 40, 3, 9], [1, 150, 1, 1, 0, 131]
    assert quire.ops.configs.prefill_grid(sum(qlens), 6, 150, 128) == (8, True)
    rng = np.random.default_rng(_seed("flat", feature))
    b = Batch(rng, ctx, qlens)
    kw, ref_kw = features(feature, b, rng)
    run(b, kw, ref_kw)


def test_one_token_sequences_match_the_decode_op():
    # A decode batch with one query row per sequence runs exactly
    # paged_decode_attention's kernels: the outputs are bit-identical.
    rng = np.random.default_rng(11)
    b = Batch(rng, *BATCHES["decode"])
    out = ua(b.q, b.k, b.v, None, b.cu, 1, b.lens, b.max_k, 0.3, True,
             (-1, -1), b.bt, 0.0, None, None, None)
    dec = quire.ops.paged_decode_attention(b.q, b.k, b.v, b.bt, b.lens, 0.3)
    np.testing.assert_array_equal(out, dec)


def test_possible_decodes_and_plans():
    pd, plan = quire.ops.configs.possible_decodes, quire.ops.unified_plan
    assert pd(8, 8, 1) == 8 and plan(8, 8, 1) == "decode"
    assert pd(2048, 4, 512) == 0 and plan(2048, 4, 512) == "prefill"
    # 60 decode tokens and 4 chunks of 512: up to 60 one-token sequences.
    assert pd(60 + 4 * 512, 64, 512) == 60 and plan(2108, 64, 512) == "mixed"
    assert pd(3, 4, 1) == 4                   # one chunk of 0 tokens
    assert pd(1636, 4, 512) == 0              # ragged prefill 512/512/512/100
    assert pd(5, 2, 4) == 1                   # 4 + 1


@pytest.mark.parametrize("kv", [None, "e4m3"])
@pytest.mark.parametrize("separate", [True, False])
def test_prefill_op_takes_the_features(separate, kv):
    rng = np.random.default_rng(21 + separate)
    b = Batch(rng, [40, 0, 7], [25, 9, 1], kv=kv)
    kw, ref = features(ALL, b, rng)
    kn = vn = None
    if separate:
        # The chunks' own K/V passed separately (and also in the cache),
        # in q's dtype.
        T = b.q.shape[0]
        kf, vf = b.f64(b.k), b.f64(b.v)
        kn = np.empty((T, b.hkv, b.d), np.float64)
        vn = np.empty_like(kn)
        P = kf.shape[1]
        for s in range(len(b.lens)):
            t = np.arange(b.lens[s] - (b.cu[s + 1] - b.cu[s]), b.lens[s])
            kn[b.cu[s]:b.cu[s + 1]] = kf[b.bt[s, t // P], t % P]
            vn[b.cu[s]:b.cu[s + 1]] = vf[b.bt[s, t // P], t % P]
        kn, vn = b.cast(kn), b.cast(vn)
    out = b.poisoned()
    kw.pop("return_lse")
    res, lse = quire.ops.paged_prefill_attention(
        b.q, b.k, b.v, b.bt, b.cu, b.lens, 0.2, out, key=kn, value=vn,
        max_query_len=b.max_q, return_lse=True, **kw)
    want, want_lse = attention_ref(np, b.f64(b.q), b.f64(b.k), b.f64(b.v),
                                   b.bt, b.cu, b.lens, 0.2, **ref)
    assert res is out and rel_err(np, b.f64(out), want) < b.tol
    np.testing.assert_allclose(lse, want_lse, rtol=1e-4, atol=2e-3)


@pytest.mark.parametrize("kv", [None, "e5m2"])
@pytest.mark.parametrize("num_splits", [1, 4])
def test_decode_op_takes_the_features(num_splits, kv):
    rng = np.random.default_rng(31 + num_splits)
    b = Batch(rng, [0, 90, 33, 150], [1, 1, 1, 1], group=8, d=64, kv=kv)
    kw, ref = features(ALL, b, rng)
    kw.pop("return_lse")
    out = b.poisoned()
    res, lse = quire.ops.paged_decode_attention(
        b.q, b.k, b.v, b.bt, b.lens, 0.15, out, num_splits=num_splits,
        return_lse=True, **kw)
    want, want_lse = attention_ref(np, b.f64(b.q), b.f64(b.k), b.f64(b.v),
                                   b.bt, b.cu, b.lens, 0.15, **ref)
    assert res is out and rel_err(np, b.f64(out), want) < b.tol
    np.testing.assert_allclose(lse, want_lse, rtol=1e-4, atol=2e-3)


def test_empty_sequences_write_zeros_and_minus_inf():
    # Sequences with nothing in the cache: zeros, lse -inf (a sink alone:
    # zeros, lse = the sink).
    rng = np.random.default_rng(5)
    b = Batch(rng, [0, 0, 4], [1, 1, 1])
    b.lens[:2] = 0           # below the chunk: trusted on the GPU only
    b.q = b.q[:3]
    out = np.full(b.q.shape, np.nan, np.float16)
    sinks = np.full(b.heads, 1.5, np.float32)
    quire.ops.paged_decode_attention(b.q, b.k, b.v, b.bt, b.lens, out=out)
    assert (out[:2] == 0).all()
    _, lse = quire.ops.paged_decode_attention(b.q, b.k, b.v, b.bt, b.lens,
                                              out=out, return_lse=True)
    assert np.isneginf(lse[:, :2]).all() and np.isfinite(lse[:, 2]).all()
    _, lse = quire.ops.paged_decode_attention(b.q, b.k, b.v, b.bt, b.lens,
                                              out=out, sinks=sinks,
                                              num_splits=2, return_lse=True)
    assert (out[:2] == 0).all()
    np.testing.assert_allclose(lse[:, :2], 1.5, rtol=1e-6)


def test_window_tiles_before_the_window_are_not_read():
    # With window 8 a decode query reads only the tiles holding its last 9
    # keys: block-table entries before them may be anything (here out of
    # range, which the interpreter would report as an out-of-bounds read).
    rng = np.random.default_rng(9)
    b = Batch(rng, [300, 200], [1, 1])
    ref, _ = attention_ref(np, b.f64(b.q), b.f64(b.k), b.f64(b.v), b.bt,
                           b.cu, b.lens, 0.2, window_left=8)
    # The blocks before the tile that holds the window's first key (the
    # window is 292..300 and 192..200).
    block_n, _ = quire.ops.decode_config(b.d, b.heads // b.hkv)
    for s, bad in ((0, 10 ** 6), (1, -10 ** 6)):
        first = (int(b.lens[s]) - 1 - 8) // block_n * block_n
        assert first >= 128
        b.bt[s, :first // 16] = bad
    for splits in (1, 2):
        out = b.poisoned()
        ua(b.q, b.k, b.v, out, b.cu, 1, b.lens, b.max_k, 0.2, True, (8, 0),
           b.bt, 0.0, None, None, None, num_splits=splits)
        assert rel_err(np, b.f64(out), ref) < b.tol
    # The prefill kernel likewise, for a chunk with a window: its first
    # row (position 200) sees keys 190.., in the 64-key tile 128..191.
    b = Batch(rng, [200], [20])
    ref, _ = attention_ref(np, b.f64(b.q), b.f64(b.k), b.f64(b.v), b.bt,
                           b.cu, b.lens, 0.2, window_left=10)
    b.bt[0, :8] = 10 ** 6          # tokens 0..127
    out = b.poisoned()
    ua(b.q, b.k, b.v, out, b.cu, 20, b.lens, b.max_k, 0.2, True, (10, 0),
       b.bt, 0.0, None, None, None)
    assert rel_err(np, b.f64(out), ref) < b.tol


def test_checked_mode_with_every_feature():
    # checked=True with the features on: the same result, and a bad entry
    # inside a window is reported (not read) by the interpreter.
    rng = np.random.default_rng(13)
    b = Batch(rng, *BATCHES["mixed"])
    kw, ref = features(ALL, b, rng)
    a = run(b, dict(kw), ref)
    c = run(b, dict(kw), ref, checked=True)
    np.testing.assert_array_equal(a, c)
    num_blocks = b.k.shape[0]
    b.bt[0, 6] = num_blocks + 2      # tokens 96..100 of sequence 0, in its window
    with pytest.raises(quire.InterpreterError, match=rf"block table entry "
                       rf"{num_blocks + 2} out of range \[0, {num_blocks}\) "
                       r"at page 6 \(token 96\)"):
        run(b, dict(kw), ref, checked=True)


# --- validation --------------------------------------------------------------

def _args(b, **changes):
    a = dict(q=b.q, k=b.k, v=b.v, out=None, cu_seqlens_q=b.cu,
             max_seqlen_q=b.max_q, seqused_k=b.lens, max_seqlen_k=b.max_k,
             softmax_scale=None, causal=True, window_size=(-1, -1),
             block_table=b.bt, softcap=0.0, q_descale=None, k_descale=None,
             v_descale=None)
    a.update(changes)
    return a


def _fp8_like(x, dt=None):
    """An fp8 array (zero bit patterns) of `x`'s shape."""
    return quire.reinterpret(np.zeros(x.shape, np.uint8),
                             dt or quire.language.float8e4nv)


def _small():
    return Batch(np.random.default_rng(1), [3, 20], [1, 5])


@pytest.mark.parametrize("change, exc, message", [
    (lambda b: dict(q=b.q.astype(np.float32)), TypeError,
     "q: expected float16 or bfloat16, got float32"),
    (lambda b: dict(k=b.k.astype(np.float32)), TypeError,
     "k: expected float16 like q or float8_e4m3fn/float8_e5m2, got "
     "float32"),
    (lambda b: dict(v=b.v[:, :8]), ValueError, "v: shape .* differs from k's"),
    (lambda b: dict(k=_fp8_like(b.k)), TypeError,
     "v: expected float8_e4m3fn like k, got float16"),
    (lambda b: dict(k=_fp8_like(b.k), v=_fp8_like(
        b.v, quire.language.float8e5)), TypeError,
     "v: expected float8_e4m3fn like k, got float8_e5m2"),
    (lambda b: dict(q=_fp8_like(b.q)), TypeError,
     "q: expected float16 or bfloat16, got float8_e4m3fn"),
    (lambda b: dict(out=np.zeros((6, 8, 16), np.float16)), ValueError,
     r"out: shape \[6, 8, 16\] differs from q's \[6, 8, 32\]"),
    (lambda b: dict(cu_seqlens_q=b.cu.astype(np.int64)), TypeError,
     "cu_seqlens_q: expected int32, got int64"),
    (lambda b: dict(cu_seqlens_q=b.cu[:2]), ValueError,
     r"cu_seqlens_q: 2 entries for 2 sequences \(needs 3\)"),
    (lambda b: dict(seqused_k=b.lens[:1]), ValueError,
     r"seqused_k: 1 entries for 2 sequences \(block_table rows\)"),
    (lambda b: dict(block_table=b.bt.astype(np.uint32)), TypeError,
     "block_table: expected int32, got uint32"),
    (lambda b: dict(q=b.q[:, :3]), ValueError,
     "q: num_heads 3 is not a multiple of num_kv_heads 2"),
    (lambda b: dict(q=b.q[0]), ValueError,
     r"q: expected 3 dimensions \[num_tokens, num_heads, head_dim\]"),
    (lambda b: dict(k=np.repeat(b.k, 2, axis=-1)[..., ::2]), ValueError,
     "k: the last dimension must be contiguous"),
    (lambda b: dict(k=b.k[::-1]), ValueError, "k: negative strides"),
    (lambda b: dict(seqused_k=FakeCudaArray((2,), "<i4")), ValueError,
     "seqused_k: on a CUDA device but q is on the CPU"),
    (lambda b: dict(window_size=5), TypeError,
     r"window_size: expected a \(left, right\) tuple of ints, got 5"),
    (lambda b: dict(window_size=(4,)), TypeError, "window_size: expected"),
    (lambda b: dict(window_size=(1.5, 0)), TypeError, "window_size: expected"),
    (lambda b: dict(window_size=(-2, 0)), ValueError,
     "window_size: left must be -1 .* got -2"),
    (lambda b: dict(window_size=(8, 3)), ValueError,
     "window_size: right 3 with causal=True"),
    (lambda b: dict(window_size=(8, 3), causal=False), NotImplementedError,
     "a right window without causal"),
    (lambda b: dict(causal=1), TypeError, "causal: expected True or False"),
    (lambda b: dict(softcap=-1.0), ValueError, "softcap: must be 0"),
    (lambda b: dict(softcap=float("inf")), ValueError, "softcap: must be 0"),
    (lambda b: dict(softcap="30"), TypeError, "softcap: expected a float"),
    (lambda b: dict(softmax_scale=float("nan")), ValueError,
     "softmax_scale: must be finite"),
    (lambda b: dict(max_seqlen_q=-1), ValueError,
     "max_seqlen_q: must be >= 0, got -1"),
    (lambda b: dict(max_seqlen_q="5"), TypeError,
     "max_seqlen_q: expected an int, got str"),
    (lambda b: dict(max_seqlen_q=4), ValueError,
     "max_seqlen_q: 4, but sequence 1's chunk has 5 tokens"),
    (lambda b: dict(max_seqlen_k=-3), ValueError, "max_seqlen_k: must be >= 0"),
    (lambda b: dict(seqused_k=np.array([4, 300], np.int32)), ValueError,
     r"seqused_k\[1\]: 300 tokens, more than its block_table row holds"),
    (lambda b: dict(seqused_k=np.array([4, 3], np.int32)), ValueError,
     r"seqused_k\[1\]: 3 tokens, fewer than its chunk's 5"),
    (lambda b: dict(seqused_k=np.array([-1, 25], np.int32)), ValueError,
     r"seqused_k\[0\]: -1, must be >= 0"),
    (lambda b: dict(cu_seqlens_q=np.array([0, 1, 5], np.int32)), ValueError,
     "cu_seqlens_q: must run from 0 to num_tokens 6, got 0 .. 5"),
    (lambda b: dict(cu_seqlens_q=np.array([0, 7, 6], np.int32)), ValueError,
     "cu_seqlens_q: decreases at sequence 1"),
    (lambda b: dict(alibi_slopes=np.zeros(5, np.float32)), ValueError,
     r"alibi_slopes: expected shape \[8\] \(one per query head\), got \[5\]"),
    (lambda b: dict(alibi_slopes=np.zeros(8, np.float16)), TypeError,
     "alibi_slopes: expected float32, got float16"),
    (lambda b: dict(sinks=np.zeros((8, 1), np.float32)), ValueError,
     r"sinks: expected 1 dimensions \[num_heads\]"),
    (lambda b: dict(sinks=np.zeros(8, np.int32)), TypeError,
     "sinks: expected float32 or float16 or bfloat16, got int32"),
    (lambda b: dict(k_descale=np.ones(3, np.float32)), ValueError,
     r"k_descale: expected one element or shape \[2, 2\]"),
    (lambda b: dict(q_descale=np.ones((1, 1), np.float16)), TypeError,
     "q_descale: expected float32, got float16"),
    (lambda b: dict(v_descale=[1.0]), TypeError,
     "v_descale: expected a tensor, got list"),
    (lambda b: dict(return_lse="yes"), TypeError,
     "return_lse: expected True or False, got str"),
    (lambda b: dict(num_splits=0), ValueError,
     r"num_splits: must be in \[1, 32\], got 0"),
    (lambda b: dict(checked="no"), TypeError, "checked: expected True or False"),
])
def test_validation(change, exc, message):
    b = _small()
    with pytest.raises(exc, match=message):
        ua(**_args(b, **change(b)))


def test_unsupported_shapes():
    rng = np.random.default_rng(3)
    b = Batch(rng, [3, 20], [1, 5], d=264)
    with pytest.raises(NotImplementedError, match="head_dim 264"):
        ua(**_args(b))
    b = Batch(rng, [3, 20], [1, 1], hkv=1, group=65, d=16)
    with pytest.raises(NotImplementedError, match="GQA group must be at most"):
        ua(**_args(b))


def test_empty_batch_returns_out():
    b = _small()
    out = ua(**_args(b, q=b.q[:0], cu_seqlens_q=np.zeros(3, np.int32),
                     max_seqlen_q=0, seqused_k=np.zeros(2, np.int32)))
    assert out.shape == (0, 8, 32)


def _fake(S=3, T=70, H=8, Hkv=2, D=128, P=16, NB=20, MB=6):
    return dict(q=FakeCudaArray((T, H, D), "<f2"),
                k=FakeCudaArray((NB, P, Hkv, D), "<f2"),
                v=FakeCudaArray((NB, P, Hkv, D), "<f2"),
                out=FakeCudaArray((T, H, D), "<f2"),
                cu_seqlens_q=FakeCudaArray((S + 1,), "<i4"),
                max_seqlen_q=64, seqused_k=FakeCudaArray((S,), "<i4"),
                max_seqlen_k=MB * P, softmax_scale=0.1, causal=True,
                window_size=(63, 0), block_table=FakeCudaArray((S, MB), "<i4"),
                softcap=30.0, q_descale=None, k_descale=None, v_descale=None)


@pytest.mark.skipif(has_gpu(), reason="checks the no-GPU path")
@pytest.mark.parametrize("T, max_q", [(3, 1), (70, 64), (192, 64)])
def test_gpu_path_reads_no_device_values(T, max_q):
    # On the GPU the op reads no lengths or start locations (they would
    # synchronize the device): arrays with no memory behind them pass
    # validation, for every plan, and reach the driver.
    a = _fake(T=T)
    a["max_seqlen_q"] = max_q
    with pytest.raises(quire.CudaError):
        ua(**a, alibi_slopes=FakeCudaArray((8,), "<f4"),
           sinks=FakeCudaArray((8,), "<f4"))


def test_gpu_validation_with_fake_arrays():
    a = _fake()
    with pytest.raises(TypeError, match="out=None needs a torch tensor"):
        ua(**dict(a, out=None))
    with pytest.raises(ValueError, match="block_table: on the CPU but q is on "
                       "a CUDA device"):
        ua(**dict(a, block_table=np.zeros((3, 6), np.int32)))
    with pytest.raises(ValueError, match="alibi_slopes: on the CPU"):
        ua(**a, alibi_slopes=np.zeros(8, np.float32))
    with pytest.raises(TypeError, match="return_lse=True allocates"):
        ua(**a, return_lse=True)


# --- on the GPU, against torch float64 -----------------------------------------

@pytest.fixture(scope="module")
def torch():
    import torch
    return torch


@pytest.fixture
def gen(torch):
    g = torch.Generator(device="cuda")
    g.seed()  # fresh inputs each run
    return g


def _torch_case(torch, gen, ctx, qlens, page, hq, hkv, d, dtype):
    lens = [c + n for c, n in zip(ctx, qlens)]
    mb = max(1, max(-(-n // page) for n in lens))
    nb = len(lens) * mb + 3
    kv = torch.randn(2, nb, page, hkv, d, device="cuda", generator=gen).to(dtype)
    bt = torch.randperm(nb, device="cuda", generator=gen)[:len(lens) * mb]
    bt = bt.view(len(lens), mb).int().contiguous()
    cu = torch.tensor([0] + list(np.cumsum(qlens)), dtype=torch.int32,
                      device="cuda")
    q = torch.randn(int(cu[-1]), hq, d, device="cuda", generator=gen).to(dtype)
    sl = torch.tensor(lens, dtype=torch.int32, device="cuda")
    return q, kv, bt, cu, sl, max(qlens), max(lens)


def _ref_on_cpu(torch, q, k, v, bt, cu, sl, scale, **kw):
    f = lambda x: x.double().cpu().numpy()
    kw = {n: (f(x) if hasattr(x, "cpu") else x) for n, x in kw.items()}
    return attention_ref(np, f(q), f(k), f(v), bt.cpu().numpy(),
                         cu.cpu().numpy(), sl.cpu().numpy(), scale, **kw)


def _check_gpu(torch, dtype, res, out, ref, ref_lse):
    """The (out, lse) of a return_lse=True call against the reference."""
    tol = 2e-3 if dtype == torch.float16 else 1.6e-2
    assert res[0] is out and not torch.isnan(out).any()
    assert rel_err(np, out.double().cpu().numpy(), ref) < tol
    lse = res[1].cpu().numpy()
    fin = np.isfinite(ref_lse)
    np.testing.assert_allclose(lse[fin], ref_lse[fin], rtol=1e-3, atol=1e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("ctx, qlens, page, hq, hkv, d, feats", [
    ([300, 5, 0, 1000, 70], [1, 130, 1, 0, 257], 16, 32, 8, 128, "none"),
    ([300, 5, 0, 1000, 70], [1, 130, 1, 0, 257], 16, 32, 8, 128, "all"),
    ([2000] * 6, [1] * 6, 16, 32, 8, 128, "all"),
    ([0, 640], [512, 512], 32, 16, 2, 64, "all"),
    ([129, 4000, 3], [1, 1, 64], 128, 8, 1, 256, "all"),
    ([77, 500], [1, 90], 16, 6, 2, 80, "all"),
])
def test_unified_on_gpu(torch, gen, dtype, ctx, qlens, page, hq, hkv, d, feats):
    dtype = getattr(torch, dtype)
    q, kv, bt, cu, sl, mq, mk = _torch_case(torch, gen, ctx, qlens, page, hq,
                                            hkv, d, dtype)
    kw = {}
    if feats == "all":
        kw = dict(window_left=128, softcap=30.0,
                  alibi_slopes=torch.rand(hq, device="cuda", generator=gen) / 4,
                  sinks=torch.randn(hq, device="cuda", generator=gen))
    out = torch.full_like(q, float("nan"))
    res = ua(q, kv[0], kv[1], out, cu, mq, sl, mk, 1 / math.sqrt(d), True,
             (kw.get("window_left", -1), 0), bt, kw.get("softcap", 0.0), None,
             None, None, alibi_slopes=kw.get("alibi_slopes"),
             sinks=kw.get("sinks"), return_lse=True)
    torch.cuda.synchronize()
    ref, ref_lse = _ref_on_cpu(torch, q, kv[0], kv[1], bt, cu, sl,
                               1 / math.sqrt(d), **kw)
    _check_gpu(torch, dtype, res, out, ref, ref_lse)


@pytest.mark.gpu
@pytest.mark.parametrize("kv", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("ctx, qlens, page, hq, hkv, d, feats", [
    ([300, 5, 0, 1000, 70], [1, 130, 1, 0, 257], 16, 32, 8, 128, "all"),
    ([2000] * 6, [1] * 6, 16, 32, 8, 128, "none"),
    ([4096] * 3, [1] * 3, 16, 32, 8, 128, "all"),
    ([0, 640], [512, 512], 32, 16, 2, 64, "all"),
    ([129, 4000, 3], [1, 1, 64], 128, 8, 1, 256, "all"),
    ([77, 500], [1, 90], 16, 6, 2, 80, "none"),
])
def test_unified_fp8_on_gpu(torch, gen, kv, dtype, ctx, qlens, page, hq, hkv,
                            d, feats):
    dtype, kv = getattr(torch, dtype), getattr(torch, kv)
    q, kv16, bt, cu, sl, mq, mk = _torch_case(torch, gen, ctx, qlens, page,
                                              hq, hkv, d, torch.float32)
    q = q.to(dtype)
    cache = (kv16 * 8).to(kv)  # values across the fp8 range
    S = len(ctx)
    kw, scales = {}, {}
    if feats == "all":
        kw = dict(window_left=128, softcap=30.0,
                  alibi_slopes=torch.rand(hq, device="cuda", generator=gen) / 4,
                  sinks=torch.randn(hq, device="cuda", generator=gen))
        scales = dict(
            q_descale=torch.tensor([0.9], device="cuda"),
            k_descale=torch.rand(S, hkv, device="cuda", generator=gen) / 8,
            # A per-tensor factor expanded as vLLM passes it (strides 0).
            v_descale=torch.tensor([0.125], device="cuda").expand(S, hkv))
    out = torch.full_like(q, float("nan"))
    res = ua(q, cache[0], cache[1], out, cu, mq, sl, mk, 1 / math.sqrt(d),
             True, (kw.get("window_left", -1), 0), bt, kw.get("softcap", 0.0),
             scales.get("q_descale"), scales.get("k_descale"),
             scales.get("v_descale"), alibi_slopes=kw.get("alibi_slopes"),
             sinks=kw.get("sinks"), return_lse=True)
    torch.cuda.synchronize()
    ref, ref_lse = _ref_on_cpu(torch, q, cache[0], cache[1], bt, cu, sl,
                               1 / math.sqrt(d), **kw, **scales)
    _check_gpu(torch, dtype, res, out, ref, ref_lse)


@pytest.mark.gpu
def test_unified_mixed_batch_in_a_cuda_graph(torch, gen):
    q, kv, bt, cu, sl, mq, mk = _torch_case(
        torch, gen, [100, 0, 513, 7], [1, 70, 1, 5], 16, 8, 2, 128,
        torch.half)
    out = torch.empty_like(q)
    call = lambda: ua(q, kv[0], kv[1], out, cu, mq, sl, mk, 0.1, True,
                      (64, 0), bt, 0.0, None, None, None)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):                          # warm up: load modules
        call()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    q.copy_(torch.randn(q.shape, device="cuda", generator=gen).half())
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    ref, _ = _ref_on_cpu(torch, q, kv[0], kv[1], bt, cu, sl, 0.1,
                         window_left=64)
    assert rel_err(np, out.double().cpu().numpy(), ref) < 2e-3
