"""The MLIR the frontend emits, FileCheck'd: each kernel's docstring holds
the check lines for its `asm["source"]`, with the kernel's name (upper
case, no underscores) as the check prefix."""

import os
import shutil
import subprocess

import pytest

import quire
import quire.language as tl
from conftest import FakeCudaArray

FILECHECK = shutil.which("FileCheck") or "/usr/lib/llvm-22/bin/FileCheck"
pytestmark = pytest.mark.skipif(not os.path.exists(FILECHECK),
                                reason="needs LLVM's FileCheck")


def filecheck(kernel, *args, **kwargs):
    text = kernel.warmup(*args, sm=90, **kwargs).asm["source"]
    # The check file is this test file, so [[@LINE]] means its lines.
    path = os.path.abspath(__file__)
    prefix = kernel.__name__.upper().replace("_", "")
    res = subprocess.run([FILECHECK, "--enable-var-scope",
                          f"--check-prefix={prefix}", path],
                         input=text, text=True, capture_output=True)
    assert res.returncode == 0, res.stderr + "\n--- source ---\n" + text


def ptr(t="<f32"):
    return FakeCudaArray((4096,), {"<f32": "<f4", "<f16": "<f2",
                                   "<i32": "<i4"}[t])


@quire.jit
def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    """
    ADDKERNEL-LABEL: func.func @add_kernel(
    ADDKERNEL-SAME: %arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}
    ADDKERNEL-SAME: %arg3: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel}
    ADDKERNEL: %[[PID:.*]] = tile.program_id x loc("{{.*}}test_frontend_mlir.py":[[@LINE+13]]:12)
    ADDKERNEL: %[[B:.*]] = arith.constant 256 : i32
    ADDKERNEL: %[[START:.*]] = arith.muli %[[PID]], %[[B]] : i32
    ADDKERNEL: %[[R:.*]] = tile.range 0, 256 : tensor<256xi32>
    ADDKERNEL: %[[S:.*]] = tile.splat %[[START]] : i32 -> tensor<256xi32>
    ADDKERNEL: %[[OFFS:.*]] = arith.addi %[[S]], %[[R]] : tensor<256xi32>
    ADDKERNEL: arith.cmpi slt, %[[OFFS]]
    ADDKERNEL: tile.addptr {{.*}}, %[[OFFS]] : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    ADDKERNEL: tile.load {{.*}} : tensor<256x!tile.ptr<f32>>
    ADDKERNEL: arith.addf
    ADDKERNEL: tile.store
    ADDKERNEL-NEXT: return
    """
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) +
             tl.load(y + offs, mask=mask), mask=mask)


def test_vector_add():
    filecheck(add_kernel, ptr(), ptr(), ptr(), 4096, BLOCK=256)


@quire.jit
def loop_kernel(x, out, n):
    """
    LOOPKERNEL-LABEL: func.func @loop_kernel(
    LOOPKERNEL: %[[ZERO:.*]] = arith.constant dense<0x00000000> : tensor<64xf32>
    LOOPKERNEL: %[[RES:.*]] = scf.for %[[IV:.*]] = %{{.*}} to %arg2 step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<64xf32>) : i32 {
    LOOPKERNEL:   %[[V:.*]] = tile.load
    LOOPKERNEL:   %[[NEXT:.*]] = arith.addf %[[ACC]], %[[V]] : tensor<64xf32>
    LOOPKERNEL:   scf.yield %[[NEXT]] : tensor<64xf32>
    LOOPKERNEL: }
    LOOPKERNEL: tile.store %{{.*}}, %[[RES]]
    """
    acc = tl.zeros((64,), tl.float32)
    for i in range(0, n, 64):
        acc += tl.load(x + i + tl.arange(0, 64))
    tl.store(out + tl.arange(0, 64), acc)


def test_for_loop_carries_iter_args():
    filecheck(loop_kernel, ptr(), ptr(), 1000)


@quire.jit
def if_kernel(x, out, t):
    """
    IFKERNEL-LABEL: func.func @if_kernel(
    IFKERNEL: %[[C:.*]] = arith.cmpi sgt
    IFKERNEL: %[[R:.*]] = scf.if %[[C]] -> (i32) {
    IFKERNEL:   scf.yield %{{.*}} : i32
    IFKERNEL: } else {
    IFKERNEL:   %[[Z:.*]] = arith.constant 0 : i32
    IFKERNEL:   scf.yield %[[Z]] : i32
    IFKERNEL: }
    IFKERNEL: tile.store %{{.*}}, %[[R]] : !tile.ptr<i32>
    """
    v = tl.load(x)
    y = 0
    if v > t:
        y = v * 3
    tl.store(out, y)


def test_runtime_if_yields_merged_values():
    filecheck(if_kernel, ptr("<i32"), ptr("<i32"), 5)


@quire.jit
def _helper(v):
    return v + 1


@quire.jit
def call_kernel(x):
    """
    CALLKERNEL-LABEL: func.func @call_kernel(
    CALLKERNEL: arith.addi {{.*}} loc(callsite("{{.*}}test_frontend_mlir.py":[[CALLEE:[0-9]+]]:{{[0-9]+}} at "{{.*}}test_frontend_mlir.py":[[@LINE+3]]:{{[0-9]+}}))
    """
    v = tl.load(x)
    tl.store(x, _helper(v))


def test_inlined_calls_carry_callsite_locations():
    filecheck(call_kernel, ptr("<i32"))


@quire.jit
def paged_kernel(cache, bt, out, first, head, seq_len):
    """
    PAGEDKERNEL-LABEL: func.func @paged_kernel(
    PAGEDKERNEL: %[[P:.*]] = tile.paged_load %arg0[%arg1, %arg3, %arg4] {cols = 80 : i32, page_size = 16 : i32} strides(%{{.*}}, %{{.*}}, %{{.*}}) bound %arg5 : tensor<32x128xf16>
    PAGEDKERNEL-NOT: tile.load
    """
    t = tl.paged_load(cache, bt, first, head, (32, 128), 16,
                      (16 * 8 * 128, 8 * 128, 128), seq_len, cols=80)
    r = tl.arange(0, 32)
    c = tl.arange(0, 128)
    tl.store(out + r[:, None] * 128 + c[None, :], t)


def test_paged_load_is_one_op():
    filecheck(paged_kernel, ptr("<f16"), ptr("<i32"), ptr("<f16"), 3, 2, 100)


@quire.jit
def div_kernel(x, out):
    """
    DIVKERNEL-LABEL: func.func @div_kernel(
    DIVKERNEL: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : tensor<64xf32>
    DIVKERNEL: arith.divf %{{.*}}, %{{.*}} : tensor<64xf32>
    DIVKERNEL: arith.divf %{{.*}}, %{{.*}} : tensor<64xf32>
    DIVKERNEL: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : tensor<64xf32>
    DIVKERNEL: arith.divf %{{.*}}, %{{.*}} : tensor<64xf64>
    DIVKERNEL-NOT: fastmath
    """
    o = tl.arange(0, 64)
    a = tl.load(x + o)
    b = a / 3.0                                      # Triton's f32 `/`
    c = tl.math.div_rn(b, a)                         # correctly rounded
    d = tl.math.fdiv(c, a, ieee_rounding=True)
    e = tl.math.fdiv(d, a)
    f = a.to(tl.float64) / 3.0                       # f64: no flag
    tl.store(out + o, e + f.to(tl.float32))


def test_f32_division_is_approximate_unless_asked():
    filecheck(div_kernel, ptr(), ptr())
