// RUN: quire-opt %s --quire-lower-paged-loads --canonicalize --cse | FileCheck %s
// A 64-token tile over 16-token pages touches 4 pages: one block-table entry
// per row, through pointers that are constant over each page (t >> 4), read
// only for pages that start below seq_len; t / 16 and t % 16 are a shift and
// a mask; offsets are i64; rows at or past seq_len are masked.

// CHECK-LABEL: func.func @spans
// CHECK-SAME: (%[[CACHE:.*]]: !tile.ptr<f16>, %[[BT:.*]]: !tile.ptr<i32>, %[[FIRST:.*]]: i32, %[[HEAD:.*]]: i32, %[[PS:.*]]: i64, %[[TS:.*]]: i64, %[[HS:.*]]: i64, %[[LEN:.*]]: i32)
// CHECK-DAG: %[[C15:.*]] = arith.constant dense<15> : tensor<64xi32>
// CHECK-DAG: %[[C16:.*]] = arith.constant dense<16> : tensor<64xi32>
// CHECK-DAG: %[[C4:.*]] = arith.constant dense<4> : tensor<64xi32>
// CHECK:     %[[R:.*]] = tile.range 0, 64 : tensor<64xi32>
// CHECK:     %[[FS:.*]] = tile.splat %[[FIRST]]
// CHECK:     %[[TOK:.*]] = arith.addi %[[FS]], %[[R]] : tensor<64xi32>
// CHECK:     %[[PAGE:.*]] = arith.shrui %[[TOK]], %[[C4]] : tensor<64xi32>
// CHECK:     %[[PSTART:.*]] = arith.muli %[[PAGE]], %[[C16]]
// CHECK:     %[[LENS:.*]] = tile.splat %[[LEN]] : i32 -> tensor<64xi32>
// CHECK:     %[[PVALID:.*]] = arith.cmpi slt, %[[PSTART]], %[[LENS]]
// CHECK:     %[[BTS:.*]] = tile.splat %[[BT]] : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
// CHECK:     %[[BTP:.*]] = tile.addptr %[[BTS]], %[[PAGE]]
// CHECK:     %[[ENTRY:.*]] = tile.load %[[BTP]], %[[PVALID]], %{{.*}} : tensor<64x!tile.ptr<i32>>
// CHECK:     %[[HEAD64:.*]] = arith.extui %[[HEAD]] : i32 to i64
// CHECK:     %[[HOFF:.*]] = arith.muli %[[HEAD64]], %[[HS]] : i64
// CHECK:     %[[E64:.*]] = arith.extui %[[ENTRY]] : tensor<64xi32> to tensor<64xi64>
// CHECK:     %[[POFF:.*]] = arith.muli %[[E64]], %{{.*}} : tensor<64xi64>
// CHECK:     %[[SLOT:.*]] = arith.andi %[[TOK]], %[[C15]] : tensor<64xi32>
// CHECK:     %[[SLOT64:.*]] = arith.extui %[[SLOT]] : tensor<64xi32> to tensor<64xi64>
// CHECK:     %[[TOFF:.*]] = arith.muli %[[SLOT64]], %{{.*}} : tensor<64xi64>
// CHECK:     %[[ROW0:.*]] = arith.addi %[[POFF]], %[[TOFF]] : tensor<64xi64>
// CHECK:     %[[ROWS:.*]] = arith.addi %[[ROW0]], %{{.*}} : tensor<64xi64>
// CHECK:     %[[ROWS2:.*]] = tile.expand_dims %[[ROWS]] {axis = 1 : i32} : tensor<64xi64> -> tensor<64x1xi64>
// CHECK:     %[[ROWSB:.*]] = tile.broadcast %[[ROWS2]] : tensor<64x1xi64> -> tensor<64x128xi64>
// CHECK:     %[[COLS:.*]] = tile.range 0, 128 : tensor<128xi32>
// CHECK:     %[[OFFS:.*]] = arith.addi %[[ROWSB]], %{{.*}} : tensor<64x128xi64>
// CHECK:     %[[PTRS:.*]] = tile.addptr %{{.*}}, %[[OFFS]] : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi64>
// CHECK:     %[[VALID:.*]] = arith.cmpi slt, %[[TOK]], %[[LENS]] : tensor<64xi32>
// CHECK:     %[[MASK2:.*]] = tile.expand_dims %[[VALID]]
// CHECK:     %[[MASK:.*]] = tile.broadcast %[[MASK2]] : tensor<64x1xi1> -> tensor<64x128xi1>
// CHECK:     %[[TILE:.*]] = tile.load %[[PTRS]], %[[MASK]], %{{.*}} : tensor<64x128x!tile.ptr<f16>>
// CHECK:     return %[[TILE]]
// CHECK-NOT: tile.paged_load
// CHECK-NOT: tile.store
func.func @spans(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %first: i32, %head: i32,
                 %ps: i64, %ts: i64, %hs: i64, %len: i32) -> tensor<64x128xf16> {
  %k = tile.paged_load %cache[%bt, %first, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
  return %k : tensor<64x128xf16>
}
