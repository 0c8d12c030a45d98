// RUN: quire-opt %s --quire-assign-layouts | FileCheck %s
// RUN: quire-opt %s "--quire-assign-layouts=num-warps=8" | FileCheck %s --check-prefix=W8
// Loads anchor 16-byte-per-thread blocked layouts (4 x f32, 8 x f16);
// reductions give slice layouts, expand_dims consumes them without a
// conversion, transposes permute the layout.

// CHECK: module attributes {tile.num_warps = 4 : i32}
// W8: module attributes {tile.num_warps = 8 : i32}
// CHECK-LABEL: func.func @row_sum
// CHECK: tile.load {{.*}} : tensor<16x64x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: tile.reduce sum {{.*}} -> tensor<16xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.expand_dims {{.*}} -> tensor<16x1xf32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// W8-LABEL: func.func @row_sum
// W8: warpsPerCTA = [4, 2]
func.func @row_sum(%p: !tile.ptr<f16>, %o: !tile.ptr<f32>) attributes {tile.kernel} {
  %r16 = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %rows = tile.expand_dims %r16 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rowoff = arith.muli %rows, %c64 : tensor<16x1xi32>
  %rb = tile.broadcast %rowoff : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %rb, %cb : tensor<16x64xi32>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %pp = tile.addptr %ps, %offs : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %x = tile.load %pp : tensor<16x64x!tile.ptr<f16>>
  %xf = arith.extf %x : tensor<16x64xf16> to tensor<16x64xf32>
  %s = tile.reduce sum %xf {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  %s2 = tile.expand_dims %s {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %sb = tile.broadcast %s2 : tensor<16x1xf32> -> tensor<16x64xf32>
  %y = arith.divf %xf, %sb : tensor<16x64xf32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  tile.store %op, %y : tensor<16x64x!tile.ptr<f32>>
  return
}

// A transpose permutes the load layout, and the store of the transposed tile
// takes that layout (stores anchor only what loads and relations left open).
// The index ranges shared by both offset computations are recomputed per
// consumer rather than converted.
// CHECK-LABEL: func.func @conflict
// CHECK: tile.trans {{.*}} -> tensor<64x32xf16, #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store {{.*}} : tensor<64x32x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @conflict(%p: !tile.ptr<f16>, %o: !tile.ptr<f16>) attributes {tile.kernel} {
  %r = tile.range 0, 32 : tensor<32xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<32x1xi32>
  %rb = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x64xi32>
  %cols = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %pp = tile.addptr %ps, %offs : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %x = tile.load %pp : tensor<32x64x!tile.ptr<f16>>
  %t = tile.trans %x : tensor<32x64xf16> -> tensor<64x32xf16>
  %os = tile.splat %o : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %rows2 = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %ro2 = arith.muli %rows2, %c32 : tensor<64x1xi32>
  %rb2 = tile.broadcast %ro2 : tensor<64x1xi32> -> tensor<64x32xi32>
  %cols2 = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb2 = tile.broadcast %cols2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %offs2 = arith.addi %rb2, %cb2 : tensor<64x32xi32>
  %op = tile.addptr %os, %offs2 : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  tile.store %op, %t : tensor<64x32x!tile.ptr<f16>>
  return
}

// Vectors decided by their own accesses take at most one element per thread
// of the CTA (as Triton's coalescing does): 16 i64 (two per thread would make
// the 16-byte vector) go one to each of 16 threads, whose masked stores
// cannot be 16 bytes wide anyway; 1024 f32 keep 4 per thread (with 8 warps,
// 256 threads, still 4).
// CHECK-LABEL: func.func @small_vectors
// CHECK: tile.store {{.*}} : tensor<16x!tile.ptr<i64>, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// W8-LABEL: func.func @small_vectors
// W8: tile.store {{.*}} : tensor<16x!tile.ptr<i64>, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
// W8: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
func.func @small_vectors(%p: !tile.ptr<i64> {tile.divisibility = 16 : i32},
                         %q: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                         %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 16 : tensor<16xi32>
  %ns = tile.splat %n : i32 -> tensor<16xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<16xi32>
  %v = arith.extsi %r : tensor<16xi32> to tensor<16xi64>
  %ps = tile.splat %p : !tile.ptr<i64> -> tensor<16x!tile.ptr<i64>>
  %pp = tile.addptr %ps, %r : tensor<16x!tile.ptr<i64>>, tensor<16xi32>
  tile.store %pp, %v, %m : tensor<16x!tile.ptr<i64>>
  %r2 = tile.range 0, 1024 : tensor<1024xi32>
  %f = arith.sitofp %r2 : tensor<1024xi32> to tensor<1024xf32>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %qp = tile.addptr %qs, %r2 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %qp, %f : tensor<1024x!tile.ptr<f32>>
  return
}

// An scf.while's carried tensors take one layout through both regions: the
// inits, the condition region's arguments and what the body yields; what
// the condition forwards, the body's arguments and the results. Here the
// dot's accumulator, so the mma layout throughout.
// CHECK-LABEL: func.func @while_carries_a_dot_accumulator
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (i32, [[T:tensor<16x16xf32, #tile.mma<\{warpsPerCTA = \[2, 2\]\}>>]]) -> (i32, [[T]])
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : i32, [[T]]
// CHECK: ^bb0(%{{.*}}: i32, %{{.*}}: [[T]]):
// CHECK: tile.dot {{.*}} -> [[T]]
// CHECK: scf.yield %{{.*}}, %{{.*}} : i32, [[T]]
// CHECK: tile.reduce sum %{{.*}} {axis = 0 : i32} : [[T]] ->
func.func @while_carries_a_dot_accumulator(%q: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %one = arith.constant dense<1.0> : tensor<16x16xf16>
  %res:2 = scf.while (%i = %c0, %acc = %z) : (i32, tensor<16x16xf32>) -> (i32, tensor<16x16xf32>) {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i, %acc : i32, tensor<16x16xf32>
  } do {
  ^bb0(%i2: i32, %acc2: tensor<16x16xf32>):
    %d = tile.dot %one, %one, %acc2 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    %i3 = arith.addi %i2, %c1 : i32
    scf.yield %i3, %d : i32, tensor<16x16xf32>
  }
  %s = tile.reduce sum %res#1 {axis = 0 : i32} : tensor<16x16xf32> -> tensor<16xf32>
  %r = tile.range 0, 16 : tensor<16xi32>
  %ps = tile.splat %q : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %pa = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %pa, %s : tensor<16x!tile.ptr<f32>>
  return
}
