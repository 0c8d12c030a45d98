// `cols` on tile.paged_load: a 3-wide head padded to a 4-wide tile. The cache
// holds exactly one page of 8 tokens x 3 columns (24 floats, value = index),
// so reading column 3 of the last token would leave the buffer. With
// `cols = 3` the padded column reads 0 and is never accessed; without it the
// interpreter reports the out-of-bounds read.

// RUN: quire-run %s --kernel cols3 --arg values:f32:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23 \
// RUN:   --arg values:i32:0 --arg i32:8 --arg out:%t.npy:f32:8x4 --print | FileCheck %s
// RUN: not quire-run %s --kernel no_cols --arg values:f32:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23 \
// RUN:   --arg values:i32:0 --arg i32:8 --arg out:%t.npy:f32:8x4 2>&1 | FileCheck %s --check-prefix=OOB

// CHECK:      arg #3 (out, f32, 8x4):
// CHECK-NEXT: 0 1 2 0
// CHECK-NEXT: 3 4 5 0
// CHECK:      21 22 23 0
// CHECK-NOT:  {{.}}

// OOB: error: 'tile.paged_load' op out-of-bounds access: row 7 (token 7) (block 0) column 3 reads 4 bytes

func.func @cols3(%cache: !tile.ptr<f32>, %table: !tile.ptr<i32>, %len: i32,
                 %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %ps = arith.constant 24 : i64
  %ts = arith.constant 3 : i64
  %hs = arith.constant 0 : i64
  %t = tile.paged_load %cache[%table, %c0, %c0] {cols = 3 : i32, page_size = 8 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<8x4xf32>
  %r = tile.range 0, 8 : tensor<8xi32>
  %c4 = arith.constant dense<4> : tensor<8xi32>
  %ro = arith.muli %r, %c4 : tensor<8xi32>
  %ro2 = tile.expand_dims %ro {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %rob = tile.broadcast %ro2 : tensor<8x1xi32> -> tensor<8x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c2 : tensor<1x4xi32> -> tensor<8x4xi32>
  %offs = arith.addi %rob, %cb : tensor<8x4xi32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<8x4x!tile.ptr<f32>>
  %ptrs = tile.addptr %outs, %offs : tensor<8x4x!tile.ptr<f32>>, tensor<8x4xi32>
  tile.store %ptrs, %t : tensor<8x4x!tile.ptr<f32>>
  return
}

func.func @no_cols(%cache: !tile.ptr<f32>, %table: !tile.ptr<i32>, %len: i32,
                   %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %ps = arith.constant 24 : i64
  %ts = arith.constant 3 : i64
  %hs = arith.constant 0 : i64
  %t = tile.paged_load %cache[%table, %c0, %c0] {page_size = 8 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<8x4xf32>
  %r = tile.range 0, 8 : tensor<8xi32>
  %c4 = arith.constant dense<4> : tensor<8xi32>
  %ro = arith.muli %r, %c4 : tensor<8xi32>
  %ro2 = tile.expand_dims %ro {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %rob = tile.broadcast %ro2 : tensor<8x1xi32> -> tensor<8x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c2 : tensor<1x4xi32> -> tensor<8x4xi32>
  %offs = arith.addi %rob, %cb : tensor<8x4xi32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<8x4x!tile.ptr<f32>>
  %ptrs = tile.addptr %outs, %offs : tensor<8x4x!tile.ptr<f32>>, tensor<8x4xi32>
  tile.store %ptrs, %t : tensor<8x4x!tile.ptr<f32>>
  return
}
