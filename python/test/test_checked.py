"""Checked paged loads (`quire.compile(..., checked=True)`): the option
reaches the compiler and the cache key, a kernel without num_blocks is a
located CompilationError, the interpreter reports a bad block-table entry,
and on the GPU a bad entry fails the launch with the entry printed (in a
child process: a trap leaves the CUDA context unusable). The ops reach it
with `checked=True`: their kernels then bound every paged load by the
cache's block count."""

import ctypes
import os
import struct
import subprocess
import sys

import pytest

import quire
from helpers import make_paged_kv, paged_attention_ref, rel_err

# A 64x128 f16 tile of a [num_blocks, 16, 128] cache through a 4-page block
# table (@spans, one entry per row), and a 16-token tile that lies in one
# page (@one_page, one scalar entry); out is [64, 128] or [16, 128].
GATHER = """
func.func @spans(%out: !tile.ptr<f16>, %cache: !tile.ptr<f16>,
                 %table: !tile.ptr<i32>, %len: i32, %num_blocks: i32)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %hs = arith.constant 0 : i64
  %ts = arith.constant 128 : i64
  %ps = arith.constant 2048 : i64
  %t = tile.paged_load %cache[%table, %c0, %c0] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len num_blocks %num_blocks : tensor<64x128xf16>
  %r = tile.range 0, 64 : tensor<64xi32>
  %c128 = arith.constant dense<128> : tensor<64xi32>
  %ro = arith.muli %r, %c128 : tensor<64xi32>
  %ro2 = tile.expand_dims %ro {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rob = tile.broadcast %ro2 : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %offs = arith.addi %rob, %cb : tensor<64x128xi32>
  %outs = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %ptrs = tile.addptr %outs, %offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  tile.store %ptrs, %t : tensor<64x128x!tile.ptr<f16>>
  return
}

func.func @one_page(%out: !tile.ptr<f16>, %cache: !tile.ptr<f16>,
                    %table: !tile.ptr<i32>, %len: i32, %num_blocks: i32)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %hs = arith.constant 0 : i64
  %ts = arith.constant 128 : i64
  %ps = arith.constant 2048 : i64
  %t = tile.paged_load %cache[%table, %c32, %c0] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len num_blocks %num_blocks : tensor<16x128xf16>
  %r = tile.range 0, 16 : tensor<16xi32>
  %c128 = arith.constant dense<128> : tensor<16xi32>
  %ro = arith.muli %r, %c128 : tensor<16xi32>
  %ro2 = tile.expand_dims %ro {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rob = tile.broadcast %ro2 : tensor<16x1xi32> -> tensor<16x128xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<16x128xi32>
  %offs = arith.addi %rob, %cb : tensor<16x128xi32>
  %outs = tile.splat %out : !tile.ptr<f16> -> tensor<16x128x!tile.ptr<f16>>
  %ptrs = tile.addptr %outs, %offs : tensor<16x128x!tile.ptr<f16>>, tensor<16x128xi32>
  tile.store %ptrs, %t : tensor<16x128x!tile.ptr<f16>>
  return
}
"""

# The line of each kernel's tile.paged_load, which the report names.
SPANS_LINE = GATHER.splitlines().index(
    "  %t = tile.paged_load %cache[%table, %c0, %c0] {page_size = 16 : i32}") + 1
ONE_PAGE_LINE = GATHER.splitlines().index(
    "  %t = tile.paged_load %cache[%table, %c32, %c0] {page_size = 16 : i32}") + 1

# Both kernels without num_blocks.
UNBOUNDED = GATHER.replace(" num_blocks %num_blocks", "")


def test_checked_kernel_reports_through_vprintf_and_traps():
    k = quire.compile(GATHER, sm=90, kernel="spans", checked=True)
    assert k.checked and "checked" in repr(k)
    assert "vprintf" in k.ptx and "trap;" in k.ptx
    llvm = k.asm("llvm")  # asm() compiles with the kernel's options
    assert ("quire: block table entry %d out of range [0, %d) at page %d "
            f"(token %d) of tile.paged_load at <string>:{SPANS_LINE}:8 "
            "in program (%d, %d, %d)") in llvm
    scalar = quire.compile(GATHER, sm=80, kernel="one_page", checked=True)
    assert "vprintf" in scalar.ptx and "trap;" in scalar.ptx


def test_unchecked_kernel_has_no_report():
    k = quire.compile(GATHER, sm=90, kernel="spans")
    assert not k.checked
    assert "vprintf" not in k.ptx and "trap;" not in k.ptx
    assert "vprintf" not in k.asm("llvm")


def test_checked_is_in_the_cache_key(tmp_path):
    before = quire.cache_info()["compiles"]
    src = GATHER + "\n// test_checked_is_in_the_cache_key\n"
    a = quire.compile(src, sm=90, kernel="spans")
    b = quire.compile(src, sm=90, kernel="spans", checked=True)
    assert quire.compile(src, sm=90, kernel="spans", checked=True) is b
    assert quire.cache_info()["compiles"] == before + 2
    assert a.ptx != b.ptx
    # The same source under another name: its reports must name that file,
    # so a checked kernel is not shared between names (an unchecked one is).
    path = tmp_path / "gather.mlir"
    path.write_text(src)
    c = quire.compile(path, sm=90, kernel="spans", checked=True)
    assert quire.cache_info()["compiles"] == before + 3
    assert f"at {path}:{SPANS_LINE}:8" in c.asm("llvm")
    assert quire.compile(path, sm=90, kernel="spans").ptx == a.ptx
    assert quire.cache_info()["compiles"] == before + 3


def test_checked_needs_num_blocks():
    quire.compile(UNBOUNDED, sm=90, kernel="spans")  # fine unchecked
    with pytest.raises(quire.CompilationError) as info:
        quire.compile(UNBOUNDED, sm=90, kernel="spans", checked=True)
    # Every paged_load without num_blocks is reported, in program order.
    errors = [e for e in info.value.errors if e["severity"] == "error"]
    assert [(e["line"], e["column"]) for e in errors] == [
        (SPANS_LINE, 8), (ONE_PAGE_LINE, 8)]
    assert all(e["message"].startswith(
        "checked mode needs num_blocks on tile.paged_load") for e in errors)


@pytest.mark.parametrize("checked", [1, "yes", None])
def test_checked_must_be_a_bool(checked):
    with pytest.raises(TypeError, match="checked must be True or False"):
        quire.compile(GATHER, sm=90, kernel="spans", checked=checked)


class HostArray:
    """A C-contiguous host array in ctypes memory, described by
    `__array_interface__` (so these tests need no numpy)."""

    def __init__(self, fmt, typestr, shape, values):
        self.fmt = fmt
        data = struct.pack(f"<{len(values)}{fmt}", *values)
        self._buf = ctypes.create_string_buffer(data, len(data))
        self.__array_interface__ = {
            "shape": tuple(shape), "typestr": typestr,
            "data": (ctypes.addressof(self._buf), False), "strides": None,
            "version": 3}

    def values(self):
        n = len(self._buf.raw) // struct.calcsize(self.fmt)
        return list(struct.unpack(f"<{n}{self.fmt}", self._buf.raw))


def test_interpreter_reports_a_bad_entry():
    # Cache element (block b, slot s, column c) holds b * 16 + s + c / 8.
    cache = HostArray("e", "<f2", (4, 16, 128),
                      [b * 16 + s + c / 8 for b in range(4)
                       for s in range(16) for c in range(128)])
    out = HostArray("e", "<f2", (64, 128), [float("nan")] * (64 * 128))
    good = HostArray("i", "<i4", (4,), [3, 1, 2, 0])
    quire.interpret(GATHER, 1, out, cache, good, 64, 4, kernel="spans")
    rows = [[3, 1, 2, 0][t // 16] * 16 + t % 16 for t in range(64)]
    assert out.values() == [r + c / 8 for r in rows for c in range(128)]
    bad = HostArray("i", "<i4", (4,), [3, 1, 9, 0])
    with pytest.raises(quire.InterpreterError) as info:
        quire.interpret(GATHER, 1, out, cache, bad, 64, 4, kernel="spans")
    assert str(info.value) == (
        f"<string>:{SPANS_LINE}:8: error: 'tile.paged_load' op block table "
        "entry 9 out of range [0, 4) at page 2 (token 32) in program (0, 0, 0)")


# The end of a child process's script: after a launch with a bad entry,
# prints LAUNCH FAILED and exits 3 when the launch fails.
EXPECT_FAILURE = r"""
try:
    torch.cuda.synchronize()
except Exception as e:
    print("LAUNCH FAILED:", e, flush=True)
    sys.exit(3)
print("LAUNCH SUCCEEDED", flush=True)
"""


def _run_failing_child(script, *args):
    """Runs `script` + EXPECT_FAILURE in a child process (a trap leaves the
    CUDA context unusable) that prints GOOD OK before its bad launch;
    checks it did and that the launch failed. Returns its stdout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(quire.__file__))] +
        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, "-c", script + EXPECT_FAILURE, *args],
                          capture_output=True, text=True, env=env, timeout=300)
    out = proc.stdout + proc.stderr
    assert "GOOD OK" in proc.stdout, out
    assert proc.returncode == 3 and "LAUNCH FAILED" in proc.stdout, out
    return proc.stdout


# Launches a checked kernel, first with a good block table (and checks the
# tile), then with `argv[3]` as the table.
CHILD = r"""
import sys
import torch
import quire
src, kernel, bad = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(",")]
rows = 64 if kernel == "spans" else 16
k = quire.compile(src, kernel=kernel, checked=True)
cache = torch.arange(4 * 16 * 128, device="cuda").remainder(2039).half().reshape(4, 16, 128)
good = torch.tensor([3, 1, 2, 0], dtype=torch.int32, device="cuda")
out = torch.full((rows, 128), float("nan"), dtype=torch.half, device="cuda")
k[(1,)](out, cache, good, 64, 4)
torch.cuda.synchronize()
ref = cache[good.long()].reshape(64, 128)
assert torch.equal(out, ref if rows == 64 else ref[32:48]), "wrong tile"
print("GOOD OK", flush=True)
table = torch.tensor(bad, dtype=torch.int32, device="cuda")
k[(1,)](out, cache, table, 64, 4)
"""


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, table, entry, page, token, line", [
    ("spans", "3,1,9,0", 9, 2, 32, SPANS_LINE),
    ("spans", "-5,1,2,0", -5, 0, 0, SPANS_LINE),
    ("one_page", "3,1,4,0", 4, 2, 32, ONE_PAGE_LINE),
])
def test_bad_entry_fails_the_launch(tmp_path, kernel, table, entry, page,
                                    token, line):
    src = tmp_path / "gather.mlir"
    src.write_text(GATHER)
    stdout = _run_failing_child(CHILD, str(src), kernel, table)
    # vprintf's line, from the one thread that holds the first bad row.
    report = (f"quire: block table entry {entry} out of range [0, 4) at page "
              f"{page} (token {token}) of tile.paged_load at {src}:{line}:8 "
              "in program (0, 0, 0)")
    assert stdout.count(report) == 1, stdout


# The ops in checked mode (checked=True): their kernels take the cache's
# block count as every paged load's num_blocks and compile checked; on numpy
# inputs the interpreter reports a bad entry by name.

def _decode_case(np, rng, lens=(0, 21, 70), page=8):
    k, v, bt = make_paged_kv(np, rng, len(lens), 2, 32, page, list(lens), np.float16)
    q = rng.standard_normal((len(lens), 8, 32)).astype(np.float16)
    return q, k, v, bt, np.array(lens, np.int32)


def _prefill_case(np, rng, ctx=(40, 0, 17), chunks=(5, 3, 1), page=8):
    lens = [c + n for c, n in zip(ctx, chunks)]
    k, v, bt = make_paged_kv(np, rng, len(lens), 2, 32, page, lens, np.float16)
    T = sum(chunks)
    q = rng.standard_normal((T, 4, 32)).astype(np.float16)
    kn = rng.standard_normal((T, 2, 32)).astype(np.float16)
    vn = rng.standard_normal((T, 2, 32)).astype(np.float16)
    qs = np.cumsum([0] + list(chunks)).astype(np.int32)
    return (q, k, v, bt, qs, np.array(lens, np.int32)), dict(key=kn, value=vn)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("partials", [False, True])
def test_checked_decode_source_bounds_every_paged_load(transposed, partials):
    src = quire.ops.paged_decode_source("f16", 4, 128, 16, 16, True, True,
                                        partials, transposed, checked=True)
    assert src.count(" num_blocks %") == src.count("= tile.paged_load ") == 2
    plain = quire.ops.paged_decode_source("f16", 4, 128, 16, 16, True, True,
                                          partials, transposed)
    assert " num_blocks " not in plain
    name = "paged_decode_split" if partials else "paged_decode_attention"
    # num_blocks is one more i32 argument, after scale.
    with_nb = quire.signature(src, kernel=name)["args"]
    without = quire.signature(plain, kernel=name)["args"]
    assert len(with_nb) == len(without) + 1
    scale = [a["type"] for a in with_nb].index("f32")
    assert with_nb[scale + 1]["type"] == "i32"
    k = quire.compile(src, sm=90, num_warps=1, kernel=name, checked=True)
    assert "vprintf" in k.ptx and "trap;" in k.ptx
    assert [a["type"] for a in k.args].count("i32") >= 2  # num_blocks, tokens_per_split


@pytest.mark.parametrize("separate", [True, False])
def test_checked_prefill_source_bounds_every_paged_load(separate):
    src = quire.ops.paged_prefill_source("f16", 4, 128, 16, 64, 64, True, True,
                                         separate, checked=True)
    assert src.count(" num_blocks %") == src.count("= tile.paged_load ")
    assert " num_blocks " not in quire.ops.paged_prefill_source(
        "f16", 4, 128, 16, 64, 64, True, True, separate)
    k = quire.compile(src, sm=90, num_warps=8, checked=True)
    assert "vprintf" in k.ptx and "trap;" in k.ptx


def test_checked_decode_matches_unchecked():
    np = pytest.importorskip("numpy")
    q, k, v, bt, sl = _decode_case(np, np.random.default_rng(4))
    for splits in (1, 3):
        a = quire.ops.paged_decode_attention(q, k, v, bt, sl, num_splits=splits)
        b = quire.ops.paged_decode_attention(q, k, v, bt, sl, num_splits=splits,
                                             checked=True)
        np.testing.assert_array_equal(a, b)
    assert rel_err(np, b, paged_attention_ref(np, q, k, v, bt, sl)) < 2e-3


@pytest.mark.parametrize("entry", [-1, "num_blocks"])
def test_checked_decode_reports_a_bad_entry(entry):
    np = pytest.importorskip("numpy")
    q, k, v, bt, sl = _decode_case(np, np.random.default_rng(4))
    num_blocks = k.shape[0]
    bad = -1 if entry == -1 else num_blocks + 5
    bt[2, 3] = bad  # tokens 24..31 of the third sequence
    with pytest.raises(quire.InterpreterError,
                       match=rf"block table entry {bad} out of range \[0, "
                             rf"{num_blocks}\) at page 3 \(token 24\)"):
        quire.ops.paged_decode_attention(q, k, v, bt, sl, checked=True)
    # Unchecked, the interpreter still refuses the access, as an
    # out-of-bounds read of the cache rather than by the entry.
    with pytest.raises(quire.InterpreterError, match="out-of-bounds access"):
        quire.ops.paged_decode_attention(q, k, v, bt, sl)


def test_checked_prefill_matches_unchecked_and_reports_a_bad_entry():
    np = pytest.importorskip("numpy")
    args, kv = _prefill_case(np, np.random.default_rng(5))
    a = quire.ops.paged_prefill_attention(*args, **kv)
    b = quire.ops.paged_prefill_attention(*args, **kv, checked=True)
    np.testing.assert_array_equal(a, b)
    bt = args[3]
    bt[0, 2] = k_blocks = args[1].shape[0]  # tokens 16..23 of the first context
    with pytest.raises(quire.InterpreterError,
                       match=rf"block table entry {k_blocks} out of range "
                             rf"\[0, {k_blocks}\) at page 2 \(token 16\)"):
        quire.ops.paged_prefill_attention(*args, **kv, checked=True)


def test_prefill_rejects_a_negative_seq_len():
    np = pytest.importorskip("numpy")
    args, kv = _prefill_case(np, np.random.default_rng(5), ctx=(0, 0, 0),
                             chunks=(0, 2, 1))
    args[5][0] = -1
    with pytest.raises(ValueError, match=r"seq_lens\[0\]: -1, must be >= 0"):
        quire.ops.paged_prefill_attention(*args, **kv)


@pytest.mark.parametrize("op", ["decode", "prefill"])
def test_ops_checked_must_be_a_bool(op):
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(6)
    with pytest.raises(TypeError, match="checked: expected True or False, got int"):
        if op == "decode":
            quire.ops.paged_decode_attention(*_decode_case(np, rng), checked=1)
        else:
            args, kv = _prefill_case(np, rng)
            quire.ops.paged_prefill_attention(*args, **kv, checked=1)


# The decode op with checked=True on the GPU: a good table gives the
# unchecked result; a bad entry fails the launch with its report.
OP_CHILD = r"""
import sys
import torch
import quire
gen = torch.Generator(device="cuda").manual_seed(0)
S, Hkv, G, D, P, L = 3, 2, 4, 64, 16, 100
blocks = S * -(-L // P)
k = torch.randn(blocks, P, Hkv, D, device="cuda", generator=gen).half()
v = torch.randn(blocks, P, Hkv, D, device="cuda", generator=gen).half()
q = torch.randn(S, Hkv * G, D, device="cuda", generator=gen).half()
bt = torch.randperm(blocks, device="cuda", generator=gen).int().view(S, -1).contiguous()
sl = torch.full((S,), L, dtype=torch.int32, device="cuda")
pda = quire.ops.paged_decode_attention
a = pda(q, k, v, bt, sl, num_splits=2)
b = pda(q, k, v, bt, sl, num_splits=2, checked=True)
torch.cuda.synchronize()
assert torch.equal(a, b), "checked result differs"
print("GOOD OK", flush=True)
bt[1, 2] = blocks + 3
pda(q, k, v, bt, sl, num_splits=2, checked=True)
"""


@pytest.mark.gpu
def test_checked_decode_op_fails_the_launch_on_a_bad_entry():
    stdout = _run_failing_child(OP_CHILD)
    assert ("quire: block table entry 24 out of range [0, 21) at page 2 "
            "(token 32)") in stdout, stdout
