// Paged K/V tiles through tensor maps of the caches (tile.paged_load with
// `tensormap`): quire-lower-paged-loads marks a tile whose first token is
// a multiple of the box (min(page_size, BLOCK_N) tokens) as
// tile.tensormap_pages, around the pointers cp.async would copy
// (lower-paged-loads-tensormap.mlir: where it does not).
// RUN: quire-opt %s --quire-lower-paged-loads | FileCheck %s --check-prefix=MARK
// quire-warp-specialize then gives every copy of the loop to the producer
// warpgroup as tile.tma_copy_pages (one thread, no cp.async): the full
// mbarriers take one arrival (its expect_tx), only the issuing thread
// waits to refill, the producer keeps 24 registers and the consumers take
// 240; after each wait the consumers clear the tile's rows past its bound
// where the tile reaches past it.
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 producer-warpgroup=true" | FileCheck %s
// Without producer warps the pages are copied with cp.async.
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8" | FileCheck %s --check-prefix=NOWS
// The PTX has, per fill of K and V,, 8 pages x 2 columns of 4-D tensor
// copies; each page's entry loaded by the issuing thread where the page
// starts below the bound; the clears' shared stores; ptxas assembles it.
// RUN: quirec %s --sm 90 --num-warps 8 --producer-warpgroup -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: grep -c "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes" %t.ptx | FileCheck %s --check-prefix=COUNT
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}

// MARK-LABEL: func.func @pages
// MARK:         scf.for %[[I:[^ ]+]] =
// MARK:           tile.tensormap_pages %{{.*}}, %arg9[%arg4, %[[I]], %c0_i32] bound %arg5 {page_size = 16 : i32}
// MARK:           tile.tensormap_pages %{{.*}}, %arg10[%arg4, %[[I]], %c0_i32] bound %arg5 {page_size = 16 : i32}

// CHECK-LABEL: func.func @pages
// CHECK-SAME:    tile.producer_warps = 4 : i32
// CHECK:         tile.tma_init {buffer = 0 : i32, release, stages = 2 : i32}
// CHECK-NEXT:    tile.tma_init {buffer = 1 : i32, release, stages = 2 : i32}
// CHECK:         scf.if
// CHECK-NEXT:      tile.setmaxnreg dec {count = 24 : i32}
// CHECK:           tile.tma_copy_pages %arg9[%arg4, %c0_i32, %c0_i32] bound %arg5 into stage %c0_i32 if %true {block = tensor<128x128xf16>, buffer = 0 : i32, contig = 0 : i32, page_size = 16 : i32, producer, stages = 2 : i32, transposed}
// CHECK:           tile.tma_copy_pages %arg10[%arg4, %c0_i32, %c0_i32] bound %arg5 into stage %c0_i32 if %true {block = tensor<128x128xf16>, buffer = 1 : i32, contig = 1 : i32, page_size = 16 : i32, producer, stages = 2 : i32}
// CHECK:           scf.for
// CHECK:             tile.tma_acquire stage %[[P:.*]] phase %[[F:.*]] {buffer = 0 : i32, producer, stages = 2 : i32}
// CHECK-NEXT:        tile.tma_copy_pages %arg9
// CHECK-NEXT:        tile.tma_acquire stage %[[P]] phase %[[F]] {buffer = 1 : i32, producer, stages = 2 : i32}
// CHECK-NEXT:        tile.tma_copy_pages %arg10
// CHECK:         } else {
// CHECK-NEXT:      tile.setmaxnreg inc {count = 240 : i32}
// CHECK:           scf.for
// CHECK:             tile.tma_wait stage %[[S:.*]] phase %{{.*}} {async_proxy, buffer = 0 : i32, stages = 2 : i32}
// CHECK-NEXT:        %[[FROM:.*]] = arith.subi %arg5, %{{.*}} : i32
// CHECK-NEXT:        %[[SOME:.*]] = arith.cmpi slt, %[[FROM]], %c128_i32 : i32
// CHECK-NEXT:        scf.if %[[SOME]] {
// CHECK-NEXT:          tile.tma_zero_rows stage %[[S]] from %[[FROM]] {block = tensor<128x128xf16>, buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32, transposed}
// CHECK:             tile.warpgroup_dot
// CHECK:             tile.tma_wait stage %[[S]] phase %{{.*}} {async_proxy, buffer = 1 : i32, stages = 2 : i32}
// CHECK:               tile.tma_zero_rows stage %[[S]] from %[[FROM]] {block = tensor<128x128xf16>, buffer = 1 : i32, contig = 1 : i32, stages = 2 : i32}
// CHECK-NOT:     tile.async_copy

// NOWS-LABEL: func.func @pages
// NOWS-NOT:     tile.tma_copy_pages
// NOWS:         tile.async_copy

// PTX-LABEL: .entry pages
// PTX-DAG:   @%p{{[0-9]+}} ld.global.b32
// PTX-DAG:   st.shared.v4.b32
// PTX-DAG:   setmaxnreg.dec.sync.aligned.u32 24;
// COUNT: 64

// PTXAS-NOT: error
module {
  func.func @pages(%out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                   %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                   %kc: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                   %vc: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                   %bt: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                   %len: i32,
                   %ps: i64 {tile.divisibility = 16 : i32},
                   %ts: i64 {tile.divisibility = 16 : i32},
                   %hs: i64 {tile.divisibility = 16 : i32},
                   %tmk: !tile.tensormap, %tmv: !tile.tensormap) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %r = tile.range 0, 128 : tensor<128xi32>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %cst128 = arith.constant dense<128> : tensor<128x1xi32>
    %rs = arith.muli %r1, %cst128 : tensor<128x1xi32>
    %c1 = tile.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %a = tile.broadcast %rs : tensor<128x1xi32> -> tensor<128x128xi32>
    %b = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<128x128xi32>
    %offs = arith.addi %a, %b : tensor<128x128xi32>
    %qp = tile.splat %q : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>>
    %qa = tile.addptr %qp, %offs : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
    %qv = tile.load %qa : tensor<128x128x!tile.ptr<f16>>
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %acc = scf.for %i = %c0 to %len step %c128 iter_args(%o = %zero) -> (tensor<128x128xf32>) : i32 {
      %k = tile.paged_load %kc[%bt, %i, %c0] {page_size = 16 : i32} strides(%ps, %ts, %hs) bound %len tensormap %tmk : tensor<128x128xf16>
      %kt = tile.trans %k : tensor<128x128xf16> -> tensor<128x128xf16>
      %s = tile.dot %qv, %kt, %zero : tensor<128x128xf16> * tensor<128x128xf16> -> tensor<128x128xf32>
      %p = arith.truncf %s : tensor<128x128xf32> to tensor<128x128xf16>
      %v = tile.paged_load %vc[%bt, %i, %c0] {page_size = 16 : i32} strides(%ps, %ts, %hs) bound %len tensormap %tmv : tensor<128x128xf16>
      %n = tile.dot %p, %v, %o : tensor<128x128xf16> * tensor<128x128xf16> -> tensor<128x128xf32>
      scf.yield %n : tensor<128x128xf32>
    }
    %op = tile.splat %out : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>>
    %oa = tile.addptr %op, %offs : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
    %res = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %oa, %res : tensor<128x128x!tile.ptr<f16>>
    return
  }
}
