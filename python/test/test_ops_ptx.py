"""The ops' @quire.jit kernels compile to the PTX the tuned MLIR templates
they replaced compiled to, in shape: for the default configuration of each
kernel form, the same 16-byte vector loads, mma.sync and wgmma
instructions, cp.async copies, shared memory and (no) spills. EXPECTED holds
the templates' numbers (sm_90 unless the key says sm_80), measured with
libquire before the templates were deleted; a change to these numbers is a
change to the kernels' code generation, to be measured on the GPU."""

import re

import pytest

from quire.language import core
from quire.ops import configs, decode, features, launch, prefill

F16, BF16 = "f16", "bf16"

# (ld.global.v4, mma.sync, wgmma, cp.async.cg, shared bytes, .local)
EXPECTED = {
    # Decode, split kernel: dtype, group, head dim, page, partials.
    ("decode", F16, 4, 128, 16, True): (0, 16, 0, 32, 18432, 0),
    ("decode", F16, 4, 128, 16, False): (0, 16, 0, 32, 18432, 0),
    ("decode", F16, 1, 128, 16, True): (8, 32, 0, 32, 20736, 0),
    ("decode", BF16, 8, 128, 16, True): (0, 16, 0, 32, 18432, 0),
    ("decode", F16, 16, 128, 16, True): (8, 32, 0, 32, 20736, 0),
    ("decode", F16, 4, 256, 16, True): (4, 32, 0, 32, 73984, 0),
    ("decode", F16, 4, 80, 16, True): (0, 16, 0, 32, 18432, 0),
    ("decode", F16, 4, 128, 128, True): (0, 16, 0, 32, 18432, 0),
    # The combine kernel: dtype, head dim.
    ("combine", F16, 128): (8, 0, 0, 0, 2048, 0),
    ("combine", F16, 256): (16, 0, 0, 0, 4096, 0),
    # Prefill: dtype, group, head dim, page, chunk K/V separate, sm.
    ("prefill", F16, 4, 128, 16, True, 90): (8, 0, 24, 32, 100352, 0),
    ("prefill", F16, 4, 128, 16, False, 90): (8, 0, 24, 32, 100352, 0),
    ("prefill", F16, 4, 128, 16, False, 80): (8, 256, 0, 32, 100352, 0),
    ("prefill", BF16, 4, 256, 16, False, 90): (16, 0, 36, 32, 133120, 0),
    ("prefill", F16, 1, 64, 32, False, 90): (4, 0, 16, 16, 51200, 0),
    ("prefill", F16, 3, 80, 16, False, 90): (8, 0, 24, 32, 100352, 0),
}
# Checked mode, the decode split kernel and the prefill kernel from the
# cache (their staging is off: checked loads are not cp.async'd).
EXPECTED_CHECKED = {
    ("decode", F16, 4, 128, 16, True): (16, 16, 0, 0, 4352, 9),
    ("prefill", F16, 4, 128, 16, False, 90): (24, 256, 0, 0, 34816, 16),
}


def shape(kernel):
    ptx = kernel.ptx
    counts = [len(re.findall(p, ptx)) for p in (
        r"ld\.global(\.nc)?\.v4", r"mma\.sync", r"wgmma\.mma_async",
        r"cp\.async\.cg", r"\.local")]
    return tuple(counts[:4]) + (kernel.shared_bytes, counts[4])


NONE = features.Features(-1, 0.0, None, None, False, {})


def compiled(key, checked=False):
    kind = key[0]
    if kind == "decode":
        _, dt, group, d, page, partials = key
        block_n, warps = configs.decode_config(d, group)
        spec = decode._split_spec(dt, group, d, page, block_n, True, True,
                                  partials, configs.decode_transposed(d, group),
                                  checked, False, NONE)
        return launch.compiled(spec, 90, warps, checked=checked)
    if kind == "combine":
        _, dt, d = key
        return launch.compiled(decode._combine_spec(dt, d, True, True, False,
                                                    False), 90, 4)
    _, dt, group, d, page, separate, sm = key
    block_m, block_n, warps = configs.prefill_config(d)
    spec = prefill._spec(dt, group, d, page, block_m, block_n, True, True,
                         separate, checked, True, False, NONE)
    return launch.compiled(spec, sm, warps, checked=checked)


@pytest.mark.parametrize("key", sorted(EXPECTED, key=str), ids=str)
def test_default_configurations_match_the_templates(key):
    assert shape(compiled(key)) == EXPECTED[key]


@pytest.mark.parametrize("key", sorted(EXPECTED_CHECKED, key=str), ids=str)
def test_checked_configurations_match_the_templates(key):
    assert shape(compiled(key, checked=True)) == EXPECTED_CHECKED[key]


def test_pointer_types_follow_the_dtype():
    spec = decode._split_spec(BF16, 8, 128, 16, 16, True, True, True, True,
                              False, False, NONE)
    assert "!tile.ptr<bf16>" in spec.source
    assert launch.DTYPES["u16"] is core.bfloat16   # host bf16 bit patterns
