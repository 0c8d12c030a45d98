// RUN: quirec %s --sm 90 -o - | FileCheck %s

// Two rows of a page read in a loop: each address is the block-table
// entry's page offset (varying) plus a row and a head offset (fixed). CSE
// shares the page's pointer between the two rows, which keeps LLVM's LICM
// from hoisting the fixed offsets; the NVPTX backend gives each row its own
// copy of it first (UnshareGEPSources in EmitPTX.cpp), so an iteration adds
// one 64-bit offset to a hoisted row pointer instead of three.
// CHECK-LABEL: .entry rows_of_a_page(
// CHECK:       {{^}}$[[LOOP:L__BB0_[0-9]+]]:
// CHECK:       ld.global.b32
// CHECK:       mul.lo.s64 [[PAGE:%rd[0-9]+]], %rd{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK-NEXT:  shl.b64 [[BYTES:%rd[0-9]+]], [[PAGE]], 1;
// CHECK-NEXT:  add.s64 [[ROW:%rd[0-9]+]], %rd{{[0-9]+}}, [[BYTES]];
// CHECK-NOT:   add.s64
// CHECK:       ld.global.b16 %rs{{[0-9]+}}, [ [[ROW]] + 0 ];
// CHECK:       add.s64 %rd{{[0-9]+}}, [[ROW]], 256;
// CHECK:       bra {{.*}}$[[LOOP]];
func.func @rows_of_a_page(%cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %table: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                          %out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %pages: i32, %page_stride: i64, %head: i64) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %r = tile.range 0, 128 : tensor<128xi32>
  %off = tile.splat %c128 : i32 -> tensor<128xi32>
  %r2 = arith.addi %r, %off : tensor<128xi32>
  %ra = arith.extui %r : tensor<128xi32> to tensor<128xi64>
  %rb = arith.extui %r2 : tensor<128xi32> to tensor<128xi64>
  %hs = tile.splat %head : i64 -> tensor<128xi64>
  %cs = tile.splat %cache : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<128xf16>
  %sum = scf.for %i = %c0 to %pages step %c1 iter_args(%acc = %zero) -> (tensor<128xf16>) : i32 {
    %tp = tile.addptr %table, %i : !tile.ptr<i32>, i32
    %e = tile.load %tp : !tile.ptr<i32>
    %e64 = arith.extui %e : i32 to i64
    %page = arith.muli %e64, %page_stride : i64
    %ps = tile.splat %page : i64 -> tensor<128xi64>
    %oa = arith.addi %ps, %ra : tensor<128xi64>
    %oa2 = arith.addi %oa, %hs : tensor<128xi64>
    %ob = arith.addi %ps, %rb : tensor<128xi64>
    %ob2 = arith.addi %ob, %hs : tensor<128xi64>
    %pa = tile.addptr %cs, %oa2 : tensor<128x!tile.ptr<f16>>, tensor<128xi64>
    %pb = tile.addptr %cs, %ob2 : tensor<128x!tile.ptr<f16>>, tensor<128xi64>
    %a = tile.load %pa : tensor<128x!tile.ptr<f16>>
    %b = tile.load %pb : tensor<128x!tile.ptr<f16>>
    %ab = arith.addf %a, %b : tensor<128xf16>
    %next = arith.addf %acc, %ab : tensor<128xf16>
    scf.yield %next : tensor<128xf16>
  }
  %os = tile.splat %out : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  %op = tile.addptr %os, %r : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  tile.store %op, %sum : tensor<128x!tile.ptr<f16>>
  return
}
