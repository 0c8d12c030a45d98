"""The IR after every pass, from Python: quire.compile(..., dump_ir=True)
or $QUIRE_DUMP_IR=1 (as MLIR_ENABLE_DUMP is for Triton) prints it to
stderr, compiling even a cached kernel; a failing compilation dumps up to
the failure."""

import os
import subprocess
import sys

import pytest

import quire
from conftest import example

PASSES = ["IR Dump After ForwardStores (quire-forward-stores)",
          "IR Dump After AssignLayouts (quire-assign-layouts)",
          "IR Dump After ConvertTileToLLVM (quire-convert-tile-to-llvm)"]


def test_dump_ir_prints_every_pass_even_when_cached(capfd):
    src = example("softmax.mlir")
    quire.compile(src, sm=90)  # cached from here on
    capfd.readouterr()
    quire.compile(src, sm=90, dump_ir=True)
    err = capfd.readouterr().err
    for p in PASSES:
        assert p in err
    quire.compile(src, sm=90)
    assert "IR Dump" not in capfd.readouterr().err


def test_environment_variable_in_a_new_process(tmp_path):
    env = dict(os.environ, QUIRE_CACHE_DIR=str(tmp_path), QUIRE_DUMP_IR="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(quire.__file__))] +
        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    code = ("import quire, sys; quire.compile(sys.argv[1], sm=90); "
            "quire.compile(sys.argv[1], sm=90)")
    res = subprocess.run([sys.executable, "-c", code,
                          example("vector_add.mlir")], env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    # Both compiles dump, the second one despite the cache.
    assert res.stderr.count(PASSES[0]) == 2


def test_a_failing_compile_dumps_up_to_the_failure(capfd):
    # fp8 conversions need sm_89: the lowering to LLVM refuses them on
    # sm_80, after the tile passes ran.
    bad = b"""
func.func @k(%p: !tile.ptr<f8E4M3FN>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %v = tile.load %p : !tile.ptr<f8E4M3FN>
  %w = arith.extf %v : f8E4M3FN to f32
  tile.store %q, %w : !tile.ptr<f32>
  return
}
"""
    with pytest.raises(quire.CompilationError, match="sm_89"):
        quire.compile(bad, sm=80, dump_ir=True, source_name="bad.mlir")
    err = capfd.readouterr().err
    assert PASSES[1] in err and PASSES[2] not in err


def test_dump_ir_is_checked():
    with pytest.raises(TypeError, match="dump_ir must be True, False or "
                       "None, got str"):
        quire.compile(example("vector_add.mlir"), sm=90, dump_ir="yes")
