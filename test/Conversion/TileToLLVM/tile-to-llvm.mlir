// RUN: quire-opt %s --quire-convert-tile-to-llvm --canonicalize --cse | FileCheck %s
// RUN: quire-opt %s "--quire-convert-tile-to-llvm=max-registers=128" | FileCheck %s --check-prefix=MAXREG
// The ops that move no data between threads (TileToLLVM.cpp): a kernel
// becomes an llvm.func with nvvm.kernel and the module's threads as
// nvvm.maxntid; grid ids read the special registers; a tensor becomes the
// registers one thread holds (tile.range: this thread's coordinates, from
// tid.x); splats, splat constants and elementwise ops work register by
// register; tile.addptr is a GEP per register; expand_dims, broadcast and
// trans only renumber registers (no shared memory).

#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [0, 1]}>
#slice = #tile.slice<{dim = 0, parent = #blocked1}>
#blocked2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]}>

module attributes {tile.num_warps = 4 : i32} {

// CHECK-LABEL: llvm.func @grid_and_elementwise(%arg0: !llvm.ptr<1>, %arg1: f32)
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tile.shared_bytes = 0 : i64}
// CHECK-DAG:     %[[TWO:.*]] = llvm.mlir.constant(2.000000e+00 : f32) : f32
// CHECK-DAG:     %[[PID:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-DAG:     %[[NP:.*]] = nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK:         %[[BASE:.*]] = llvm.mul %[[PID]], %[[NP]] : i32
// CHECK:         nvvm.read.ptx.sreg.tid.x : i32
// CHECK-COUNT-4: llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK:         %[[V:.*]] = llvm.fmul %arg1, %[[TWO]] : f32
// CHECK:         %[[OWN:.*]] = llvm.icmp "eq"
// CHECK:         %[[W:.*]] = llvm.bitcast %[[V]] : f32 to i32
// CHECK-COUNT-4: llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.b32 [ $0 + 0 ], $2;", "l,b,r" %{{.*}}, %[[OWN]], %[[W]]
// CHECK:         llvm.return
// MAXREG-LABEL: llvm.func @grid_and_elementwise
// MAXREG-SAME:    nvvm.maxnreg = 128 : i32
func.func @grid_and_elementwise(%x: !tile.ptr<f32>, %s: f32) attributes {tile.kernel} {
  %pid = tile.program_id y
  %np = tile.num_programs z
  %base = arith.muli %pid, %np : i32
  %r = tile.range 0, 128 : tensor<128xi32, #blocked>
  %bs = tile.splat %base : i32 -> tensor<128xi32, #blocked>
  %off = arith.addi %bs, %r : tensor<128xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #blocked>
  %xp = tile.addptr %xs, %off : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
  %ss = tile.splat %s : f32 -> tensor<128xf32, #blocked>
  %two = arith.constant dense<2.0> : tensor<128xf32, #blocked>
  %v = arith.mulf %ss, %two : tensor<128xf32, #blocked>
  tile.store %xp, %v : tensor<128x!tile.ptr<f32>, #blocked>
  return
}

// A row index broadcast over 4 rows and transposed: each thread keeps its
// one distinct value in every register (threads that hold copies of the
// elements do not store them).
// CHECK-LABEL: llvm.func @shape_ops
// CHECK-NOT:     llvm.mlir.addressof
// CHECK:         %[[P:.*]] = llvm.getelementptr %arg0[%[[I:.*]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK:         %[[F:.*]] = llvm.sitofp %[[I]] : i32 to f32
// CHECK:         %[[W:.*]] = llvm.bitcast %[[F]] : f32 to i32
// CHECK-COUNT-4: llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.b32 [ $0 + 0 ], $2;", "l,b,r" %[[P]], %{{.*}}, %[[W]]
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @shape_ops(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 32 : tensor<32xi32, #slice>
  %e = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32, #slice> -> tensor<1x32xi32, #blocked1>
  %b = tile.broadcast %e : tensor<1x32xi32, #blocked1> -> tensor<4x32xi32, #blocked1>
  %t = tile.trans %b : tensor<4x32xi32, #blocked1> -> tensor<32x4xi32, #blocked2>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x4x!tile.ptr<f32>, #blocked2>
  %xp = tile.addptr %xs, %t : tensor<32x4x!tile.ptr<f32>, #blocked2>, tensor<32x4xi32, #blocked2>
  %f = arith.sitofp %t : tensor<32x4xi32, #blocked2> to tensor<32x4xf32, #blocked2>
  tile.store %xp, %f : tensor<32x4x!tile.ptr<f32>, #blocked2>
  return
}

}
