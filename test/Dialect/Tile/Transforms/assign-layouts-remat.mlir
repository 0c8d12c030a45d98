// RUN: quire-opt %s --quire-assign-layouts --cse | FileCheck %s
// Index arithmetic a relation needs in another layout is computed again in
// that layout rather than converted through shared memory: here one range
// (and its extension to i64) gives a square tile's rows and its columns,
// and the rows' offsets are added to a per-iteration base inside a loop.

// CHECK-LABEL: func.func @square_tile_rows_and_columns
// CHECK-NOT: tile.convert_layout
// CHECK-DAG: %[[COLS:.*]] = tile.range 0, 64 : tensor<64xi32, #tile.slice<{dim = 0, parent = #[[B:.*]]}>>
// CHECK-DAG: %[[ROWS:.*]] = tile.range 0, 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #[[B]]}>>
// CHECK-DAG: arith.extui %[[ROWS]] : {{.*}} to tensor<64xi64, #tile.slice<{dim = 1,
// CHECK-DAG: arith.extui %[[COLS]] : {{.*}} to tensor<64xi64, #tile.slice<{dim = 0,
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout
// CHECK: tile.expand_dims {{.*}} {axis = 1 : i32} : tensor<64xi64, #tile.slice<{dim = 1,
// CHECK-NOT: tile.convert_layout
// CHECK: tile.load
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @square_tile_rows_and_columns(%p: !tile.ptr<f16>, %o: !tile.ptr<f32>,
                                        %stride: i64, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %r64 = arith.extui %r : tensor<64xi32> to tensor<64xi64>
  %st = tile.splat %stride : i64 -> tensor<64xi64>
  %rowoff = arith.muli %r64, %st : tensor<64xi64>
  %cols = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi64> -> tensor<1x64xi64>
  %cb = tile.broadcast %cols : tensor<1x64xi64> -> tensor<64x64xi64>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
    %i64 = arith.extui %i : i32 to i64
    %base = arith.muli %i64, %stride : i64
    %bs = tile.splat %base : i64 -> tensor<64xi64>
    %rows = arith.addi %bs, %rowoff : tensor<64xi64>
    %re = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi64> -> tensor<64x1xi64>
    %rb = tile.broadcast %re : tensor<64x1xi64> -> tensor<64x64xi64>
    %offs = arith.addi %rb, %cb : tensor<64x64xi64>
    %pp = tile.addptr %ps, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi64>
    %x = tile.load %pp : tensor<64x64x!tile.ptr<f16>>
    %xf = arith.extf %x : tensor<64x64xf16> to tensor<64x64xf32>
    %s = arith.addf %a, %xf : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ri = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ro = arith.muli %ri, %c64 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %ci = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cib = tile.broadcast %ci : tensor<1x64xi32> -> tensor<64x64xi32>
  %oo = arith.addi %rob, %cib : tensor<64x64xi32>
  %op = tile.addptr %os, %oo : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
