// RUN: quire-opt %s --quire-convert-tile-to-llvm --canonicalize --cse | FileCheck %s
// RUN: quire-opt %s "--quire-tile-pipeline=async-stages=0" | FileCheck %s --check-prefix=KEPT
// Value hints (AxisInfo.cpp): tile.divisibility and tile.contiguity on an
// op replace what AxisInfo infers for its first result, so loads through
// addresses it cannot analyse vectorize as the hint promises (tl.multiple_of
// and tl.max_contiguous). The lowering drops the hints from the ops it
// emits; the tile pipeline keeps them.

#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

module attributes {tile.num_warps = 4 : i32} {

// pid * n: n has no known divisibility, so neither has the row start, and
// the row is read element by element.
// CHECK-LABEL: llvm.func @unknown_start
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT:     vector<4xf32>, !llvm.ptr<1>
func.func @unknown_start(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel} {
  %pid = tile.program_id x
  %base = arith.muli %pid, %n : i32
  %r = tile.range 0, 512 : tensor<512xi32, #b>
  %bs = tile.splat %base : i32 -> tensor<512xi32, #b>
  %off = arith.addi %bs, %r : tensor<512xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %off : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>, #b>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  tile.store %os, %v : tensor<512x!tile.ptr<f32>, #b>
  return
}

// The same with the row start promised a multiple of 16 (a scalar i32
// hint): one 16-byte load per thread.
// CHECK-LABEL: llvm.func @divisible_start
// CHECK:         llvm.mul %{{.*}}, %arg2 : i32
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:     tile.divisibility
// KEPT-LABEL:  func.func @divisible_start
// KEPT:          arith.muli %{{.*}}, %{{.*}} {tile.divisibility = 16 : i32} : i32
func.func @divisible_start(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel} {
  %pid = tile.program_id x
  %base = arith.muli %pid, %n {tile.divisibility = 16 : i32} : i32
  %r = tile.range 0, 512 : tensor<512xi32, #b>
  %bs = tile.splat %base : i32 -> tensor<512xi32, #b>
  %off = arith.addi %bs, %r : tensor<512xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %off : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>, #b>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  tile.store %os, %v : tensor<512x!tile.ptr<f32>, #b>
  return
}

// Offsets loaded from memory know nothing; promised contiguous in runs of
// 512 starting at multiples of 16 (array hints, one value per dimension),
// the gather through them is one 16-byte load per thread.
// CHECK-LABEL: llvm.func @gathered_offsets
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:     tile.contiguity
func.func @gathered_offsets(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %idx: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #b>
  %is = tile.splat %idx : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>, #b>
  %ip = tile.addptr %is, %r : tensor<512x!tile.ptr<i32>, #b>, tensor<512xi32, #b>
  %i = tile.load %ip : tensor<512x!tile.ptr<i32>, #b>
  %zero = arith.constant dense<0> : tensor<512xi32, #b>
  %off = arith.addi %i, %zero {tile.contiguity = array<i32: 512>, tile.divisibility = array<i32: 16>} : tensor<512xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %off : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>, #b>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  tile.store %os, %v : tensor<512x!tile.ptr<f32>, #b>
  return
}

}
