// RUN: quire-opt %s --quire-convert-tile-to-llvm --canonicalize --cse | FileCheck %s
// tile.reduce (ReduceToLLVM.cpp) combines in three steps, each only where
// the layout spreads the reduced axis that way: a thread's own registers,
// then shfl.sync.bfly over the lanes (one per lane bit along the axis), then
// shared memory over the warps (each warp stores its partial, a barrier,
// every thread combines the partials). max/min of floats propagate NaN;
// xor (integers) combines with xor.

#blocked8 = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #tile.slice<{dim = 1, parent = #blocked1}>
#slice1c = #tile.slice<{dim = 0, parent = #blocked1}>
#blocked2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]}>
#slice2 = #tile.slice<{dim = 1, parent = #blocked2}>
#slice2c = #tile.slice<{dim = 0, parent = #blocked2}>

module attributes {tile.num_warps = 4 : i32} {

// All of a 512-element tensor to a scalar: registers, 5 lane steps, then
// the 4 warps' partials through shared memory, with the one barrier the
// placement keeps (between the stores and the loads).
// CHECK:       llvm.mlir.global external @quire_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @reduce_all
// CHECK-SAME:    tile.shared_bytes = 128 : i64
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-3: llvm.intr.maximum
// CHECK-COUNT-5: nvvm.shfl.sync  bfly {{.*}} : f32 -> f32
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.b32 [ $0 + 0 ], $2;", "l,b,r" %arg1
func.func @reduce_all(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  %a = tile.load %xp : tensor<512x!tile.ptr<f32>, #blocked>
  %s = tile.reduce max %a {axis = 0 : i32} : tensor<512xf32, #blocked> -> f32
  tile.store %out, %s : !tile.ptr<f32>
  return
}

// A thread's 8 registers combine as a tree (4 sums of pairs, 2 of those,
// 1), 3 dependent steps instead of a chain of 7.
// CHECK-LABEL: llvm.func @reduce_tree
// CHECK:         %[[A:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[B:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[C:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[D:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[E:.*]] = llvm.fadd %[[A]], %[[B]] : f32
// CHECK-NEXT:    %[[F:.*]] = llvm.fadd %[[C]], %[[D]] : f32
// CHECK-NEXT:    llvm.fadd %[[E]], %[[F]] : f32
func.func @reduce_tree(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 1024 : tensor<1024xi32, #blocked8>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked8>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #blocked8>, tensor<1024xi32, #blocked8>
  %a = tile.load %xp : tensor<1024x!tile.ptr<f32>, #blocked8>
  %s = tile.reduce sum %a {axis = 0 : i32} : tensor<1024xf32, #blocked8> -> f32
  tile.store %out, %s : !tile.ptr<f32>
  return
}

// Rows spread over the lanes of one warp each: shuffles, no shared memory.
// CHECK-LABEL: llvm.func @reduce_over_lanes
// CHECK-SAME:    tile.shared_bytes = 0 : i64
// CHECK-COUNT-3: llvm.intr.minimum
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK-NOT:     !llvm.ptr<3>
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @reduce_over_lanes(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 4 : tensor<4xi32, #slice1>
  %c = tile.range 0, 128 : tensor<128xi32, #slice1c>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<4xi32, #slice1> -> tensor<4x1xi32, #blocked1>
  %c128 = arith.constant dense<128> : tensor<4x1xi32, #blocked1>
  %rr = arith.muli %r2, %c128 : tensor<4x1xi32, #blocked1>
  %rb = tile.broadcast %rr : tensor<4x1xi32, #blocked1> -> tensor<4x128xi32, #blocked1>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32, #slice1c> -> tensor<1x128xi32, #blocked1>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #blocked1> -> tensor<4x128xi32, #blocked1>
  %off = arith.addi %rb, %cb : tensor<4x128xi32, #blocked1>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<4x128x!tile.ptr<f32>, #blocked1>
  %xp = tile.addptr %xs, %off : tensor<4x128x!tile.ptr<f32>, #blocked1>, tensor<4x128xi32, #blocked1>
  %a = tile.load %xp : tensor<4x128x!tile.ptr<f32>, #blocked1>
  %s = tile.reduce min %a {axis = 1 : i32} : tensor<4x128xf32, #blocked1> -> tensor<4xf32, #slice1>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>, #slice1>
  %op = tile.addptr %os, %r : tensor<4x!tile.ptr<f32>, #slice1>, tensor<4xi32, #slice1>
  tile.store %op, %s : tensor<4x!tile.ptr<f32>, #slice1>
  return
}

// Each thread holds a whole row: register adds only.
// CHECK-LABEL: llvm.func @reduce_in_thread
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-3: llvm.fadd
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @reduce_in_thread(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 32 : tensor<32xi32, #slice2>
  %c = tile.range 0, 4 : tensor<4xi32, #slice2c>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked2>
  %c4 = arith.constant dense<4> : tensor<32x1xi32, #blocked2>
  %rr = arith.muli %r2, %c4 : tensor<32x1xi32, #blocked2>
  %rb = tile.broadcast %rr : tensor<32x1xi32, #blocked2> -> tensor<32x4xi32, #blocked2>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<4xi32, #slice2c> -> tensor<1x4xi32, #blocked2>
  %cb = tile.broadcast %c2 : tensor<1x4xi32, #blocked2> -> tensor<32x4xi32, #blocked2>
  %off = arith.addi %rb, %cb : tensor<32x4xi32, #blocked2>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x4x!tile.ptr<f32>, #blocked2>
  %xp = tile.addptr %xs, %off : tensor<32x4x!tile.ptr<f32>, #blocked2>, tensor<32x4xi32, #blocked2>
  %a = tile.load %xp : tensor<32x4x!tile.ptr<f32>, #blocked2>
  %s = tile.reduce sum %a {axis = 1 : i32} : tensor<32x4xf32, #blocked2> -> tensor<32xf32, #slice2>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #slice2>
  %op = tile.addptr %os, %r : tensor<32x!tile.ptr<f32>, #slice2>, tensor<32xi32, #slice2>
  tile.store %op, %s : tensor<32x!tile.ptr<f32>, #slice2>
  return
}


// xor of integers: the same steps with llvm.xor.
// CHECK-LABEL: llvm.func @reduce_xor
// CHECK-COUNT-3: llvm.xor
// CHECK-COUNT-5: nvvm.shfl.sync  bfly {{.*}} : i32 -> i32
// CHECK:         nvvm.barrier0
func.func @reduce_xor(%x: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<i32>) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>, #blocked>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<i32>, #blocked>, tensor<512xi32, #blocked>
  %a = tile.load %xp : tensor<512x!tile.ptr<i32>, #blocked>
  %s = tile.reduce xor %a {axis = 0 : i32} : tensor<512xi32, #blocked> -> i32
  tile.store %out, %s : !tile.ptr<i32>
  return
}

// tile.warp_any: a thread's elements (4 here) or-ed, then one
// vote.sync.any over the whole warp; the scf.if on it becomes a branch.
// CHECK-LABEL: llvm.func @warp_any
// CHECK-COUNT-3: llvm.or %{{.*}} : i1
// CHECK:         %[[ANY:.*]] = nvvm.vote.sync  any %{{.*}}, %{{.*}} -> i1
// CHECK:         llvm.cond_br %[[ANY]]
func.func @warp_any(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  %a = tile.load %xp : tensor<512x!tile.ptr<f32>, #blocked>
  %one = arith.constant dense<1.0> : tensor<512xf32, #blocked>
  %ne = arith.cmpf une, %a, %one : tensor<512xf32, #blocked>
  %any = tile.warp_any %ne : tensor<512xi1, #blocked>
  %y = scf.if %any -> tensor<512xf32, #blocked> {
    %d = arith.addf %a, %a : tensor<512xf32, #blocked>
    scf.yield %d : tensor<512xf32, #blocked>
  } else {
    scf.yield %a : tensor<512xf32, #blocked>
  }
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %op = tile.addptr %os, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  tile.store %op, %y : tensor<512x!tile.ptr<f32>, #blocked>
  return
}

}
