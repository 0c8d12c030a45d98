// RUN: quire-opt %s --quire-lower-paged-loads --canonicalize --cse | FileCheck %s
// RUN: quire-opt %s --quire-lower-paged-loads=prefetch=false --canonicalize --cse | FileCheck %s --check-prefix=NOPF
// In a loop over token tiles, the block-table entries of iteration i+1 are
// loaded in iteration i and carried; the K and V loads share them. The
// entries of the first iteration are loaded before the loop.

// CHECK-LABEL: func.func @decode_loop
// CHECK:     %[[INIT:.*]] = tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<i32>>
// CHECK:     scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %[[STEP:.*]] iter_args(%{{.*}} = %{{.*}}, %[[CUR:.*]] = %[[INIT]]) -> (tensor<64x128xf32>, tensor<64xi32>)
// CHECK:       arith.extui %[[CUR]] : tensor<64xi32> to tensor<64xi64>
// CHECK:       tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x128x!tile.ptr<f16>>
// CHECK:       tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x128x!tile.ptr<f16>>
// CHECK:       %[[NEXT:.*]] = arith.addi %[[IV]], %[[STEP]] : i32
// CHECK:       %[[NS:.*]] = tile.splat %[[NEXT]] : i32 -> tensor<64xi32>
// CHECK:       %[[NE:.*]] = tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<i32>>
// CHECK:       scf.yield %{{.*}}, %[[NE]] : tensor<64x128xf32>, tensor<64xi32>
// CHECK-NOT: tile.paged_load

// Without prefetch, each iteration loads its own entries, once for K and V.
// NOPF-LABEL: func.func @decode_loop
// NOPF:     scf.for {{.*}} -> (tensor<64x128xf32>) : i32
// NOPF:     tile.load {{.*}} : tensor<64x!tile.ptr<i32>>
// NOPF-NOT: tile.load {{.*}} : tensor<64x!tile.ptr<i32>>
// NOPF:     scf.yield
func.func @decode_loop(%k_cache: !tile.ptr<f16>, %v_cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>,
                       %head: i32, %ps: i64, %ts: i64, %hs: i64, %len: i32) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %t = %c0 to %len step %c64 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %k = tile.paged_load %k_cache[%bt, %t, %head] {page_size = 16 : i32}
           strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
    %v = tile.paged_load %v_cache[%bt, %t, %head] {page_size = 16 : i32}
           strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
    %kv = arith.mulf %k, %v : tensor<64x128xf16>
    %kvf = arith.extf %kv : tensor<64x128xf16> to tensor<64x128xf32>
    %s = arith.addf %acc, %kvf : tensor<64x128xf32>
    scf.yield %s : tensor<64x128xf32>
  }
  return %r : tensor<64x128xf32>
}
