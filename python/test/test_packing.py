"""The packed launch path quire.ops uses (Kernel._launch_trusted): one
struct.pack_into per launch must give every parameter exactly the bytes the
checked path (Kernel.params, one ctypes value per argument) gives it, for
every scalar type a kernel may take."""

import ctypes

import quire
from quire import _cuda

SRC = """
func.func @k(%p: !tile.ptr<f32>, %b: i1, %c: i8, %s: i16, %i: i32, %l: i64,
             %h: f16, %bf: bf16, %f: f32, %d: f64, %q: !tile.ptr<i32>)
    attributes {tile.kernel} {
  return
}
"""


class FakePtr:
    """A CUDA array at a given address (only what Kernel.params reads)."""

    def __init__(self, ptr, typestr):
        self.__cuda_array_interface__ = {
            "shape": (4,), "typestr": typestr, "data": (ptr, False),
            "version": 3, "strides": None}


def test_packed_bytes_match_the_checked_parameters():
    k = quire.compile(SRC, sm=90)
    values = [0x7F00_1234_5670, True, -3, -2, -(2 ** 31), 2 ** 63 + 5, 1.5,
              -2.75, 3.25, -1e300, 0x7F00_0000_0010]
    args = [FakePtr(values[0], "<f4")] + values[1:-1] + \
        [FakePtr(values[-1], "<i4")]
    params, _ = k.params(args)
    packing, convert = k._packing()
    buf = ctypes.create_string_buffer(packing.size)
    packing.struct.pack_into(
        buf, 0, *[v if c is None else c(v) for v, c in zip(values, convert)])
    for p, off in zip(params, packing.offsets):
        n = ctypes.sizeof(p)
        assert buf.raw[off:off + n] == bytes(p), (p, off)
    assert packing.offsets == sorted(packing.offsets)
    assert all(off % ctypes.sizeof(p) == 0
               for p, off in zip(params, packing.offsets))


def test_arg_packing_aligns_each_parameter():
    p = _cuda.ArgPacking(["B", "Q", "H", "I", "d"])
    assert p.offsets == [0, 8, 16, 20, 24] and p.size == 32


def test_max_registers_option():
    import pytest
    k = quire.compile(SRC, sm=90, max_registers=64)
    assert ".maxnreg 64" in k.ptx and k.max_registers == 64
    assert ".maxnreg" not in quire.compile(SRC, sm=90).ptx
    for bad in (8, 300, True, "64"):
        with pytest.raises(ValueError, match="max_registers must be 0 or an int"):
            quire.compile(SRC, sm=90, max_registers=bad)
