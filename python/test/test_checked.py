"""Checked paged loads (`quire.compile(..., checked=True)`): the option
reaches the compiler and the cache key, a kernel without num_blocks is a
located CompilationError, the interpreter reports a bad block-table entry,
and on the GPU a bad entry fails the launch with the entry printed (in a
child process: a trap leaves the CUDA context unusable)."""

import ctypes
import os
import struct
import subprocess
import sys

import pytest

import quire

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


# Launches a checked kernel, first with a good block table (and checks the
# tile), then with `argv[2]` as the table: prints LAUNCH FAILED and exits 3
# when the launch fails.
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
try:
    torch.cuda.synchronize()
except Exception as e:
    print("LAUNCH FAILED:", e, flush=True)
    sys.exit(3)
print("LAUNCH SUCCEEDED", flush=True)
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
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(quire.__file__))] +
        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, "-c", CHILD, str(src), kernel, table],
                          capture_output=True, text=True, env=env, timeout=300)
    out = proc.stdout + proc.stderr
    assert "GOOD OK" in proc.stdout, out
    assert proc.returncode == 3 and "LAUNCH FAILED" in proc.stdout, out
    # vprintf's line, from the one thread that holds the first bad row.
    report = (f"quire: block table entry {entry} out of range [0, 4) at page "
              f"{page} (token {token}) of tile.paged_load at {src}:{line}:8 "
              "in program (0, 0, 0)")
    assert proc.stdout.count(report) == 1, out
