"""The ops' @quire.jit kernels keep the PTX shape of their tuned
configurations: for the default configuration of each kernel form, the
16-byte vector loads, mma.sync and wgmma instructions, cp.async copies,
shared memory and (no) spills that docs/performance.md measured. EXPECTED
holds them (sm_90 unless the key says sm_80); a change to these numbers is
a change to the kernels' code generation, to be measured on the GPU."""

import re

import pytest

from quire.language import core
from quire.ops import configs, decode, features, launch, prefill

F16, BF16 = "f16", "bf16"

# (ld.global.v4, mma.sync, wgmma, cp.async.cg, shared bytes, .local)
EXPECTED = {
    # Decode, split kernel: dtype, group, head dim, page, partials.
    ("decode", F16, 4, 128, 16, True): (0, 12, 0, 16, 34816, 0),
    ("decode", F16, 4, 128, 16, False): (0, 12, 0, 16, 34816, 0),
    ("decode", F16, 1, 128, 16, True): (2, 16, 0, 16, 37120, 0),
    ("decode", BF16, 8, 128, 16, True): (0, 12, 0, 16, 34816, 0),
    ("decode", F16, 16, 128, 16, True): (2, 16, 0, 16, 37120, 0),
    ("decode", F16, 4, 256, 16, True): (4, 32, 0, 32, 73984, 0),
    ("decode", F16, 4, 80, 16, True): (0, 12, 0, 16, 34816, 0),
    ("decode", F16, 4, 128, 128, True): (0, 12, 0, 16, 34816, 0),
    # The combine kernel: dtype, head dim.
    ("combine", F16, 128): (8, 0, 0, 0, 2048, 0),
    ("combine", F16, 256): (16, 0, 0, 0, 4096, 0),
    # Prefill: dtype, group, head dim, page, chunk K/V separate, sm.
    ("prefill", F16, 4, 128, 16, True, 90): (8, 0, 32, 64, 163840, 0),
    ("prefill", F16, 4, 128, 16, False, 90): (8, 0, 16, 32, 163840, 0),
    ("prefill", F16, 4, 128, 16, False, 80): (8, 128, 0, 16, 100352, 0),
    ("prefill", BF16, 4, 256, 16, False, 90): (16, 0, 18, 16, 131072, 0),
    ("prefill", F16, 1, 64, 32, False, 90): (4, 0, 8, 8, 49152, 0),
    ("prefill", F16, 3, 80, 16, False, 90): (8, 0, 16, 32, 163840, 0),
}
# Checked mode, the decode split kernel and the prefill kernel from the
# cache (their staging is off: checked loads are not cp.async'd).
EXPECTED_CHECKED = {
    ("decode", F16, 4, 128, 16, True): (8, 12, 0, 0, 8704, 9),
    ("prefill", F16, 4, 128, 16, False, 90): (16, 128, 0, 0, 34816, 9),
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
    block_m, block_n, warps = configs.prefill_config(d, sm, checked=checked)
    spec = prefill._spec(dt, group, d, page, block_m, block_n, True, True,
                         separate, checked, True, False, NONE)
    return launch.compiled(spec, sm, warps, checked=checked)


@pytest.mark.parametrize("key", sorted(EXPECTED, key=str), ids=str)
def test_default_configurations_keep_their_shape(key):
    assert shape(compiled(key)) == EXPECTED[key]


@pytest.mark.parametrize("key", sorted(EXPECTED_CHECKED, key=str), ids=str)
def test_checked_configurations_keep_their_shape(key):
    assert shape(compiled(key, checked=True)) == EXPECTED_CHECKED[key]


@pytest.mark.parametrize("key", sorted(k for k in EXPECTED if k[0] == "decode"),
                         ids=str)
def test_decode_shared_estimate_covers_the_kernel(key):
    # The split count's occupancy model (configs.decode_resident) reads
    # shared memory from the tile shapes, never below the kernel's and at
    # most 512 bytes above it.
    _, dt, group, d, page, partials = key
    block_n, _ = configs.decode_config(d, group)
    est = configs.decode_shared_bytes(d, group, block_n, False,
                                      configs.decode_transposed(d, group),
                                      configs.decode_stages(False))
    got = compiled(key).shared_bytes
    assert got <= est <= got + 512


# fp8 caches, the split kernel in its default configuration: dtype, cache
# dtype, group, head dim -> (16- and 8-byte ld.shared, 1- and 2-byte
# ld.shared, prmt, mma.sync, .local). The staged K and V bytes are read 16
# at a time (#tile.mma kWidth, nWidth, mWidth: docs/passes.md), never one
# or two. Every default is the row form on 4 warps.
EXPECTED_FP8 = {
    (F16, "f8E4M3FN", 4, 128): (10, 0, 8, 16, 0),      # 32-token tiles
    (BF16, "f8E4M3FN", 8, 128): (10, 0, 8, 16, 0),
    (F16, "f8E4M3FN", 4, 64): (22, 0, 24, 16, 0),      # 64-token tiles
    (F16, "f8E5M2", 1, 128): (10, 0, 8, 16, 0),
    (F16, "f8E4M3FN", 4, 256): (28, 0, 16, 32, 0),
}


@pytest.mark.parametrize("key", sorted(EXPECTED_FP8, key=str), ids=str)
def test_fp8_operands_are_read_wide(key):
    dt, kv, group, d = key
    block_n, warps = configs.decode_config(d, group, fp8=True)
    spec = decode._split_spec(dt, group, d, 16, block_n, True, True, True,
                              configs.decode_transposed(d, group, True), False,
                              False, NONE, kv_dtype=kv)
    kernel = launch.compiled(spec, 90, warps)
    ptx = kernel.ptx
    assert tuple(len(re.findall(p, ptx)) for p in (
        r"ld\.shared\.v[24]", r"ld\.shared\.[bu](8|16)\b", r"prmt",
        r"mma\.sync", r"\.local")) == EXPECTED_FP8[key]
    # The split count's occupancy model holds for fp8 staging too.
    est = configs.decode_shared_bytes(d, group, block_n, True,
                                      configs.decode_transposed(d, group, True),
                                      configs.decode_stages(True))
    assert kernel.shared_bytes <= est <= kernel.shared_bytes + 512


@pytest.mark.parametrize("d", [64, 128])
def test_fp8_prefill_runs_on_wgmma(d):
    # The converted fp8 K and V tiles (shared by the warps) are stored into
    # swizzled buffers between barriers, and both dots run on wgmma as the
    # fp16 kernel's do (tile.local_store: docs/passes.md).
    block_m, block_n, warps = configs.prefill_config(d, fp8=True)
    specs = [prefill._spec(F16, 4, d, 16, block_m, block_n, True, True, False,
                           False, True, False, NONE, kv_dtype=kv)
             for kv in ("f8E4M3FN", None)]
    fp8, fp16 = (launch.compiled(spec, 90, warps).ptx for spec in specs)
    assert "mma.sync" not in fp8 and ".local" not in fp8
    assert len(re.findall(r"wgmma\.mma_async", fp8)) == \
        len(re.findall(r"wgmma\.mma_async", fp16)) > 0
    # One loop (the chunk's keys read from the cache in the context's)
    # storing K and V; the query stored once before it.
    assert len(re.findall(r"fence\.proxy\.async", fp8)) == 3


def test_fp8_operands_are_read_narrow_with_the_option_off():
    block_n, warps = configs.decode_config(128, 4, fp8=True)
    spec = decode._split_spec(F16, 4, 128, 16, block_n, True, True, True,
                              configs.decode_transposed(128, 4, True), False,
                              False, NONE, kv_dtype="f8E4M3FN")
    wide = launch.compiled(spec, 90, warps)
    narrow = launch.compiled(spec, 90, warps, wide_fp8_operands=False)
    assert narrow is not wide
    assert narrow.options["wide_fp8_operands"] is False
    assert len(re.findall(r"ld\.shared\.[bu]8\b", narrow.ptx)) == 32
    assert len(re.findall(r"ld\.shared\.[bu]8\b", wide.ptx)) == 0


def test_pointer_types_follow_the_dtype():
    spec = decode._split_spec(BF16, 8, 128, 16, 16, True, True, True, True,
                              False, False, NONE)
    assert "!tile.ptr<bf16>" in spec.source
    assert launch.DTYPES["u16"] is core.bfloat16   # host bf16 bit patterns


class _View:
    """What a feature tensor's specialization depends on: its dtype."""

    def __init__(self, dtype):
        self.dtype = dtype


ALL = features.Features(100, 30.0, _View("f32"), _View("bf16"), True,
                        {x: (_View("f32"), 0, 0) for x in "qkv"})


@pytest.mark.parametrize("kernel, sm", [
    ("decode-transposed-split", 90), ("decode-row-one-varlen", 80),
    ("decode-256-split-varlen", 90), ("combine-varlen-lse", 90),
    ("prefill-skip-decode", 90), ("prefill-separate-non-causal", 80)])
def test_every_feature_on_compiles_without_spills(kernel, sm):
    # Every optional feature compiled in keeps the staging and spills
    # nothing.
    if kernel.startswith("decode"):
        d = 256 if "256" in kernel else 128
        group = 4 if "transposed" in kernel or d == 256 else 1
        block_n, warps = configs.decode_config(d, group)
        spec = decode._split_spec(F16, group, d, 16, block_n, True, True,
                                  "split" in kernel,
                                  configs.decode_transposed(d, group), False,
                                  "varlen" in kernel, ALL)
    elif kernel.startswith("combine"):
        spec, warps = decode._combine_spec(BF16, 128, True, True, True,
                                           True), 4
    else:
        block_m, block_n, warps = configs.prefill_config(128, sm)
        spec = prefill._spec(F16, 4, 128, 16, block_m, block_n, True, True,
                             "separate" in kernel, False,
                             "non-causal" not in kernel, "skip" in kernel,
                             ALL)
    k = launch.compiled(spec, sm, warps)
    counts = shape(k)
    assert counts[-1] == 0                               # no .local
    if not kernel.startswith("combine"):
        assert counts[3] > 0                             # cp.async staging
        assert (counts[2] if sm == 90 and kernel.startswith("prefill")
                else counts[1]) > 0                      # wgmma or mma.sync
