// RUN: quire-opt %s --quire-lower-paged-loads=checked --canonicalize --cse | FileCheck %s
// RUN: quire-opt %s --quire-lower-paged-loads --canonicalize --cse | FileCheck %s --check-prefix=UNCHECKED
// Checked mode: a row's cache load is masked unless its token is below
// seq_len and its block-table entry lies in [0, num_blocks), and a
// tile.assert reports a bad entry at the first row of the tile in its page
// (t % 16 == 0 or t == first), with the entry, num_blocks, the page and the
// token, and the paged_load's location in the message. Without checked,
// num_blocks is ignored.

// CHECK-LABEL: func.func @spans
// CHECK-SAME: %[[FIRST:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[LEN:[^:]*]]: i32, %[[NB:[^:]*]]: i32)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant dense<true> : tensor<64xi1>
// CHECK-DAG: %[[C15:.*]] = arith.constant dense<15> : tensor<64xi32>
// CHECK-DAG: %[[C0:.*]] = arith.constant dense<0> : tensor<64xi32>
// CHECK:     %[[FS:.*]] = tile.splat %[[FIRST]] : i32 -> tensor<64xi32>
// CHECK:     %[[TOK:.*]] = arith.addi %[[FS]], %{{.*}} : tensor<64xi32>
// CHECK:     %[[PAGE:.*]] = arith.shrui %[[TOK]], %{{.*}} : tensor<64xi32>
// CHECK:     %[[LENS:.*]] = tile.splat %[[LEN]] : i32 -> tensor<64xi32>
// CHECK:     %[[ENTRY:.*]] = tile.load %{{.*}}, %{{.*}}, %[[C0]] : tensor<64x!tile.ptr<i32>>
// CHECK:     %[[SLOT:.*]] = arith.andi %[[TOK]], %[[C15]] : tensor<64xi32>
// CHECK:     %[[PTRS:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi64>
// CHECK:     %[[VALID:.*]] = arith.cmpi slt, %[[TOK]], %[[LENS]] : tensor<64xi32>
// CHECK:     %[[NBS:.*]] = tile.splat %[[NB]] : i32 -> tensor<64xi32>
// CHECK:     %[[BELOW:.*]] = arith.cmpi slt, %[[ENTRY]], %[[NBS]] : tensor<64xi32>
// CHECK:     %[[NONNEG:.*]] = arith.cmpi sge, %[[ENTRY]], %[[C0]] : tensor<64xi32>
// CHECK:     %[[INRANGE:.*]] = arith.andi %[[NONNEG]], %[[BELOW]] : tensor<64xi1>
// CHECK:     %[[ISFIRST:.*]] = arith.cmpi eq, %[[TOK]], %[[FS]] : tensor<64xi32>
// CHECK:     %[[PAGESTART:.*]] = arith.cmpi eq, %[[SLOT]], %[[C0]] : tensor<64xi32>
// CHECK:     %[[LEAD:.*]] = arith.ori %[[PAGESTART]], %[[ISFIRST]] : tensor<64xi1>
// CHECK:     %[[REPORT:.*]] = arith.andi %[[VALID]], %[[LEAD]] : tensor<64xi1>
// CHECK:     %[[SILENT:.*]] = arith.xori %[[REPORT]], %[[TRUE]] : tensor<64xi1>
// CHECK:     %[[OK:.*]] = arith.ori %[[SILENT]], %[[INRANGE]] : tensor<64xi1>
// CHECK:     tile.assert %[[OK]], "quire: block table entry %d out of range [0, %d) at page %d (token %d) of tile.paged_load at {{.*}}lower-paged-loads-checked-masks-and-reports-bad-entries.mlir:[[@LINE+17]]:8", %[[ENTRY]], %[[NBS]], %[[PAGE]], %[[TOK]] : tensor<64xi1>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>
// CHECK:     %[[ROWS:.*]] = arith.andi %[[VALID]], %[[INRANGE]] : tensor<64xi1>
// CHECK:     %[[M2:.*]] = tile.expand_dims %[[ROWS]] {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
// CHECK:     %[[MASK:.*]] = tile.broadcast %[[M2]] : tensor<64x1xi1> -> tensor<64x128xi1>
// CHECK:     %[[TILE:.*]] = tile.load %[[PTRS]], %[[MASK]], %{{.*}} : tensor<64x128x!tile.ptr<f16>>
// CHECK:     return %[[TILE]]

// UNCHECKED-LABEL: func.func @spans
// UNCHECKED-NOT:   tile.assert
// UNCHECKED:       %[[PTRS:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi64>
// UNCHECKED-NEXT:  %[[VALID:.*]] = arith.cmpi slt
// UNCHECKED-NEXT:  %[[M2:.*]] = tile.expand_dims %[[VALID]]
// UNCHECKED-NEXT:  %[[MASK:.*]] = tile.broadcast %[[M2]]
// UNCHECKED-NEXT:  tile.load %[[PTRS]], %[[MASK]], %{{.*}} : tensor<64x128x!tile.ptr<f16>>
// UNCHECKED-NOT:   tile.assert
func.func @spans(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %first: i32, %head: i32,
                 %ps: i64, %ts: i64, %hs: i64, %len: i32, %nb: i32) -> tensor<64x128xf16> {
  %k = tile.paged_load %cache[%bt, %first, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len num_blocks %nb : tensor<64x128xf16>
  return %k : tensor<64x128xf16>
}

// One page per tile: the prefetched scalar entry is checked where it is used,
// in the iteration that loads the tile; the report is a scalar assert at
// token t, page t / 64, used when t < seq_len.
// CHECK-LABEL: func.func @one_page
// CHECK-SAME: %[[LEN:[^:]*]]: i32, %[[NB:[^:]*]]: i32)
// CHECK:      scf.for %[[T:.*]] = %{{.*}} to %[[LEN]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ENTRY:.*]] = %{{.*}}) -> (tensor<16x64xf32>, i32)
// CHECK:        %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<16xi32>
// CHECK:        %[[BELOW:.*]] = arith.cmpi slt, %[[ENTRY]], %[[NB]] : i32
// CHECK:        %[[NONNEG:.*]] = arith.cmpi sge, %[[ENTRY]], %{{.*}} : i32
// CHECK:        %[[INRANGE:.*]] = arith.andi %[[NONNEG]], %[[BELOW]] : i1
// CHECK:        %[[PAGE:.*]] = arith.shrui %[[T]], %{{.*}} : i32
// CHECK:        %[[UNUSED:.*]] = arith.cmpi sge, %[[T]], %[[LEN]] : i32
// CHECK:        %[[OK:.*]] = arith.ori %[[UNUSED]], %[[INRANGE]] : i1
// CHECK:        tile.assert %[[OK]], "quire: block table entry %d out of range [0, %d) at page %d (token %d) of tile.paged_load at {{.*}}:[[@LINE+15]]:10", %[[ENTRY]], %[[NB]], %[[PAGE]], %[[T]] : i1, i32, i32, i32, i32
// CHECK:        %[[SPLAT:.*]] = tile.splat %[[INRANGE]] : i1 -> tensor<16xi1>
// CHECK:        %[[ROWS:.*]] = arith.andi %[[VALID]], %[[SPLAT]] : tensor<16xi1>
// CHECK:        tile.expand_dims %[[ROWS]]
// CHECK:        tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64x!tile.ptr<f16>>
// CHECK:        scf.yield

// UNCHECKED-LABEL: func.func @one_page
// UNCHECKED-NOT:   tile.assert
func.func @one_page(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %head: i32,
                    %ps: i64, %ts: i64, %hs: i64, %len: i32, %nb: i32) -> tensor<16x64xf32> {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %r = scf.for %t = %c0 to %len step %c16 iter_args(%acc = %zero) -> (tensor<16x64xf32>) : i32 {
    %k = tile.paged_load %cache[%bt, %t, %head] {page_size = 64 : i32}
           strides(%ps, %ts, %hs) bound %len num_blocks %nb : tensor<16x64xf16>
    %kf = arith.extf %k : tensor<16x64xf16> to tensor<16x64xf32>
    %s = arith.addf %acc, %kf : tensor<16x64xf32>
    scf.yield %s : tensor<16x64xf32>
  }
  return %r : tensor<16x64xf32>
}
