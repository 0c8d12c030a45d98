// RUN: quire-opt %s --quire-lower-paged-loads --canonicalize --cse | FileCheck %s
// RUN: sed '/^func.func @full_width/,$d' %s | quirec - --sm 90 | FileCheck %s --check-prefix=PTX
// A head dimension of 80 padded to a 128-wide tile: `cols = 80` adds
// `range(128) < 80` to the row mask, so columns 80..127 read zero and issue
// no access. 80 is a multiple of 8, so the mask is uniform over each group
// of 8 f16 (16 bytes) and the row still loads as 16-byte vectors.

// CHECK-LABEL: func.func @head_dim_80
// CHECK-DAG:  %[[C80:.*]] = arith.constant dense<80> : tensor<128xi64>
// CHECK-DAG:  %[[COLS:.*]] = arith.extui %{{.*}} : tensor<128xi32> to tensor<128xi64>
// CHECK:      %[[IN:.*]] = arith.cmpi slt, %[[COLS]], %[[C80]] : tensor<128xi64>
// CHECK:      %[[IN2:.*]] = tile.expand_dims %[[IN]] {axis = 0 : i32} : tensor<128xi1> -> tensor<1x128xi1>
// CHECK:      %[[INB:.*]] = tile.broadcast %[[IN2]] : tensor<1x128xi1> -> tensor<32x128xi1>
// CHECK:      %[[MASK:.*]] = arith.andi %{{.*}}, %[[INB]] : tensor<32x128xi1>
// CHECK:      tile.load %{{.*}}, %[[MASK]], %{{.*}} : tensor<32x128x!tile.ptr<f16>>

// PTX-LABEL: .entry head_dim_80
// PTX: ld.global.v4.b32

// Without `cols` no column mask is built.
// CHECK-LABEL: func.func @full_width
// CHECK-NOT:  dense<128> : tensor<128xi64>
// CHECK-NOT:  tensor<1x128xi1>
// CHECK:      tile.load
func.func @head_dim_80(%cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %bt: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                       %first: i32 {tile.divisibility = 32 : i32}, %head: i32,
                       %ps: i64 {tile.divisibility = 16 : i32},
                       %ts: i64 {tile.divisibility = 16 : i32},
                       %hs: i64 {tile.divisibility = 16 : i32}, %len: i32,
                       %out: !tile.ptr<f16> {tile.divisibility = 16 : i32})
    attributes {tile.kernel} {
  %k = tile.paged_load %cache[%bt, %first, %head] {cols = 80 : i32, page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<32x128xf16>
  %r = tile.range 0, 32 : tensor<32xi32>
  %c128 = arith.constant dense<128> : tensor<32xi32>
  %ro = arith.muli %r, %c128 : tensor<32xi32>
  %ro2 = tile.expand_dims %ro {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rob = tile.broadcast %ro2 : tensor<32x1xi32> -> tensor<32x128xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<32x128xi32>
  %offs = arith.addi %rob, %cb : tensor<32x128xi32>
  %outs = tile.splat %out : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>>
  %ptrs = tile.addptr %outs, %offs : tensor<32x128x!tile.ptr<f16>>, tensor<32x128xi32>
  tile.store %ptrs, %k : tensor<32x128x!tile.ptr<f16>>
  return
}

func.func @full_width(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %first: i32,
                      %head: i32, %ps: i64, %ts: i64, %hs: i64, %len: i32) -> tensor<32x128xf16> {
  %k = tile.paged_load %cache[%bt, %first, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<32x128xf16>
  return %k : tensor<32x128xf16>
}
