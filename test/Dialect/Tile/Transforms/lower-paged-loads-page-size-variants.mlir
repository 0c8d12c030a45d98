// RUN: quire-opt %s --quire-lower-paged-loads --canonicalize --cse | FileCheck %s
// RUN: quire-opt %s --quire-lower-paged-loads=shifts=false --canonicalize --cse | FileCheck %s --check-prefix=DIV
// Page size 1 (every row its own page), a non-power-of-two page (24: udiv /
// urem), and a 128-token page; with shifts=false powers of two divide too.

// CHECK-LABEL: func.func @page1
// The page of token t is t itself; its slot is always 0.
// CHECK: %[[TOK:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<32xi32>
// CHECK: tile.addptr %{{.*}}, %[[TOK]] : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
// CHECK-NOT: arith.andi
// CHECK: tile.load {{.*}} : tensor<32x64x!tile.ptr<f16>>
func.func @page1(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32,
                 %ps: i64, %ts: i64, %hs: i64, %n: i32) -> tensor<32x64xf16> {
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 1 : i32} strides(%ps, %ts, %hs) bound %n : tensor<32x64xf16>
  return %k : tensor<32x64xf16>
}

// CHECK-LABEL: func.func @page24
// CHECK-DAG: %[[C24:.*]] = arith.constant dense<24> : tensor<32xi32>
// CHECK:     arith.divui %{{.*}}, %[[C24]] : tensor<32xi32>
// CHECK:     arith.remui %{{.*}}, %[[C24]] : tensor<32xi32>
func.func @page24(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32,
                  %ps: i64, %ts: i64, %hs: i64, %n: i32) -> tensor<32x64xf16> {
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 24 : i32} strides(%ps, %ts, %hs) bound %n : tensor<32x64xf16>
  return %k : tensor<32x64xf16>
}

// CHECK-LABEL: func.func @page128
// CHECK: arith.shrui %{{.*}}, %{{.*}} : tensor<32xi32>
// CHECK: arith.andi %{{.*}}, %{{.*}} : tensor<32xi32>
// DIV-LABEL: func.func @page128
// DIV: arith.divui
// DIV: arith.remui
func.func @page128(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32,
                   %ps: i64, %ts: i64, %hs: i64, %n: i32) -> tensor<32x64xf16> {
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 128 : i32} strides(%ps, %ts, %hs) bound %n : tensor<32x64xf16>
  return %k : tensor<32x64xf16>
}
