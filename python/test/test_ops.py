"""quire.ops.paged_decode_attention: its kernels in the interpreter
against a float64 reference (numpy inputs), and every validation error, with
numpy arrays and with fake CUDA arrays, before anything compiles."""

import math

import pytest

import quire
from conftest import FakeCudaArray, has_gpu
from helpers import make_paged_kv, paged_attention_ref, rel_err
from quire.ops import decode_kernels

np = pytest.importorskip("numpy")
pda = quire.ops.paged_decode_attention


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def _case(rng, num_seqs=3, num_kv_heads=2, group=4, head_dim=32, page=8,
          lens=(0, 1, 70), dtype=np.float16):
    k, v, bt = make_paged_kv(np, rng, num_seqs, num_kv_heads, head_dim, page,
                             list(lens), dtype)
    q = rng.standard_normal((num_seqs, num_kv_heads * group, head_dim)).astype(dtype)
    return q, k, v, bt, np.array(lens, np.int32)


@pytest.mark.parametrize("num_seqs, num_kv_heads, group, head_dim, page, lens", [
    (4, 2, 4, 32, 8, (0, 1, 17, 130)),   # ragged, incl. empty and one token
    (2, 1, 1, 16, 16, (64, 5)),          # MHA, a tile exactly full
    (2, 2, 8, 16, 4, (33, 9)),           # tiny pages: 16 per tile
    (1, 1, 2, 64, 128, (200,)),          # pages larger than a tile
    (2, 4, 2, 16, 1, (3, 66)),           # one token per page
    (3, 1, 3, 40, 8, (70, 0, 129)),      # group 3, head_dim 40 (padded to 64)
    (2, 2, 7, 24, 24, (100, 49)),        # group 7, head_dim 24, 24-token pages
    (1, 1, 16, 8, 16, (65,)),            # group 16, head_dim 8 (padded to 16)
    (2, 1, 5, 20, 256, (300, 257)),      # 256-token pages, head_dim 20
])
def test_matches_float64(rng, num_seqs, num_kv_heads, group, head_dim, page, lens):
    q, k, v, bt, sl = _case(rng, num_seqs, num_kv_heads, group, head_dim, page, lens)
    out = np.full(q.shape, np.nan, np.float16)
    assert pda(q, k, v, bt, sl, out=out) is out
    ref = paged_attention_ref(np, q, k, v, bt, sl)
    assert rel_err(np, out, ref) < 2e-3
    assert (out[np.array(lens) == 0] == 0).all()


@pytest.mark.parametrize("kw", [
    dict(num_splits=1),
    dict(num_splits=3),                  # ragged split boundaries
    dict(num_splits=32),                 # more splits than tiles: trimmed
    dict(max_seq_len=64, num_splits=2),  # understated: the last split takes the rest
    dict(max_seq_len=0),
])
def test_splits_match_float64(rng, kw):
    q, k, v, bt, sl = _case(rng, 4, 2, 4, 32, 16, (0, 1, 190, 77))
    out = np.full(q.shape, np.nan, np.float16)
    pda(q, k, v, bt, sl, out=out, **kw)
    assert rel_err(np, out, paged_attention_ref(np, q, k, v, bt, sl)) < 2e-3
    assert (out[0] == 0).all()


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("group, num_splits", [(4, 1), (4, 3), (1, 2), (16, 2)])
def test_both_forms_match_float64(rng, transposed, group, num_splits):
    # The row form (GQA group as the M of the dots) and the transposed one
    # (the group as their N), whichever decode_transposed picks by default.
    q, k, v, bt, sl = _case(rng, 3, 2, group, 40, 8, (0, 97, 33))
    _hook_matches_float64(q, k, v, bt, sl, num_splits, transposed=transposed)


def _hook_matches_float64(q, k, v, bt, sl, num_splits, **options):
    """_paged_decode with `options` into a NaN-poisoned output: the float64
    reference, and zeros for the first (empty) sequence."""
    out = np.full(q.shape, np.nan, np.float16)
    quire.ops._paged_decode(q, k, v, bt, sl, None, out, None, num_splits,
                            **options)
    assert rel_err(np, out, paged_attention_ref(np, q, k, v, bt, sl)) < 2e-3
    assert (out[0] == 0).all()
    return out


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("num_splits", [1, 3])
def test_gathered_rows_match_float64(rng, transposed, num_splits):
    # The ablation hook of quire-assign-layouts' gathered rows: the split
    # kernel with the caches' token strides as constants; the option is
    # checked.
    from quire.ops import decode
    q, k, v, bt, sl = _case(rng, 3, 2, 4, 40, 8, (0, 97, 33))
    out = _hook_matches_float64(q, k, v, bt, sl, num_splits,
                                transposed=transposed, gathered_rows=True)
    kts = k.strides[1] // k.itemsize
    specs = [first for key, (first, _) in decode._plans.items()
             if (("k_token_stride", kts), ("v_token_stride", kts)) in key]
    assert specs and all("k_token_stride" not in s.order for s in specs)
    with pytest.raises(TypeError, match="gathered_rows: expected True or "
                                        "False, got str"):
        quire.ops._paged_decode(q, k, v, bt, sl, None, out, None, 1,
                                gathered_rows="yes")


@pytest.mark.parametrize("heads_first", [False, True])
@pytest.mark.parametrize("num_splits, num_stages", [(1, 2), (3, 3)])
def test_grid_orders_and_stages_match_float64(rng, heads_first, num_splits,
                                              num_stages):
    # The split kernel's grid with the KV heads or the sequences as x, at
    # the op's staging depth and one more (the tuning hooks).
    q, k, v, bt, sl = _case(rng, 3, 2, 3, 40, 8, (0, 97, 33))
    out = _hook_matches_float64(q, k, v, bt, sl, num_splits,
                                num_stages=num_stages, heads_first=heads_first)
    with pytest.raises(ValueError, match="num_stages must be None or an int "
                                         "in \\[2, 8\\], got 1"):
        quire.ops._paged_decode(q, k, v, bt, sl, None, out, None, 1,
                                num_stages=1)


@pytest.mark.parametrize("heads_first", [False, True])
@pytest.mark.parametrize("num_seqs, lens", [
    (5, (0, 97, 33, 97, 1)),             # ties (by index), empty, one token
    (19, tuple(range(0, 190, 10))),      # 19 of 32: two blocks of 16
])
@pytest.mark.parametrize("num_splits", [1, 3])
def test_longest_first_matches_float64(rng, heads_first, num_seqs, lens,
                                       num_splits):
    # Programs taking the sequences longest first (SEQS_PAD): every
    # sequence still gets exactly its own programs.
    q, k, v, bt, sl = _case(rng, num_seqs, 2, 3, 40, 8, lens)
    ref = paged_attention_ref(np, q, k, v, bt, sl)
    out = np.full(q.shape, np.nan, np.float16)
    quire.ops._paged_decode(q, k, v, bt, sl, None, out, None, num_splits,
                            heads_first=heads_first, longest_first=True)
    assert rel_err(np, out, ref) < 2e-3
    assert (out[sl == 0] == 0).all()


def test_longest_first_pads_the_sequences_it_ranks():
    f = quire.ops.configs.decode_seqs_pad
    assert f(5, True) == 8 and f(256, True) == 256
    assert f(1, True) is None and f(257, True) is None
    assert f(5, False) is None and f(5, None) is None


def test_longest_first_replaces_the_splits_of_long_sequences():
    # On where the split count grows only so that no program reads more
    # than SPLIT_TOKENS; the batch then runs the occupancy count.
    c = quire.ops.configs
    rule = lambda S, L, **kw: c.decode_longest_first(
        S, 8, L, 32, 132, num_warps=4, resident=6, **kw)
    splits = lambda S, L, lf: c.num_splits_for(
        S, 8, L, 32, 132, num_warps=4, resident=6, longest_first=lf)
    assert rule(128, 8192) and (splits(128, 8192, False),
                                splits(128, 8192, True)) == (2, 1)
    assert rule(64, 16384) and (splits(64, 16384, False),
                                splits(64, 16384, True)) == (4, 1)
    assert not rule(64, 4096)              # one split either way
    assert not rule(8, 32768)              # 8 splits either way
    assert not rule(32, 8192)              # 2 either way (256 programs)
    assert not rule(257, 8192)             # more than the kernel ranks
    assert not rule(1, 32768)              # nothing to rank
    assert not c.decode_longest_first(128, 8, 8192, 32, 132, num_warps=1)


def test_longest_first_ranks_by_length(rng):
    # The rank -> sequence map itself, in the interpreter: program r
    # writes the sequence it would take.
    lens = np.array([5, 90, 90, 0, 33, 200, 1], np.int32)

    @quire.jit(interpret=True)
    def rank_kernel(seq_lens, out, num_seqs, N: quire.language.constexpr):
        r = quire.language.program_id(0)
        quire.language.store(out + r, decode_kernels._longest_first(
            seq_lens, r, num_seqs, N))

    got = np.full(len(lens), -1, np.int32)
    rank_kernel[(len(lens),)](lens, got, len(lens), N=8)
    assert got.tolist() == [5, 1, 2, 4, 0, 6, 3]
    # Negative lengths (bad device data) rank before the padding: every
    # program still takes one of the batch's sequences.
    lens = np.array([-7, 4, -2147483648], np.int32)
    got = np.full(3, -1, np.int32)
    rank_kernel[(3,)](lens, got, 3, N=4)
    assert got.tolist() == [1, 0, 2]


def test_wide_fp8_operands_hook_is_checked(rng):
    # The benchmarks' ablation switch (a compile option: the interpreter
    # runs the same kernel either way).
    q, k, v, bt, sl = _case(rng, 2, 2, 4, 40, 8, (5, 33))
    out = np.full(q.shape, np.nan, np.float16)
    quire.ops._paged_decode(q, k, v, bt, sl, None, out, None, 1,
                            wide_fp8_operands=False)
    assert rel_err(np, out, paged_attention_ref(np, q, k, v, bt, sl)) < 2e-3
    with pytest.raises(TypeError, match="wide_fp8_operands: expected True "
                                        "or False, got str"):
        quire.ops._paged_decode(q, k, v, bt, sl, None, out, None, 1,
                                wide_fp8_operands="no")


def test_transposed_form_choice():
    f = quire.ops.decode_transposed
    assert [f(128, g) for g in (1, 2, 4, 8, 16)] == [False, True, True, True, False]
    assert not f(256, 4)  # head dim 256: the 4-warp row form
    assert not f(128, 4, fp8=True)  # fp8 caches: the row form
    c = quire.ops.configs
    assert c.decode_config(128, 4, fp8=True) == c.decode_config(128, 4) == (32, 4)
    # fp8 caches take the 4-warp split rule: 1 split at 512 programs, 8 at 64.
    assert [c.num_splits_for(s, 8, L, 32, fp8=True, num_warps=4)
            for s, L in ((64, 4096), (8, 32768))] == [1, 8]
    src = quire.ops.paged_decode_source("f16", 4, 128, 16, 16, transposed=True)
    assert "tensor<128x8xf32" in src and "tensor<16x128xf32" not in src


@pytest.mark.parametrize("kw, exc, message", [
    (dict(num_splits=0), ValueError, r"num_splits: must be in \[1, 32\], got 0"),
    (dict(num_splits=33), ValueError, r"num_splits: must be in \[1, 32\], got 33"),
    (dict(num_splits=2.0), TypeError, "num_splits: expected an int, got float"),
    (dict(max_seq_len=-1), ValueError, "max_seq_len: must be >= 0, got -1"),
    (dict(max_seq_len="8"), TypeError, "max_seq_len: expected an int, got str"),
])
def test_split_argument_validation(rng, kw, exc, message):
    with pytest.raises(exc, match=message):
        pda(*_case(rng), **kw)


def test_num_splits_depends_on_shapes_only():
    f = quire.ops.num_splits_for
    assert f(64, 8, 4096, 64, 132) == 3       # 512 programs: 3 splits
    assert f(8, 8, 32768, 64, 132) == 17      # about 8 programs per SM
    # fp8 on one-warp programs (groups past 16 rows): at most 8 per SM.
    assert f(8, 8, 32768, 64, 132, fp8=True) == 16
    assert f(64, 8, 4096, 64, 132, fp8=True) == 2
    assert f(256, 32, 8192, 64, 132, fp8=True) == 1
    # 4-warp programs: about 4 per SM, but one wave of what fits where
    # that is fewer (head dim 256: 3 per SM by shared memory).
    c = quire.ops.configs
    assert c.decode_resident(128, 4, 32, False, True, 2) == 6
    assert c.decode_resident(256, 4, 32, False, False, 2) == 3
    assert c.decode_resident(256, 4, 32, False, False, 2, 164 * 1024) == 2
    assert f(32, 8, 4096, 32, 132, num_warps=4) == 2
    assert f(32, 8, 4096, 32, 132, num_warps=4, resident=6) == 2
    assert f(32, 8, 4096, 32, 132, num_warps=4, resident=3) == 1
    assert f(1, 8, 4096, 32, 132, num_warps=4, resident=3) == 32
    # ... and still no split longer than SPLIT_TOKENS.
    assert f(8, 8, 32768, 32, 132, num_warps=4, resident=3) == 8
    assert f(1, 1, 100000, 64, 132) == 32      # capped at MAX_SPLITS
    assert f(1, 1, 100, 64, 132) == 1          # one 4-tile split is enough
    assert f(256, 32, 8192, 64, 132) == 1
    # 4-warp programs (the default tiles): about 4 per SM, rounded.
    assert f(64, 8, 4096, 32, 132, num_warps=4) == 1     # 512 programs
    assert f(32, 8, 8192, 32, 132, num_warps=4) == 2     # 256
    assert f(8, 8, 32768, 32, 132, num_warps=4) == 8     # 64
    assert f(32, 4, 16384, 32, 132, num_warps=4) == 4    # 128
    assert f(1, 8, 4096, 32, 132, num_warps=4) == 32     # the cap
    assert f(1, 8, 1000, 32, 132, num_warps=4) == 8      # 4 tiles a split
    assert f(128, 8, 8192, 32, 132, num_warps=4) == 2     # <= 4096 tokens
    assert f(128, 8, 4096, 32, 132, num_warps=4) == 1
    c = quire.ops.decode_config
    assert c(128, 4) == (32, 4) and c(64, 8) == (64, 4) and c(256, 4) == (32, 4)
    assert c(128, 1) == (32, 4) and c(128, 16) == (32, 4)
    assert c(128, 32) == (16, 2) and c(256, 64) == (32, 4)
    assert c(128, 4, fp8=True) == (32, 4) and c(256, 4, fp8=True) == (32, 4)
    assert c(128, 32, fp8=True) == (16, 2)


def test_out_and_scale(rng):
    q, k, v, bt, sl = _case(rng)
    out = np.full(q.shape, np.nan, np.float16)
    assert pda(q, k, v, bt, sl, scale=0.3, out=out) is out
    assert rel_err(np, out, paged_attention_ref(np, q, k, v, bt, sl, 0.3)) < 2e-3


def test_strided_inputs_use_the_unaligned_variant(rng):
    # vLLM-style views: caches with padded heads, query out of a fused qkv
    # buffer, block table rows with slack, out with a padded head stride.
    S, Hkv, G, D, P, lens = 3, 2, 4, 32, 8, [5, 40, 23]
    k, v, bt = make_paged_kv(np, rng, S, Hkv, D, P, lens, np.float16)
    kp = np.zeros(k.shape[:3] + (D + 8,), np.float16)
    vp = np.zeros_like(kp)
    kp[..., :D], vp[..., :D] = k, v
    qkv = rng.standard_normal((S, Hkv * G + 2 * Hkv, D)).astype(np.float16)
    q = qkv[:, :Hkv * G]
    btp = np.zeros((S, bt.shape[1] + 3), np.int32)
    btp[:, :bt.shape[1]] = bt
    outp = np.full((S, Hkv * G, D + 16), np.nan, np.float16)
    out = pda(q, kp[..., :D], vp[..., :D], btp[:, :bt.shape[1]],
              np.array(lens, np.int32), out=outp[..., :D])
    ref = paged_attention_ref(np, q, k, v, bt, np.array(lens))
    assert rel_err(np, out, ref) < 2e-3
    assert np.isnan(outp[..., D:]).all()
    # The plan keys (dtype, kv dtype, group, head_dim, page, block_n,
    # aligned pointers, aligned strides, ...): strides % 16 != 0 took the variant
    # without the divisibility facts.
    assert any(key[7] is False for key in quire.ops.decode._plans)


def test_generated_source_is_a_kernel():
    src = quire.ops.paged_decode_source("bf16", 8, 128, 16, 64, False, True)
    sig = quire.signature(src, kernel="paged_decode_split")
    assert sig["args"][2]["type"] == "!tile.ptr<bf16>"
    assert sig["args"][2]["divisibility"] == 1        # unaligned pointers
    assert sig["args"][8]["divisibility"] == 64       # tokens_per_split
    assert sig["args"][9]["divisibility"] == 16       # aligned strides
    assert "$" not in src.split("func.func", 1)[1]
    assert "{cols =" not in src
    comb = quire.signature(src, kernel="paged_decode_combine")
    assert comb["args"][0]["type"] == "!tile.ptr<bf16>"
    one = quire.ops.paged_decode_source("f16", 8, 128, 16, 64, True, True,
                                        partials=False)
    assert "func.func @paged_decode_combine" not in one
    assert "\n// IF PARTIALS\n" not in one
    sig = quire.signature(one)
    assert sig["name"] == "paged_decode_attention" and len(sig["args"]) == 19


def test_padded_head_dim_reads_no_padding():
    src = quire.ops.paged_decode_source("f16", 3, 80, 16, 64, True, True)
    assert "cols = 80 : i32, page_size = 16 : i32" in src
    assert "tensor<16x128xf16>" in src                # 3 rows -> 16, 80 -> 128


@pytest.mark.parametrize("spec", [
    ("f16", 4, 128, 16, 64, True, True),
    ("bf16", 8, 128, 16, 64, True, True),
    ("f16", 1, 64, 32, 64, False, False),
    ("bf16", 4, 256, 16, 32, True, True),
    ("f16", 6, 80, 8, 64, True, True),
    ("bf16", 16, 192, 256, 32, True, True),
    ("f16", 7, 112, 128, 64, True, False),
])
def test_specializations_compile(spec):
    src = quire.ops.paged_decode_source(*spec)
    k = quire.compile(src, sm=90, kernel="paged_decode_split")
    assert k.name == "paged_decode_split" and len(k.args) == 18
    c = quire.compile(src, sm=80, kernel="paged_decode_combine")
    assert c.name == "paged_decode_combine" and len(c.args) == 6
    one = quire.compile(quire.ops.paged_decode_source(*spec, partials=False),
                        sm=80)
    assert one.name == "paged_decode_attention" and len(one.args) == 19


def test_no_sequences_returns_out(rng):
    q, k, v, bt, sl = _case(rng)
    out = pda(q[:0], k, v, bt[:0], sl[:0])
    assert out.shape == (0,) + q.shape[1:]


def _replace(args, **changes):
    names = ("query", "key_cache", "value_cache", "block_table", "seq_lens")
    d = dict(zip(names, args))
    d.update(changes)
    return d


@pytest.mark.parametrize("change, exc, message", [
    (lambda a: dict(query=a["query"].astype(np.float32)), TypeError,
     "query: expected float16 or bfloat16, got float32"),
    (lambda a: dict(key_cache=a["key_cache"].astype(np.float32)), TypeError,
     "key_cache: expected float16 like query or float8_e4m3fn/float8_e5m2, "
     "got float32"),
    (lambda a: dict(value_cache=a["value_cache"][:, :, :1]), ValueError,
     "value_cache: shape .* differs from key_cache's"),
    (lambda a: dict(block_table=a["block_table"].astype(np.int64)), TypeError,
     "block_table: expected int32, got int64"),
    (lambda a: dict(seq_lens=a["seq_lens"].astype(np.uint32)), TypeError,
     "seq_lens: expected int32, got uint32"),
    (lambda a: dict(seq_lens=a["seq_lens"][:2]), ValueError,
     "seq_lens: 2 entries for 3 sequences"),
    (lambda a: dict(block_table=a["block_table"][:1]), ValueError,
     "block_table: 1 rows for 3 sequences"),
    (lambda a: dict(query=a["query"][:, :, :16]), ValueError,
     "key_cache: head_dim 32 differs from query's 16"),
    (lambda a: dict(query=a["query"][:, :6]), ValueError,
     "query: num_heads 6 is not a multiple of num_kv_heads 4"),
    (lambda a: dict(query=a["query"][0]), ValueError,
     r"query: expected 3 dimensions \[num_seqs, num_heads, head_dim\], got shape \[8, 32\]"),
    (lambda a: dict(key_cache=np.repeat(a["key_cache"], 2, axis=-1)[..., ::2]), ValueError,
     "key_cache: the last dimension must be contiguous"),
    (lambda a: dict(key_cache=a["key_cache"][::-1]), ValueError,
     "key_cache: negative strides"),
    (lambda a: dict(query=a["query"].tolist()), TypeError,
     "query: expected a tensor, got list"),
    (lambda a: dict(block_table=None), TypeError,
     "block_table: expected a tensor, got None"),
    (lambda a: dict(seq_lens=FakeCudaArray((3,), "<i4")), ValueError,
     "seq_lens: on a CUDA device but query is on the CPU"),
])
def test_validation(rng, change, exc, message):
    q, k, v, bt, sl = _case(rng, num_kv_heads=4, group=2)
    args = _replace((q, k, v, bt, sl))
    args.update(change(args))
    with pytest.raises(exc, match=message):
        pda(**args)


@pytest.mark.parametrize("kw, exc, message", [
    (dict(scale="0.1"), TypeError, "scale: expected a float, got str"),
    (dict(scale=float("nan")), ValueError, "scale: must be finite"),
    (dict(scale=1e50), ValueError, "scale: .* overflows f32"),
    (dict(out=np.zeros((3, 8, 32), np.float32)), TypeError,
     "out: expected float16 like query, got float32"),
    (dict(out=np.zeros((3, 8, 16), np.float16)), ValueError,
     r"out: shape \[3, 8, 16\] differs from query's \[3, 8, 32\]"),
])
def test_scale_and_out_validation(rng, kw, exc, message):
    with pytest.raises(exc, match=message):
        pda(*_case(rng), **kw)


@pytest.mark.parametrize("num_kv_heads, group, head_dim, page, message", [
    (2, 4, 264, 16, "head_dim 264"),
    (1, 65, 16, 16, "num_heads / num_kv_heads = 65"),
    (2, 4, 16, 4100, "block_size 4100"),
])
def test_unsupported_shapes(rng, num_kv_heads, group, head_dim, page, message):
    args = _case(rng, num_kv_heads=num_kv_heads, group=group,
                 head_dim=head_dim, page=page, lens=(1, 2, 3))
    with pytest.raises(NotImplementedError, match=message):
        pda(*args)


def test_seq_len_past_the_block_table_row_is_rejected(rng):
    # 3 sequences, 8-token pages, rows of 9 blocks: 72 tokens per row. A
    # longer sequence would read the next row's entries as its own.
    q, k, v, bt, sl = _case(rng)
    assert bt.shape[1] * k.shape[1] == 72
    sl[1] = 73
    with pytest.raises(ValueError, match=r"seq_lens\[1\]: 73 tokens, more than "
                       r"its block_table row holds \(72 = 9 blocks of 8\)"):
        pda(q, k, v, bt, sl)
    sl[1] = 72  # a full row is fine
    out = pda(q, k, v, bt, sl)
    assert rel_err(np, out, paged_attention_ref(np, q, k, v, bt, sl)) < 2e-3


def test_negative_seq_len_is_rejected(rng):
    q, k, v, bt, sl = _case(rng)
    sl[2] = -1
    with pytest.raises(ValueError, match=r"seq_lens\[2\]: -1, must be >= 0"):
        pda(q, k, v, bt, sl)


def test_seq_lens_are_checked_before_max_seq_len_trims_them(rng):
    # max_seq_len only sizes the split partition; it does not hide a
    # sequence the row cannot hold.
    q, k, v, bt, sl = _case(rng)
    sl[0] = 100
    with pytest.raises(ValueError, match=r"seq_lens\[0\]: 100 tokens"):
        pda(q, k, v, bt, sl, max_seq_len=8, num_splits=1)


def _fake_gpu_args(S=2, Hkv=2, G=4, D=128, P=16, NB=10, MB=4, dtype="<f2"):
    e = 2  # bytes per f16
    return dict(
        query=FakeCudaArray((S, Hkv * G, D), dtype),
        key_cache=FakeCudaArray((NB, P, Hkv, D), dtype),
        value_cache=FakeCudaArray((NB, P, Hkv, D), dtype),
        block_table=FakeCudaArray((S, MB), "<i4"),
        seq_lens=FakeCudaArray((S,), "<i4"),
        out=FakeCudaArray((S, Hkv * G, D), dtype),
    ), e


def test_gpu_validation_with_fake_arrays():
    args, _ = _fake_gpu_args()
    bad = dict(args, key_cache=FakeCudaArray((10, 16, 2, 128), "<f4"))
    with pytest.raises(TypeError, match="key_cache: expected float16 like query"):
        pda(**bad)
    bad = dict(args, out=None)
    with pytest.raises(TypeError, match="out=None needs a torch tensor"):
        pda(**bad)
    bad = dict(args, block_table=np.zeros((2, 4), np.int32))
    with pytest.raises(ValueError, match="block_table: on the CPU but query is on a CUDA"):
        pda(**bad)
    bad = dict(args, query=FakeCudaArray((2, 8, 128), "<f2", strides=(4096, 512, 4)))
    with pytest.raises(ValueError, match="query: the last dimension must be contiguous"):
        pda(**bad)


@pytest.mark.skipif(has_gpu(), reason="checks the no-GPU path")
def test_valid_fake_arrays_reach_the_driver():
    args, _ = _fake_gpu_args()
    with pytest.raises(quire.CudaError):
        pda(**args)


@pytest.mark.skipif(has_gpu(), reason="checks the no-GPU path")
@pytest.mark.parametrize("checked", [False, True])
def test_gpu_path_reads_no_device_values(checked):
    # On the GPU the op never reads seq_lens or the block table (that would
    # synchronize the device on every call): arrays with no memory behind
    # them pass validation and reach the driver, checked or not.
    args, _ = _fake_gpu_args()
    with pytest.raises(quire.CudaError):
        pda(**args, checked=checked)


def test_default_scale(rng):
    q, k, v, bt, sl = _case(rng)
    a = pda(q, k, v, bt, sl)
    b = pda(q, k, v, bt, sl, scale=1 / math.sqrt(q.shape[-1]))
    np.testing.assert_array_equal(a, b)


def test_one_split_on_wider_tiles(rng):
    # Where the default 32-token, 4-warp program would take 2 splits only to
    # reach about 4 programs per SM, with a program per SM at one split
    # (configs.decode_one_split_tile; here 24 x 8 = 192 programs of group 8,
    # head dim 128), the op runs one split on 64-token tiles, no combine.
    from quire.ops import configs, decode
    assert configs.decode_one_split_tile(32, 8, 2, 32, 4, 128, False) == 64
    assert configs.decode_one_split_tile(32, 8, 2, 32, 4, 128, True) is None
    assert configs.decode_one_split_tile(32, 4, 4, 32, 4, 128, False) is None
    assert configs.decode_one_split_tile(8, 8, 2, 32, 4, 128, False) is None
    lens = (0,) + (256,) * 22 + (200,)
    q, k, v, bt, sl = _case(rng, 24, 8, 8, 128, 16, lens)
    assert configs.decode_splits(24, 24, 8, 256, 128, 8, 32, 4, False, True,
                                 None)[0] == 2
    before = set(decode._plans)
    _hook_matches_float64(q, k, v, bt, sl, None)
    new = set(decode._plans) - before
    assert new and all(key[5] == 64 and key[8] is False for key in new), new
