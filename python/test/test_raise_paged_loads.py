"""quire-raise-paged-loads from the frontend: the paged gathers a Triton
programmer writes by hand (these kernels are the inputs of the lit tests
test/Dialect/Tile/Transforms/raise-paged-loads*.mlir) compute what numpy
says in the interpreter, and compile to the same PTX as the same kernel
written with tl.paged_load."""

import re

import pytest

import quire
import quire.language as tl
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")

# Every form loads one [16, 32] (or [32, 16]) f16 tile at tokens
# pid * 16 .. pid * 16 + 15 of one sequence, page size 8, and stores it.

@quire.jit(do_not_specialize=["seq_len", "s0", "s1", "s2", "h"])
def rows_i64(cache, bt, out, seq_len, s0, s1, s2, h):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    off = ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + h * s2 + d[None, :]
    k = tl.load(cache + off, mask=mask[:, None], other=0.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def rows_i32(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + d[None, :] + (tok % 8)[:, None] * s1 + ids[:, None] * s0,
                mask=mask[:, None], other=0.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def cols_kt(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    kt = tl.load(cache + ids[None, :].to(tl.int64) * s0 + (tok % 8)[None, :] * s1 + d[:, None],
                 mask=mask[None, :], other=0.0)
    tl.store(out + d[:, None] * 1024 + tok[None, :], kt)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def shifts_and_cols(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + (tok >> 3), mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok & 7)[:, None] * s1 + d[None, :],
                mask=mask[:, None] & (d < 20)[None, :], other=0.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def other_value(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + d[None, :],
                mask=mask[:, None], other=-2.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def unmasked(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    ids = tl.load(bt + tok // 8)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + d[None, :])
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1", "n"])
def in_loop(cache, bt, out, seq_len, s0, s1, n):
    d = tl.arange(0, 32)
    acc = tl.zeros((32,), tl.float32)
    for start in range(0, seq_len, 16):
        tok = start + tl.arange(0, 16)
        mask = tok < seq_len
        ids = tl.load(bt + tok // 8, mask=mask, other=0)
        k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + d[None, :],
                    mask=mask[:, None], other=0.0)
        acc += tl.sum(k.to(tl.float32), axis=0)
    tl.store(out + d, acc.to(tl.float16))

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def pages_ahead(cache, bt, out, seq_len, s0, s1):
    """The page index as a whole number of pages plus the tile's own
    (start // 8 + j // 8), the slot j % 8 and the block table read per
    page (page * 8 < seq_len): what quire-forward-stores makes of a
    scratch-buffer kernel."""
    start = tl.program_id(0) * 16
    j = tl.arange(0, 16)
    mask = start + j < seq_len
    page = start // 8 + j // 8
    ids = tl.load(bt + page, mask=page * 8 < seq_len, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (j % 8)[:, None] * s1 + d[None, :],
                mask=mask[:, None], other=0.0)
    tl.store(out + (start + j)[:, None] * 32 + d[None, :], k)

# Near misses.

@quire.jit(do_not_specialize=["seq_len", "s0", "s1", "P"])
def page_not_constant(cache, bt, out, seq_len, s0, s1, P):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + tok // P, mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % P)[:, None] * s1 + d[None, :],
                mask=mask[:, None], other=0.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def tokens_not_affine(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16) * 2
    mask = tok < seq_len
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + d[None, :],
                mask=mask[:, None], other=0.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1", "ncols"])
def runtime_column_mask(cache, bt, out, seq_len, s0, s1, ncols):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + d[None, :],
                mask=mask[:, None] & (d < ncols)[None, :], other=0.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def block_table_stored(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    tl.store(bt + tok // 8, tok // 8, mask=mask)
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + d[None, :],
                mask=mask[:, None], other=0.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def column_stride(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + d[None, :] * 2,
                mask=mask[:, None], other=0.0)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)

@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def table_masked_tile_not(cache, bt, out, seq_len, s0, s1):
    tok = tl.program_id(0) * 16 + tl.arange(0, 16)
    mask = tok < seq_len
    ids = tl.load(bt + tok // 8, mask=mask, other=0)
    d = tl.arange(0, 32)
    k = tl.load(cache + ids[:, None].to(tl.int64) * s0 + (tok % 8)[:, None] * s1 + d[None, :])
    tl.store(out + tok[:, None] * 32 + d[None, :], k)


@quire.jit(do_not_specialize=["seq_len", "s0", "s1"])
def rows_paged_load(cache, bt, out, seq_len, s0, s1):
    """rows_i32 written with tl.paged_load."""
    start = tl.program_id(0) * 16
    k = tl.paged_load(cache, bt, start, 0, (16, 32), 8, (s0, s1, 0), seq_len)
    tok = start + tl.arange(0, 16)
    d = tl.arange(0, 32)
    tl.store(out + tok[:, None] * 32 + d[None, :], k)


PAGES, PAGE, HEADS, D = 6, 8, 2, 32
S0, S1, S2 = PAGE * HEADS * D, HEADS * D, D
TABLE = np.array([5, 2, 0, 4, 1, 3], np.int32)


def gather(cache, length, head=0, tokens=48):
    """[tokens, D] rows of the cache as the kernels address them."""
    flat = cache.reshape(-1)
    rows = np.zeros((tokens, D), np.float16)
    for t in range(min(length, tokens)):
        base = TABLE[t // PAGE] * S0 + (t % PAGE) * S1 + head * S2
        rows[t] = flat[base:base + D]
    return rows


@pytest.fixture
def cache():
    return np.random.default_rng(5).standard_normal(
        (PAGES, PAGE, HEADS, D)).astype(np.float16)


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")


@pytest.mark.parametrize("name", ["rows_i32", "other_value", "unmasked",
                                  "shifts_and_cols", "rows_paged_load",
                                  "pages_ahead"])
def test_forms_compute_the_gather(cache, name):
    out = np.full(48 * 32, np.nan, np.float16)
    fn = globals()[name]
    fn[(3,)](cache, TABLE, out, 37, S0, S1)
    want = gather(cache, 48 if name == "unmasked" else 37)
    if name == "other_value":
        want[37:] = -2.0
    if name == "shifts_and_cols":
        want[:, 20:] = 0
    np.testing.assert_array_equal(out.reshape(48, 32), want)


def test_rows_with_a_head_and_the_kt_layout(cache):
    out = np.full(48 * 32, np.nan, np.float16)
    rows_i64[(3,)](cache, TABLE, out, 37, S0, S1, S2, 1)
    np.testing.assert_array_equal(out.reshape(48, 32), gather(cache, 37, 1))
    kt = np.full(32 * 1024, np.nan, np.float16)
    cols_kt[(3,)](cache, TABLE, kt, 37, S0, S1)
    np.testing.assert_array_equal(kt.reshape(32, 1024)[:, :48].T,
                                  gather(cache, 37))


def _stats(ptx):
    return {k: len(re.findall(p, ptx)) for k, p in (
        ("v4", r"ld\.global(\.nc)?\.v4"), ("b32", r"ld\.global(\.nc)?\.b32"),
        ("cp.async", r"cp\.async\.cg"), ("local", r"\.local"))}


def test_raised_gather_compiles_like_paged_load(monkeypatch):
    monkeypatch.delenv("QUIRE_INTERPRET")
    args = [FakeCudaArray((4096,), "<f2"), FakeCudaArray((64,), "<i4"),
            FakeCudaArray((4096,), "<f2"), 37, S0, S1]
    natural = rows_i32.warmup(*args, sm=90)
    written = rows_paged_load.warmup(*args, sm=90)
    unraised = rows_i32.warmup(*args, sm=90, raise_paged_loads=False)

    def body(k):
        """The kernel's instructions (opcodes), in sorted order."""
        return sorted(line.split()[0] for line in k.asm["ptx"].splitlines()
                      if line.startswith("\t") and not
                      line.strip().startswith(("//", ".", "$", "{", "}")))
    # The raised natural kernel is the paged_load kernel, instruction for
    # instruction (the scheduler may order them differently); without the
    # pass it is not.
    assert body(natural) == body(written)
    assert body(unraised) != body(natural)
    assert body(pages_ahead.warmup(*args, sm=90)) == body(written)
    assert _stats(natural.asm["ptx"])["local"] == 0


def test_refused_forms_still_compute_the_gather(cache):
    out = np.full(48 * 32, np.nan, np.float16)
    runtime_column_mask[(3,)](cache, TABLE, out, 37, S0, S1, 20)
    want = gather(cache, 37)
    want[:, 20:] = 0
    np.testing.assert_array_equal(out.reshape(48, 32), want)
