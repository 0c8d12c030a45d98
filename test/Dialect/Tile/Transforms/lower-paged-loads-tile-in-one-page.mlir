// RUN: quire-opt %s --quire-lower-paged-loads --canonicalize --cse | FileCheck %s
// RUN: quire-opt %s --quire-lower-paged-loads=single-page=false --canonicalize --cse | FileCheck %s --check-prefix=OFF
// A 16-token tile whose first token is a multiple of 16 (a loop stepping by
// 16 from 0) lies in one 64-token page: one scalar block-table load per tile,
// row offsets base + r * token_stride.

// CHECK-LABEL: func.func @one_page
// CHECK:      scf.for %[[IV:.*]] = %{{.*}} to %[[LEN:.*]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ENTRY:.*]] = %{{.*}}) -> (tensor<16x64xf32>, i32)
// CHECK-NOT:    tensor<16x!tile.ptr<i32>>
// CHECK:        arith.extui %[[ENTRY]] : i32 to i64
// CHECK:        tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64x!tile.ptr<f16>>
// The next iteration's entry: one scalar load, masked by next < seq_len
// where that iteration runs (iv < len - 16, not next < len: past the last
// iteration next may wrap to a negative token), by next < INT32_MIN (never)
// where not.
// CHECK:        %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}} : i32
// CHECK:        %[[LIM:.*]] = arith.subi %[[LEN]], %c16_i32 : i32
// CHECK:        %[[OK:.*]] = arith.cmpi slt, %[[LIM]], %[[LEN]] : i32
// CHECK:        %[[BELOW:.*]] = arith.cmpi slt, %[[IV]], %[[LIM]] : i32
// CHECK:        %[[RUNS:.*]] = arith.andi %[[BELOW]], %[[OK]] : i1
// CHECK:        %[[BOUND:.*]] = arith.select %[[RUNS]], %[[LEN]], %c-2147483648_i32 : i32
// CHECK:        %[[PAGE:.*]] = arith.shrui %[[NEXT]], %{{.*}} : i32
// CHECK:        %[[P:.*]] = tile.addptr %{{.*}}, %[[PAGE]] : !tile.ptr<i32>, i32
// CHECK:        %[[V:.*]] = arith.cmpi slt, %[[NEXT]], %[[BOUND]] : i32
// CHECK:        %[[E:.*]] = tile.load %[[P]], %[[V]], %{{.*}} : !tile.ptr<i32>
// CHECK:        scf.yield %{{.*}}, %[[E]] : tensor<16x64xf32>, i32

// OFF-LABEL: func.func @one_page
// OFF: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x!tile.ptr<i32>>
// OFF-NOT: : !tile.ptr<i32>{{$}}
func.func @one_page(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %head: i32,
                    %ps: i64, %ts: i64, %hs: i64, %len: i32) -> tensor<16x64xf32> {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %r = scf.for %t = %c0 to %len step %c16 iter_args(%acc = %zero) -> (tensor<16x64xf32>) : i32 {
    %k = tile.paged_load %cache[%bt, %t, %head] {page_size = 64 : i32}
           strides(%ps, %ts, %hs) bound %len : tensor<16x64xf16>
    %kf = arith.extf %k : tensor<16x64xf16> to tensor<16x64xf32>
    %s = arith.addf %acc, %kf : tensor<16x64xf32>
    scf.yield %s : tensor<16x64xf32>
  }
  return %r : tensor<16x64xf32>
}
