"""ptxas at compile time: a kernel compiled where a ptxas is found carries
its cubin (what launches load) and its registers and spills; a second
process finds the cubin on disk and runs no ptxas; a missing or failing
ptxas leaves the kernel as PTX with a logged warning."""

import json
import os
import subprocess
import sys

import pytest

import quire
import quire.language as tl
from quire import _ptxas
from conftest import FakeCudaArray, example

FOUND = _ptxas.find()
needs_ptxas = pytest.mark.skipif(FOUND is None, reason="no ptxas "
                                 "($QUIRE_PTXAS, Triton's, the CUDA toolkit's)")

CHILD = r"""
import json, sys
import quire
k = quire.compile(sys.argv[1], sm=90)
print(json.dumps({"info": quire.cache_info(), "elf": k.cubin is not None and
                  k.cubin[:4] == b"\x7fELF", "registers":
                  k.metadata.get("registers"), "spills":
                  k.metadata.get("spill_stores"), "sass":
                  k.metadata.get("sass_instructions")}))
"""


def _child(cache, src, env_extra=None):
    env = dict(os.environ)
    env["QUIRE_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(quire.__file__))] +
        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-c", CHILD, src], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1]), proc.stderr


@needs_ptxas
def test_cubin_is_assembled_once_and_cached(tmp_path):
    src = example("paged_decode_attention.mlir")
    first, _ = _child(tmp_path, src)
    assert first["info"]["assembles"] == 1 and first["elf"]
    assert first["registers"] > 0 and first["spills"] == 0
    second, _ = _child(tmp_path, src)
    assert second["info"]["compiles"] == 0
    assert second["info"]["assembles"] == 0
    assert second["info"]["cubin_disk_hits"] == 1
    assert second["elf"] and second["registers"] == first["registers"]
    assert first["sass"] > 0 and second["sass"] == first["sass"]


@needs_ptxas
def test_sass_instructions_count_the_kernels_code():
    # Machine instructions from the cubin's .text.<kernel> section (16
    # bytes each): more work, more instructions; an unrolled loop of 8
    # loads against one.
    @quire.jit
    def one(x, y):
        tl.store(y, tl.load(x) + 1.0)

    @quire.jit
    def eight(x, y):
        for i in tl.static_range(8):
            tl.store(y + i, tl.load(x + i) * tl.load(x + 7 - i) + 1.0)

    args = (FakeCudaArray((8,), "<f4"), FakeCudaArray((8,), "<f4"))
    small, big = (f.warmup(*args, grid=(1,), sm=90).kernel.metadata[
        "sass_instructions"] for f in (one, eight))
    assert 0 < small < big
    assert _ptxas.text_sizes(b"not an ELF") == {}


def test_missing_or_disabled_ptxas_leaves_ptx(tmp_path):
    res, err = _child(tmp_path, example("vector_add.mlir"),
                      {"QUIRE_PTXAS": str(tmp_path / "no-such-ptxas")})
    assert res["info"]["assembles"] == 0 and not res["elf"]
    assert res["registers"] is None
    assert "is not an executable ptxas" in err
    res, err = _child(tmp_path / "off", example("vector_add.mlir"),
                      {"QUIRE_PTXAS": ""})
    assert res["info"]["assembles"] == 0 and not res["elf"] and not err


def test_failing_ptxas_is_logged_and_leaves_ptx(tmp_path):
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho 'ptxas fatal: broken' >&2\nexit 3\n")
    fake.chmod(0o755)
    script = (CHILD.replace("import quire\n", "import logging, quire\n"
                            "logging.basicConfig()\n", 1))
    env = dict(os.environ, QUIRE_CACHE_DIR=str(tmp_path / "c"),
               QUIRE_PTXAS=str(fake))
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(quire.__file__))] +
        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, "-c", script,
                           example("vector_add.mlir")], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout.splitlines()[-1])
    assert not res["elf"] and res["info"]["assembles"] == 0
    assert "could not assemble" in proc.stderr
    assert "ptxas fatal: broken" in proc.stderr


def test_asm_is_memoised():
    k = quire.compile(example("vector_add.mlir"), sm=90)
    assert k.asm("tile") is k.asm("tile")
    assert k.asm("ptx") is k.ptx


@needs_ptxas
def test_jit_kernels_know_their_registers_without_a_gpu():
    @quire.jit
    def scale(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2,
                 mask=offs < n)

    k = scale.warmup(FakeCudaArray((1024,), "<f4"), 1000, BLOCK=256, sm=90)
    assert k.kernel.cubin[:4] == b"\x7fELF"
    assert k.n_regs == k.kernel.metadata["registers"] > 0
    assert k.n_spills == 0
