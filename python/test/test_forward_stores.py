"""quire-forward-stores from the frontend: the scratch-buffer decode kernel
(python/tutorials/paged-attention-scratch.py) compiles to the code of the
kernel that keeps its offsets in registers (paged-attention.py): the
offsets' round trip through memory and the barrier are gone, the K and V
tiles are staged with cp.async like the natural kernel's; with
forward_stores=False they are not."""

import collections
import importlib.util
import os
import re

import pytest

from conftest import FakeCudaArray

TUTORIALS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tutorials")


def load(name):
    spec = importlib.util.spec_from_file_location(
        "fwd_tutorial_" + name.replace("-", "_"),
        os.path.join(TUTORIALS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


F16, I32, I64 = (FakeCudaArray((1 << 20,), t) for t in ("<f2", "<i4", "<i8"))
CONSTS = dict(QUERIES_PER_KV=4, GROUP_PAD=16, HEAD_DIM=128, BLOCK_SIZE=16,
              BLOCK_N=64, grid=(1,), sm=90)
STRIDES = (4096, 128, 4096, 128, 16384, 1024, 128)


def natural_kernel(page=16):
    k = load("paged-attention").paged_attention_decode
    return k.warmup(F16, F16, F16, F16, I32, I32, 0.1, *STRIDES[:4],
                    *STRIDES[4:], *STRIDES[4:], 64,
                    **dict(CONSTS, BLOCK_SIZE=page))


def scratch_kernel(page=16, **options):
    k = load("paged-attention-scratch").paged_attention_decode_scratch
    return k.warmup(F16, F16, F16, F16, I32, I32, I64, 0.1, *STRIDES, 64,
                    **dict(CONSTS, BLOCK_SIZE=page), **options)


def opcodes(ptx):
    """How many times each PTX instruction occurs."""
    count = collections.Counter()
    for line in ptx.splitlines():
        m = re.match(r"\s+(@!?%p\d+ )?([a-z][\w.]*)", line)
        if m and not line.strip().startswith(("//", ".")):
            count[m.group(2)] += 1
    return count


# Tiles of 64 tokens: four pages of 16, or half a page of 128.
@pytest.mark.parametrize("page", [16, 128])
def test_scratch_kernel_compiles_like_the_natural_one(page):
    natural, scratch = natural_kernel(page), scratch_kernel(page)
    tile = scratch.asm["tile"]
    assert "tile.barrier" not in tile
    # The K and V tiles are staged like the natural kernel's (the same
    # cp.async copies and barriers), read as 16-byte rows.
    n, s = opcodes(natural.asm["ptx"]), opcodes(scratch.asm["ptx"])
    for op in ("cp.async.cg.shared.global", "cp.async.commit_group",
               "bar.sync", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
               "ldmatrix.sync.aligned.m8n8.x4.shared.b16"):
        assert s[op] == n[op], op
    assert n["cp.async.cg.shared.global"] > 0
    # What remains of the round trip: the scratch stores (64-bit offsets);
    # nothing reads them back.
    assert s["st.global.b64"] > 0 and n["st.global.b64"] == 0
    assert not any(op.startswith("ld.global") and op.endswith("b64")
                   for op in s)
    assert scratch.n_spills in (None, 0)


def test_forward_stores_off_keeps_the_round_trip():
    kernel = scratch_kernel(forward_stores=False)
    s = opcodes(kernel.asm["ptx"])
    assert "tile.barrier" in kernel.asm["tile"]
    assert s["ld.global.b64"] > 0    # the offsets read back
    assert s["cp.async.cg.shared.global"] == 0
    assert s["ld.global.b16"] > 0    # K and V one element at a time


def test_forward_stores_is_an_option():
    with pytest.raises(TypeError, match="forward_stores must be True or False"):
        import quire
        quire.compile("func.func @k() attributes {tile.kernel} { return }",
                      sm=90, forward_stores=1)
