// RUN: quire-opt %s | quire-opt | FileCheck %s
// RUN: quire-opt %s --mlir-print-op-generic | quire-opt | FileCheck %s
// Round trip of every tile op, in custom and generic form.

// CHECK-LABEL: func.func @grid
// CHECK-SAME: attributes {tile.kernel}
func.func @grid() attributes {tile.kernel} {
  // CHECK: tile.program_id x
  %0 = tile.program_id x
  // CHECK: tile.program_id z
  %1 = tile.program_id z
  // CHECK: tile.num_programs y
  %2 = tile.num_programs y
  return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: f32, %p: !tile.ptr<f16>) {
  // CHECK: tile.range 0, 64 : tensor<64xi32>
  %r = tile.range 0, 64 : tensor<64xi32>
  // CHECK: tile.range 16, 32 : tensor<16xi32>
  %r2 = tile.range 16, 32 : tensor<16xi32>
  // CHECK: tile.splat %{{.*}} : f32 -> tensor<64xf32>
  %s = tile.splat %x : f32 -> tensor<64xf32>
  // CHECK: tile.splat %{{.*}} : !tile.ptr<f16> -> tensor<8x8x!tile.ptr<f16>>
  %sp = tile.splat %p : !tile.ptr<f16> -> tensor<8x8x!tile.ptr<f16>>
  // CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  %e = tile.expand_dims %s {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  // CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %e1 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  // CHECK: tile.broadcast %{{.*}} : tensor<1x64xf32> -> tensor<32x64xf32>
  %b = tile.broadcast %e : tensor<1x64xf32> -> tensor<32x64xf32>
  // CHECK: tile.trans %{{.*}} : tensor<32x64xf32> -> tensor<64x32xf32>
  %t = tile.trans %b : tensor<32x64xf32> -> tensor<64x32xf32>
  // CHECK: tile.trans %{{.*}} {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %c3 = arith.constant dense<1.0> : tensor<2x4x8xf32>
  %t3 = tile.trans %c3 {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  return
}

// CHECK-LABEL: func.func @memory
func.func @memory(%p: !tile.ptr<f32>, %bt: !tile.ptr<i32>, %n: i32, %n64: i64) {
  %r = tile.range 0, 64 : tensor<64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %a = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<f32>, i64
  %a1 = tile.addptr %p, %n64 : !tile.ptr<f32>, i64
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %z = arith.constant dense<0.0> : tensor<64xf32>
  // CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<f32>>
  %l0 = tile.load %a : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  %l1 = tile.load %a, %m : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  %l2 = tile.load %a, %m, %z : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}} : !tile.ptr<i32>
  %s = tile.load %bt : !tile.ptr<i32>
  // CHECK: tile.store %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  tile.store %a, %l2 : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  tile.store %a, %l2, %m : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.store %{{.*}}, %{{.*}} : !tile.ptr<f32>
  %f = arith.constant 1.0 : f32
  tile.store %a1, %f : !tile.ptr<f32>
  return
}

// CHECK-LABEL: func.func @compute
func.func @compute(%a: tensor<64x32xf16>, %b: tensor<32x16xbf16>, %bb: tensor<32x16xf16>,
                   %x: tensor<16x64xf32>, %i: tensor<128xi32>) {
  %c = arith.constant dense<0.0> : tensor<64x16xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x16xf32>
  %d = tile.dot %a, %bb, %c : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x16xf32>
  // CHECK: tile.reduce sum %{{.*}} {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  %s = tile.reduce sum %x {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  // CHECK: tile.reduce max %{{.*}} {axis = 0 : i32} : tensor<16x64xf32> -> tensor<64xf32>
  %m = tile.reduce max %x {axis = 0 : i32} : tensor<16x64xf32> -> tensor<64xf32>
  // CHECK: tile.reduce min %{{.*}} {axis = 0 : i32} : tensor<128xi32> -> i32
  %n = tile.reduce min %i {axis = 0 : i32} : tensor<128xi32> -> i32
  // CHECK: tile.reduce xor %{{.*}} {axis = 0 : i32} : tensor<128xi32> -> i32
  %xr = tile.reduce xor %i {axis = 0 : i32} : tensor<128xi32> -> i32
  // CHECK: tile.warp_any %{{.*}} : tensor<16xi1>
  %ne = arith.cmpf une, %s, %s : tensor<16xf32>
  %any = tile.warp_any %ne : tensor<16xi1>
  return
}

// CHECK-LABEL: func.func @paged
func.func @paged(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %tok: i32, %head: i32,
                 %ps: i64, %ts: i64, %hs: i64, %len: i32) {
  // CHECK: tile.paged_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {page_size = 16 : i32} strides(%{{.*}}, %{{.*}}, %{{.*}}) bound %{{.*}} : tensor<64x128xf16>
  %k = tile.paged_load %cache[%bt, %tok, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
  // CHECK: tile.paged_load {{.*}} {page_size = 24 : i32} {{.*}} : tensor<8x64xf16>
  %k2 = tile.paged_load %cache[%bt, %tok, %head] {page_size = 24 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<8x64xf16>
  return
}

// CHECK-LABEL: func.func @paged_num_blocks
// CHECK-SAME: %[[LEN:[^:]*]]: i32, %[[NB:[^:]*]]: i32)
func.func @paged_num_blocks(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %tok: i32, %head: i32,
                            %ps: i64, %ts: i64, %hs: i64, %len: i32, %nb: i32) {
  // CHECK: tile.paged_load {{.*}} strides(%{{.*}}, %{{.*}}, %{{.*}}) bound %[[LEN]] num_blocks %[[NB]] : tensor<64x128xf16>
  %k = tile.paged_load %cache[%bt, %tok, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len num_blocks %nb : tensor<64x128xf16>
  // Without it the operand is absent, not defaulted.
  // CHECK: tile.paged_load {{.*}} bound %[[LEN]] : tensor<16x64xf16>
  %k2 = tile.paged_load %cache[%bt, %tok, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<16x64xf16>
  return
}

// CHECK-LABEL: func.func @barrier
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    return
func.func @barrier() attributes {tile.kernel} {
  tile.barrier
  return
}

// CHECK-LABEL: func.func @setmaxnreg
// CHECK-NEXT:    tile.setmaxnreg dec {count = 24 : i32}
// CHECK-NEXT:    tile.setmaxnreg inc {count = 256 : i32}
func.func @setmaxnreg() attributes {tile.kernel} {
  tile.setmaxnreg dec {count = 24 : i32}
  tile.setmaxnreg inc {count = 256 : i32}
  return
}

// CHECK-LABEL: func.func @warpgroup_id
// CHECK-NEXT:    %[[WG:.*]] = tile.warpgroup_id
// CHECK-NEXT:    scf.for {{.*}} {
// CHECK-NEXT:    } {tile.pingpong}
func.func @warpgroup_id(%n: i32) attributes {tile.kernel} {
  %wg = tile.warpgroup_id
  scf.for %i = %wg to %n step %n : i32 {
  } {tile.pingpong}
  return
}

// CHECK-LABEL: func.func @print
func.func @print(%x: tensor<64xf32>, %i: tensor<4x8xi32>, %n: i64, %h: f16) {
  // CHECK: tile.print "x", %{{.*}} : tensor<64xf32>
  tile.print "x", %x : tensor<64xf32>
  // CHECK: tile.print "bits" hex, %{{.*}}, %{{.*}} : tensor<4x8xi32>, i64
  tile.print "bits" hex, %i, %n : tensor<4x8xi32>, i64
  // CHECK: tile.print "half", %{{.*}} : f16
  tile.print "half", %h : f16
  // CHECK: tile.print "here"
  tile.print "here"
  return
}

// CHECK-LABEL: func.func @assert
func.func @assert(%ok: tensor<64xi1>, %x: tensor<64xi32>, %y: tensor<64xi32>, %b: i1, %n: i32) {
  // CHECK: tile.assert %{{.*}}, "entry %d at token %d (100%%)", %{{.*}}, %{{.*}} : tensor<64xi1>, tensor<64xi32>, tensor<64xi32>
  tile.assert %ok, "entry %d at token %d (100%%)", %x, %y : tensor<64xi1>, tensor<64xi32>, tensor<64xi32>
  // CHECK: tile.assert %{{.*}}, "scalar %d", %{{.*}} : i1, i32
  tile.assert %b, "scalar %d", %n : i1, i32
  // CHECK: tile.assert %{{.*}}, "no arguments" : tensor<64xi1>
  tile.assert %ok, "no arguments" : tensor<64xi1>
  return
}

// CHECK-LABEL: func.func @tensor_arith
// A tile program's arith, math and scf operate on tile tensors.
func.func @tensor_arith(%x: tensor<64xf32>, %n: i32) -> tensor<64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<64xf32>) : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64xf32>) : i32 {
    // CHECK: math.exp {{.*}} : tensor<64xf32>
    %e = math.exp %acc : tensor<64xf32>
    %s = arith.addf %e, %x : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// CHECK-LABEL: func.func @divisibility
// CHECK-SAME: tile.divisibility = 16
func.func @divisibility(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 8 : i64}) attributes {tile.kernel} {
  return
}

// The async staging ops round-trip (they are made by quire-async-copies).
// CHECK-LABEL: func.func @async_staging
// CHECK: tile.async_copy %{{.*}} mask %{{.*}} into stage %{{.*}} {buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32, transposed} : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi1>
// CHECK: tile.async_wait {pending = 0 : i32}
// CHECK: tile.async_local_load %{{.*}} {buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32} : tensor<64x16xf16>
// CHECK: tile.local_store %{{.*}} into stage %{{.*}} {buffer = 1 : i32, contig = 1 : i32, nvmma, stages = 1 : i32, transposed} : tensor<64x16xf16>
func.func @async_staging(%p: tensor<16x64x!tile.ptr<f16>>, %m: tensor<16x64xi1>, %s: i32) -> tensor<64x16xf16> {
  tile.async_copy %p mask %m into stage %s {buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32, transposed} : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi1>
  tile.async_wait {pending = 0 : i32}
  %x = tile.async_local_load %s {buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32} : tensor<64x16xf16>
  tile.local_store %x into stage %s {buffer = 1 : i32, contig = 1 : i32, stages = 1 : i32, transposed, nvmma} : tensor<64x16xf16>
  return %x : tensor<64x16xf16>
}

// CHECK-LABEL: func.func @tma_staging
// CHECK-SAME: %{{.*}}: !tile.tensormap
// CHECK: tile.make_descriptor {{.*}} tensormap %{{.*}} : {{.*}}tensor<64x32xf16>
// CHECK: tile.tensormap_block %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x32x!tile.ptr<f16>>
// CHECK: tile.tma_init {buffer = 0 : i32, stages = 2 : i32}
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}] into stage %{{.*}} if %{{.*}} {block = tensor<64x32xf16>, buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32, transposed}
// CHECK: tile.tma_wait stage %{{.*}} phase %{{.*}} {buffer = 0 : i32, stages = 2 : i32}
// CHECK: tile.tma_release stage %{{.*}} if %{{.*}} {buffer = 0 : i32, stages = 2 : i32}
// CHECK: tile.tma_acquire stage %{{.*}} phase %{{.*}} {buffer = 0 : i32, stages = 2 : i32}
// CHECK: tile.tma_inval {buffer = 0 : i32, release, stages = 2 : i32}
// CHECK: tile.tma_init {arrivals = 256 : i32, buffer = 1 : i32, release, split, stages = 2 : i32}
// CHECK: tile.async_arrive stage %{{.*}} {buffer = 1 : i32, stages = 2 : i32}
// CHECK: tile.tma_wait stage %{{.*}} phase %{{.*}} {async_proxy, buffer = 1 : i32, stages = 2 : i32}
// CHECK: tile.tma_acquire stage %{{.*}} phase %{{.*}} {buffer = 1 : i32, every_thread, producer, stages = 2 : i32}
// CHECK: tile.tma_inval {buffer = 1 : i32, split, stages = 2 : i32}
func.func @tma_staging(%b: !tile.ptr<f16>, %n: i32, %st: i64, %tm: !tile.tensormap,
                       %p: tensor<64x32x!tile.ptr<f16>>, %o: i32, %s: i32, %in: i1) {
  %d = tile.make_descriptor %b, shape [%n, %n], strides [%st, %st], tensormap %tm : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  %q = tile.tensormap_block %p, %tm[%o, %o] : tensor<64x32x!tile.ptr<f16>>
  tile.tma_init {buffer = 0 : i32, stages = 2 : i32}
  tile.tma_copy %tm[%o, %o] into stage %s if %in {block = tensor<64x32xf16>, buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32, transposed}
  tile.tma_wait stage %s phase %o {buffer = 0 : i32, stages = 2 : i32}
  tile.tma_release stage %s if %in {buffer = 0 : i32, stages = 2 : i32}
  tile.tma_acquire stage %s phase %o {buffer = 0 : i32, stages = 2 : i32}
  tile.tma_inval {buffer = 0 : i32, stages = 2 : i32, release}
  tile.tma_init {arrivals = 256 : i32, buffer = 1 : i32, stages = 2 : i32, release, split}
  tile.async_arrive stage %s {buffer = 1 : i32, stages = 2 : i32}
  tile.tma_wait stage %s phase %o {buffer = 1 : i32, stages = 2 : i32, async_proxy}
  tile.tma_acquire stage %s phase %o {buffer = 1 : i32, stages = 2 : i32, producer, every_thread}
  tile.tma_inval {buffer = 1 : i32, stages = 2 : i32, split}
  return
}

// CHECK-LABEL: func.func @tma_pages
// CHECK: tile.paged_load {{.*}} bound %{{.*}} tensormap %{{.*}} : tensor<128x64xf16>
// CHECK: tile.tensormap_pages %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] bound %{{.*}} {page_size = 16 : i32} : tensor<128x64x!tile.ptr<f16>>
// CHECK: tile.tma_copy_pages %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] bound %{{.*}} into stage %{{.*}} if %{{.*}} {block = tensor<128x64xf16>, buffer = 0 : i32, contig = 1 : i32, page_size = 16 : i32, producer, stages = 2 : i32}
// CHECK: tile.tma_zero_rows stage %{{.*}} from %{{.*}} {block = tensor<128x64xf16>, buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
func.func @tma_pages(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %s: i64,
                     %tm: !tile.tensormap, %p: tensor<128x64x!tile.ptr<f16>>, %in: i1) -> tensor<128x64xf16> {
  %k = tile.paged_load %cache[%bt, %t, %t] {page_size = 16 : i32}
         strides(%s, %s, %s) bound %t tensormap %tm : tensor<128x64xf16>
  %q = tile.tensormap_pages %p, %tm[%bt, %t, %t] bound %t {page_size = 16 : i32} : tensor<128x64x!tile.ptr<f16>>
  tile.tma_copy_pages %tm[%bt, %t, %t] bound %t into stage %t if %in {block = tensor<128x64xf16>, buffer = 0 : i32, contig = 1 : i32, page_size = 16 : i32, stages = 2 : i32, producer}
  tile.tma_zero_rows stage %t from %t {block = tensor<128x64xf16>, buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
  return %k : tensor<128x64xf16>
}

// CHECK-LABEL: func.func @atomics
func.func @atomics(%p: !tile.ptr<i32>, %ps: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>, %m: tensor<64xi1>) -> (i32, tensor<64xf32>, i32) {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  // CHECK: tile.atomic_rmw add, %{{.*}}, %{{.*}} : !tile.ptr<i32>
  %a = tile.atomic_rmw add, %p, %one : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw max, %{{.*}}, %{{.*}}, %{{.*}} sem(relaxed) scope(cta) : tensor<64x!tile.ptr<f32>>
  %b = tile.atomic_rmw max, %ps, %v, %m sem(relaxed) scope(cta) : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} sem(acquire) scope(sys) : !tile.ptr<i32>
  %c = tile.atomic_cas %p, %zero, %one sem(acquire) scope(sys) : !tile.ptr<i32>
  return %a, %b, %c : i32, tensor<64xf32>, i32
}

// CHECK-LABEL: func.func @warpgroup_wait
// CHECK: tile.warpgroup_wait %{{.*}} {pending = 1 : i32} : tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
// CHECK: tile.warpgroup_wait %{{.*}}, %{{.*}} after(%{{.*}} : tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>>) {pending = 0 : i32} : tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>, tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
// CHECK: tile.warpgroup_wait %{{.*}} after(%{{.*}} : f32) {older, pending = 1 : i32}
func.func @warpgroup_wait(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>,
                          %l: tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>>,
                          %x: f32) {
  %a = tile.warpgroup_wait %c {pending = 1 : i32} : tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
  %b:2 = tile.warpgroup_wait %a, %c after(%l : tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>>) {pending = 0 : i32} : tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>, tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
  %d = tile.warpgroup_wait %c after(%x : f32) {older, pending = 1 : i32} : tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
  return
}
