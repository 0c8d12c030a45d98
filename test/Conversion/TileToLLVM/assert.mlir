// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// tile.assert (AssertToLLVM.cpp): each thread selects the arguments of the
// first false element it holds; a thread holding one (and owning its
// elements: replicas stay silent, and only thread 0 reports a scalar)
// branches to a vprintf of the message, with " in program (x, y, z)"
// appended, and traps. The argument buffer is an alloca in the entry block.

#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

module attributes {tile.num_warps = 4 : i32} {

// CHECK-DAG:   llvm.mlir.global internal constant @quire_assert_0("entry %d is negative in program (%d, %d, %d)\0A\00")
// CHECK-DAG:   llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: llvm.func @tensor_assert
// CHECK:         %[[BUF:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32)> {alignment = 4 : i64}
// CHECK:         llvm.select
// CHECK:         llvm.cond_br %{{.*}}, ^[[REPORT:.*]], ^[[CONT:.*]]
// CHECK:       ^[[REPORT]]:
// CHECK:         nvvm.read.ptx.sreg.ctaid.x
// CHECK:         %[[FMT:.*]] = llvm.mlir.addressof @quire_assert_0 : !llvm.ptr
// CHECK:         llvm.call @vprintf(%[[FMT]], %[[BUF]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT:    llvm.intr.trap
// CHECK:       ^[[CONT]]:
// CHECK:         llvm.return
func.func @tensor_assert(%p: !tile.ptr<i32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>, #b>
  %x = tile.load %ps : tensor<256x!tile.ptr<i32>, #b>
  %zero = arith.constant dense<0> : tensor<256xi32, #b>
  %ok = arith.cmpi sge, %x, %zero : tensor<256xi32, #b>
  tile.assert %ok, "entry %d is negative", %x : tensor<256xi1, #b>, tensor<256xi32, #b>
  return
}

// A scalar condition: only thread 0 may report (tid.x bits all clear).
// CHECK-LABEL: llvm.func @scalar_assert
// CHECK:         nvvm.read.ptx.sreg.tid.x
// CHECK:         llvm.icmp "eq"
// CHECK:         llvm.cond_br
// CHECK:         llvm.call @vprintf
// CHECK:         llvm.intr.trap
func.func @scalar_assert(%n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi sgt, %n, %c0 : i32
  tile.assert %ok, "n = %d", %n : i1, i32
  return
}

}
