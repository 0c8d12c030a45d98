"""pingpong: in the fused-attention tutorial's loop (Triton's 06, under
Quire) at 128 query rows on 8 warps, the two warpgroups run half an
iteration apart (quire-pingpong): warpgroup 1 runs the loop rotated, the
softmax and P V of the iteration before and then its own scores, so one
warpgroup's softmax runs beside the other's dots. The kernel has the shape
(a branch on the warpgroup, each loop twice), ptxas keeps the dots without
serializing and without spills, the option is validated and part of the
caches' keys, the interpreter accepts it, and on the GPU the kernel agrees
with float64."""

import re

import pytest

from conftest import ptxas_sm90a
from test_early_dots import (check_bool_option, check_interpreted,
                             check_on_the_gpu, tutorial, warmup)

np = pytest.importorskip("numpy")


def _warmup(m, pingpong, stage=1, num_stages=3, block_m=128, warps=8):
    return warmup(m, stage, num_stages, 128, block_m, warps,
                  pingpong=pingpong)


def _loops(tile):
    return len(re.findall(r"= scf\.for ", tile))


@pytest.mark.parametrize("stage", [1, 3])
def test_the_warpgroups_run_half_an_iteration_apart(stage):
    m = tutorial()
    on, off = _warmup(m, True, stage), _warmup(m, False, stage)
    # The causal kernel has two loops: each is split on the warpgroup and
    # runs once as it is and once rotated.
    loops = 2 if stage == 3 else 1
    assert _loops(off.asm["tile"]) == loops
    assert _loops(on.asm["tile"]) == 2 * loops
    assert on.asm["tile"].count("tile.warpgroup_id") == 1
    assert "tile.warpgroup_id" not in off.asm["tile"]
    # The warpgroup read from lane 0, so the branch is uniform in a warp.
    assert re.search(r"shfl\.sync\.idx\.b32\s+%r\d+, %r\d+, 0, 31, -1;",
                     on.asm["ptx"])
    # Each loop's barrier, in each branch, and the one of warpgroup 1's
    # first iteration (run before its rotated loop): barrier.sync, not the
    # aligned bar.sync (every thread at one instruction); the barriers
    # around the loops stay.
    def barriers(k, kind):
        return len(re.findall(kind + r"\s+0;", k.asm["ptx"]))
    assert barriers(off, r"barrier\.sync") == 0
    assert barriers(on, r"barrier\.sync") == 3 * loops
    # In the rotated loop the iteration before's P V and this iteration's
    # scores are two wgmma groups in flight together, retired by one wait.
    assert len(re.findall(r"tile\.warpgroup_wait %\S+, %\S+ \{pending = 0",
                          on.asm["tile"])) == loops
    assert barriers(on, r"bar\.sync") == barriers(off, r"bar\.sync") - loops


def test_ptxas_keeps_the_dots_in_order_without_spills():
    report = ptxas_sm90a(_warmup(tutorial(), True, 3).asm["ptx"],
                         "pingpong_attention", verbose=True)
    assert "C7515" not in report and "C7517" not in report
    assert "0 bytes spill stores, 0 bytes spill loads" in report, report


@pytest.mark.parametrize("num_stages, block_m, warps",
                         [(2, 128, 8), (3, 64, 4)])
def test_needs_three_stages_and_two_warpgroups(num_stages, block_m, warps):
    # With 2 stages the stage the rotated warpgroup still reads would be
    # refilled; with one warpgroup there is no other to overlap.
    k = _warmup(tutorial(), True, num_stages=num_stages, block_m=block_m,
                warps=warps)
    assert "tile.warpgroup_id" not in k.asm["tile"]


def test_option_is_validated_and_keyed():
    check_bool_option("pingpong", _warmup)


def test_interpreter_accepts_the_option(monkeypatch):
    check_interpreted(monkeypatch, 12, pingpong=True)


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("D, N, block_n",
                         [(64, 1024, 64), (128, 1024, 64), (128, 640, 128)])
def test_matches_float64_on_the_gpu(causal, D, N, block_n):
    # The tutorial needs N to be a multiple of BLOCK_M (its loads and stores
    # are unmasked); 640 keys in blocks of 128 give odd trip counts (5, and
    # 0 to 4 below the diagonal), where the rotated warpgroup's epilogue
    # runs after a loop that ends on a different stage than it started.
    kern = check_on_the_gpu(D + N + causal, causal, D, N, 128, block_n, 8,
                            pingpong=True)
    assert "tile.warpgroup_id" in kern.asm["tile"]
