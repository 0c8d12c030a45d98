// RUN: quire-opt %s --quire-forward-stores --canonicalize --cse | FileCheck %s
// RUN: quire-opt %s --quire-forward-stores --canonicalize --cse --quire-raise-paged-loads --canonicalize --cse | FileCheck %s --check-prefix=RAISED
// RUN: quire-opt %s "--quire-forward-stores=remove-barriers=false" --canonicalize --cse | FileCheck %s --check-prefix=KEEP
// RUN: quire-opt %s "--quire-forward-stores=sink-stores=false" --canonicalize --cse | FileCheck %s --check-prefix=SINK
// quire-forward-stores: a load of what the program itself stored reads the
// stored values. Every kernel below loads a [32 x 16] f16 tile of a paged
// cache (page size 8) for the tokens start .. start + 31 of one sequence,
// through row offsets it first writes to its own slot of a scratch buffer.

// The seed's shape: per page of the tile (a loop of 4), one block-table
// entry and its 8 row offsets stored under the token mask; a barrier; the
// 32 offsets reloaded under the token mask. The reload becomes the stored
// expression per element (page j / 8 of the tile, lane j % 8): a gather of
// the entries, and then (RAISED) the natural paged gather; the barrier goes.
// The stores stay (someone may read the buffer after the kernel), but as
// they wrote exactly the reloaded elements under the reload's mask, they
// become one store of the rebuilt offsets at the reloaded addresses, at the
// end of the iteration with the arithmetic of its value, away from the
// entries' gather, which nothing waits for until then (SINK=false leaves
// the pieces where they were).
// CHECK-LABEL: func.func @seed_scratch_offsets
// CHECK:         scf.for %[[START:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NOT:       scf.for
// CHECK-NOT:       tile.barrier
// CHECK-NOT:       tile.load %{{.*}}, %{{.*}}, %{{.*}} : !tile.ptr<i32>
// CHECK-NOT:       tile.store
// CHECK:           %[[J:.*]] = tile.range 0, 32 : tensor<32xi32>
// CHECK:           %[[PAGE:.*]] = arith.divsi %[[J]], %{{.*}} : tensor<32xi32>
// CHECK:           %[[IDX:.*]] = arith.addi %{{.*}}, %[[PAGE]] : tensor<32xi32>
// CHECK:           %[[BTP:.*]] = tile.addptr %{{.*}}, %[[IDX]] : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
// CHECK:           %[[E:.*]] = tile.load %[[BTP]], %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<i32>>
// CHECK:           %[[EW:.*]] = arith.extsi %[[E]] : tensor<32xi32> to tensor<32xi64>
// CHECK:           %[[SLOT:.*]] = arith.remsi %[[J]], %{{.*}} : tensor<32xi32>
// CHECK-NOT:       tile.load %{{.*}} : tensor<32x!tile.ptr<i64>>
// CHECK-NOT:       arith.select
// CHECK:           tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16x!tile.ptr<f16>>
// CHECK:           tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16x!tile.ptr<f16>>
// CHECK:           %[[DST:.*]] = tile.addptr %{{.*}}, %[[J]] : tensor<32x!tile.ptr<i64>>, tensor<32xi32>
// CHECK-NEXT:      tile.store %[[DST]], %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<i64>>
// CHECK-NEXT:    }
// RAISED-LABEL: func.func @seed_scratch_offsets
// RAISED:         scf.for %[[START:.*]] = %{{.*}} to %[[LEN:.*]] step
// RAISED-NOT:       tile.load %{{.*}} : tensor<32x!tile.ptr<i64>>
// RAISED:           tile.paged_load %{{.*}}[%{{.*}}, %[[START]], %{{.*}}] {page_size = 8 : i32} strides(%{{.*}}, %{{.*}}, %{{.*}}) bound %[[LEN]] : tensor<32x16xf16>
// RAISED:           tile.store %{{.*}} : tensor<32x!tile.ptr<i64>>
// KEEP-LABEL: func.func @seed_scratch_offsets
// KEEP:         tile.barrier
// KEEP-NOT:     tile.load %{{.*}} : tensor<32x!tile.ptr<i64>>
// SINK-LABEL: func.func @seed_scratch_offsets
// SINK:         scf.for
// SINK:           scf.for
// SINK:             tile.load %{{.*}} : !tile.ptr<i32>
// SINK:             tile.store %{{.*}} : tensor<8x!tile.ptr<i64>>
// SINK:           }
func.func @seed_scratch_offsets(%k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                %bt: !tile.ptr<i32>, %scratch: !tile.ptr<i64>,
                                %out: !tile.ptr<f16>, %len: i32, %s0: i32,
                                %s1: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %pid = tile.program_id x
  %slot0 = arith.muli %pid, %c32 : i32
  %mine = tile.addptr %scratch, %slot0 : !tile.ptr<i64>, i32
  %lane8 = tile.range 0, 8 : tensor<8xi32>
  %lens8 = tile.splat %len : i32 -> tensor<8xi32>
  %s1v = tile.splat %s1 : i32 -> tensor<8xi32>
  %s0w = arith.extsi %s0 : i32 to i64
  %d = tile.range 0, 16 : tensor<16xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %dw = arith.extsi %d2 : tensor<1x16xi32> to tensor<1x16xi64>
  %db = tile.broadcast %dw : tensor<1x16xi64> -> tensor<32x16xi64>
  scf.for %start = %c0 to %len step %c32 : i32 {
    scf.for %p = %c0 to %c4 step %c1 : i32 {
      %pg0 = arith.divsi %start, %c8 : i32
      %page = arith.addi %pg0, %p : i32
      %first = arith.muli %page, %c8 : i32
      %inseq = arith.cmpi slt, %first, %len : i32
      %btp = tile.addptr %bt, %page : !tile.ptr<i32>, i32
      %e = tile.load %btp, %inseq, %c0 : !tile.ptr<i32>
      %ew = arith.extsi %e : i32 to i64
      %row0 = arith.muli %ew, %s0w : i64
      %rows0 = tile.splat %row0 : i64 -> tensor<8xi64>
      %slot = arith.muli %lane8, %s1v : tensor<8xi32>
      %slotw = arith.extsi %slot : tensor<8xi32> to tensor<8xi64>
      %off = arith.addi %rows0, %slotw : tensor<8xi64>
      %firsts = tile.splat %first : i32 -> tensor<8xi32>
      %tok = arith.addi %firsts, %lane8 : tensor<8xi32>
      %m = arith.cmpi slt, %tok, %lens8 : tensor<8xi32>
      %pofs = arith.muli %p, %c8 : i32
      %dst0 = tile.addptr %mine, %pofs : !tile.ptr<i64>, i32
      %dsts = tile.splat %dst0 : !tile.ptr<i64> -> tensor<8x!tile.ptr<i64>>
      %dst = tile.addptr %dsts, %lane8 : tensor<8x!tile.ptr<i64>>, tensor<8xi32>
      tile.store %dst, %off, %m : tensor<8x!tile.ptr<i64>>
    }
    tile.barrier
    %lane = tile.range 0, 32 : tensor<32xi32>
    %starts = tile.splat %start : i32 -> tensor<32xi32>
    %toks = arith.addi %starts, %lane : tensor<32xi32>
    %lens = tile.splat %len : i32 -> tensor<32xi32>
    %tm = arith.cmpi slt, %toks, %lens : tensor<32xi32>
    %srcs = tile.splat %mine : !tile.ptr<i64> -> tensor<32x!tile.ptr<i64>>
    %src = tile.addptr %srcs, %lane : tensor<32x!tile.ptr<i64>>, tensor<32xi32>
    %zero = arith.constant dense<0> : tensor<32xi64>
    %rows = tile.load %src, %tm, %zero : tensor<32x!tile.ptr<i64>>
    %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<32xi64> -> tensor<32x1xi64>
    %rb = tile.broadcast %r2 : tensor<32x1xi64> -> tensor<32x16xi64>
    %koff = arith.addi %rb, %db : tensor<32x16xi64>
    %ks = tile.splat %k : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
    %kp = tile.addptr %ks, %koff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi64>
    %tm2 = tile.expand_dims %tm {axis = 1 : i32} : tensor<32xi1> -> tensor<32x1xi1>
    %tmb = tile.broadcast %tm2 : tensor<32x1xi1> -> tensor<32x16xi1>
    %fz = arith.constant dense<0.0> : tensor<32x16xf16>
    %kt = tile.load %kp, %tmb, %fz : tensor<32x16x!tile.ptr<f16>>
    // out[tok, :] = the tile
    %t2 = tile.expand_dims %toks {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %c16t = arith.constant dense<16> : tensor<32x1xi32>
    %orow = arith.muli %t2, %c16t : tensor<32x1xi32>
    %orb = tile.broadcast %orow : tensor<32x1xi32> -> tensor<32x16xi32>
    %d2b = tile.broadcast %d2 : tensor<1x16xi32> -> tensor<32x16xi32>
    %ooff = arith.addi %orb, %d2b : tensor<32x16xi32>
    %os = tile.splat %out : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
    %op = tile.addptr %os, %ooff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
    tile.store %op, %kt, %tmb : tensor<32x16x!tile.ptr<f16>>
  }
  return
}

// The same pieces unrolled (tl.static_range), as canonicalization leaves
// them: the first page's index is start / 8 itself, the others add 1, 2, 3.
// The four expressions unify into one with the page index j / 8.
// CHECK-LABEL: func.func @unrolled_pieces
// CHECK-NOT:     tile.barrier
// CHECK:         %[[J:.*]] = tile.range 0, 32 : tensor<32xi32>
// CHECK:         arith.divsi %[[J]], %{{.*}} : tensor<32xi32>
// CHECK:         tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<i32>>
// CHECK-NOT:     tile.load %{{.*}} : tensor<32x!tile.ptr<i64>>
// CHECK:         tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16x!tile.ptr<f16>>
// CHECK-NOT:     tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x!tile.ptr<i64>>
// CHECK:         tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<i64>>
// RAISED-LABEL: func.func @unrolled_pieces
// RAISED:         tile.paged_load %{{.*}}[%{{.*}}, %arg7, %{{.*}}] {page_size = 8 : i32} strides(%{{.*}}, %{{.*}}, %{{.*}}) bound %arg4 : tensor<32x16xf16>
func.func @unrolled_pieces(%k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                           %bt: !tile.ptr<i32>, %scratch: !tile.ptr<i64>,
                           %out: !tile.ptr<f16>, %len: i32, %s0: i32,
                           %s1: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c24 = arith.constant 24 : i32
  %c32 = arith.constant 32 : i32
  %pid = tile.program_id x
  %slot0 = arith.muli %pid, %c32 : i32
  %mine = tile.addptr %scratch, %slot0 : !tile.ptr<i64>, i32
  %lane8 = tile.range 0, 8 : tensor<8xi32>
  %lens8 = tile.splat %len : i32 -> tensor<8xi32>
  %s1v = tile.splat %s1 : i32 -> tensor<8xi32>
  %slot = arith.muli %lane8, %s1v : tensor<8xi32>
  %slotw = arith.extsi %slot : tensor<8xi32> to tensor<8xi64>
  %s0w = arith.extsi %s0 : i32 to i64
  %d = tile.range 0, 16 : tensor<16xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %dw = arith.extsi %d2 : tensor<1x16xi32> to tensor<1x16xi64>
  %db = tile.broadcast %dw : tensor<1x16xi64> -> tensor<32x16xi64>
  scf.for %start = %c0 to %len step %c32 : i32 {
    %pg0 = arith.divsi %start, %c8 : i32
    // page 0
    %f0 = arith.muli %pg0, %c8 : i32
    %in0 = arith.cmpi slt, %f0, %len : i32
    %bp0 = tile.addptr %bt, %pg0 : !tile.ptr<i32>, i32
    %e0 = tile.load %bp0, %in0, %c0 : !tile.ptr<i32>
    %ew0 = arith.extsi %e0 : i32 to i64
    %r0 = arith.muli %ew0, %s0w : i64
    %rs0 = tile.splat %r0 : i64 -> tensor<8xi64>
    %o0 = arith.addi %rs0, %slotw : tensor<8xi64>
    %fs0 = tile.splat %f0 : i32 -> tensor<8xi32>
    %t0 = arith.addi %fs0, %lane8 : tensor<8xi32>
    %m0 = arith.cmpi slt, %t0, %lens8 : tensor<8xi32>
    %ds0 = tile.splat %mine : !tile.ptr<i64> -> tensor<8x!tile.ptr<i64>>
    %dp0 = tile.addptr %ds0, %lane8 : tensor<8x!tile.ptr<i64>>, tensor<8xi32>
    tile.store %dp0, %o0, %m0 : tensor<8x!tile.ptr<i64>>
    // page 1
    %pg1 = arith.addi %pg0, %c1 : i32
    %f1 = arith.muli %pg1, %c8 : i32
    %in1 = arith.cmpi slt, %f1, %len : i32
    %bp1 = tile.addptr %bt, %pg1 : !tile.ptr<i32>, i32
    %e1 = tile.load %bp1, %in1, %c0 : !tile.ptr<i32>
    %ew1 = arith.extsi %e1 : i32 to i64
    %r1 = arith.muli %ew1, %s0w : i64
    %rs1 = tile.splat %r1 : i64 -> tensor<8xi64>
    %o1 = arith.addi %rs1, %slotw : tensor<8xi64>
    %fs1 = tile.splat %f1 : i32 -> tensor<8xi32>
    %t1 = arith.addi %fs1, %lane8 : tensor<8xi32>
    %m1 = arith.cmpi slt, %t1, %lens8 : tensor<8xi32>
    %dq1 = tile.addptr %mine, %c8 : !tile.ptr<i64>, i32
    %ds1 = tile.splat %dq1 : !tile.ptr<i64> -> tensor<8x!tile.ptr<i64>>
    %dp1 = tile.addptr %ds1, %lane8 : tensor<8x!tile.ptr<i64>>, tensor<8xi32>
    tile.store %dp1, %o1, %m1 : tensor<8x!tile.ptr<i64>>
    // page 2
    %pg2 = arith.addi %pg0, %c2 : i32
    %f2 = arith.muli %pg2, %c8 : i32
    %in2 = arith.cmpi slt, %f2, %len : i32
    %bp2 = tile.addptr %bt, %pg2 : !tile.ptr<i32>, i32
    %e2 = tile.load %bp2, %in2, %c0 : !tile.ptr<i32>
    %ew2 = arith.extsi %e2 : i32 to i64
    %r2 = arith.muli %ew2, %s0w : i64
    %rs2 = tile.splat %r2 : i64 -> tensor<8xi64>
    %o2 = arith.addi %rs2, %slotw : tensor<8xi64>
    %fs2 = tile.splat %f2 : i32 -> tensor<8xi32>
    %t2 = arith.addi %fs2, %lane8 : tensor<8xi32>
    %m2 = arith.cmpi slt, %t2, %lens8 : tensor<8xi32>
    %dq2 = tile.addptr %mine, %c16 : !tile.ptr<i64>, i32
    %ds2 = tile.splat %dq2 : !tile.ptr<i64> -> tensor<8x!tile.ptr<i64>>
    %dp2 = tile.addptr %ds2, %lane8 : tensor<8x!tile.ptr<i64>>, tensor<8xi32>
    tile.store %dp2, %o2, %m2 : tensor<8x!tile.ptr<i64>>
    // page 3
    %pg3 = arith.addi %pg0, %c3 : i32
    %f3 = arith.muli %pg3, %c8 : i32
    %in3 = arith.cmpi slt, %f3, %len : i32
    %bp3 = tile.addptr %bt, %pg3 : !tile.ptr<i32>, i32
    %e3 = tile.load %bp3, %in3, %c0 : !tile.ptr<i32>
    %ew3 = arith.extsi %e3 : i32 to i64
    %r3 = arith.muli %ew3, %s0w : i64
    %rs3 = tile.splat %r3 : i64 -> tensor<8xi64>
    %o3 = arith.addi %rs3, %slotw : tensor<8xi64>
    %fs3 = tile.splat %f3 : i32 -> tensor<8xi32>
    %t3 = arith.addi %fs3, %lane8 : tensor<8xi32>
    %m3 = arith.cmpi slt, %t3, %lens8 : tensor<8xi32>
    %dq3 = tile.addptr %mine, %c24 : !tile.ptr<i64>, i32
    %ds3 = tile.splat %dq3 : !tile.ptr<i64> -> tensor<8x!tile.ptr<i64>>
    %dp3 = tile.addptr %ds3, %lane8 : tensor<8x!tile.ptr<i64>>, tensor<8xi32>
    tile.store %dp3, %o3, %m3 : tensor<8x!tile.ptr<i64>>
    tile.barrier
    %lane = tile.range 0, 32 : tensor<32xi32>
    %starts = tile.splat %start : i32 -> tensor<32xi32>
    %toks = arith.addi %starts, %lane : tensor<32xi32>
    %lens = tile.splat %len : i32 -> tensor<32xi32>
    %tm = arith.cmpi slt, %toks, %lens : tensor<32xi32>
    %srcs = tile.splat %mine : !tile.ptr<i64> -> tensor<32x!tile.ptr<i64>>
    %src = tile.addptr %srcs, %lane : tensor<32x!tile.ptr<i64>>, tensor<32xi32>
    %zero = arith.constant dense<0> : tensor<32xi64>
    %rows = tile.load %src, %tm, %zero : tensor<32x!tile.ptr<i64>>
    %rr = tile.expand_dims %rows {axis = 1 : i32} : tensor<32xi64> -> tensor<32x1xi64>
    %rb = tile.broadcast %rr : tensor<32x1xi64> -> tensor<32x16xi64>
    %koff = arith.addi %rb, %db : tensor<32x16xi64>
    %ks = tile.splat %k : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
    %kp = tile.addptr %ks, %koff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi64>
    %tm2 = tile.expand_dims %tm {axis = 1 : i32} : tensor<32xi1> -> tensor<32x1xi1>
    %tmb = tile.broadcast %tm2 : tensor<32x1xi1> -> tensor<32x16xi1>
    %fz = arith.constant dense<0.0> : tensor<32x16xf16>
    %kt = tile.load %kp, %tmb, %fz : tensor<32x16x!tile.ptr<f16>>
    %tt = tile.expand_dims %toks {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %c16t = arith.constant dense<16> : tensor<32x1xi32>
    %orow = arith.muli %tt, %c16t : tensor<32x1xi32>
    %orb = tile.broadcast %orow : tensor<32x1xi32> -> tensor<32x16xi32>
    %d2b = tile.broadcast %d2 : tensor<1x16xi32> -> tensor<32x16xi32>
    %ooff = arith.addi %orb, %d2b : tensor<32x16xi32>
    %os = tile.splat %out : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
    %op = tile.addptr %os, %ooff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
    tile.store %op, %kt, %tmb : tensor<32x16x!tile.ptr<f16>>
  }
  return
}

// A reload of part of what was stored: elements 8 .. 23 of a 32-element
// store read the stored expression at lanes j + 8.
// CHECK-LABEL: func.func @partial_reload
// CHECK:         %[[J:.*]] = tile.range 0, 16 : tensor<16xi32>
// CHECK:         %[[L:.*]] = arith.addi %[[J]], %{{.*}} : tensor<16xi32>
// CHECK:         %[[V:.*]] = arith.muli %[[L]], %{{.*}} : tensor<16xi32>
// CHECK-NOT:     tile.load
// CHECK:         tile.store %{{.*}}, %[[V]] : tensor<16x!tile.ptr<i32>>
// CHECK-NOT:     tile.load
// CHECK:         tile.store %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<i32>>
// CHECK-NEXT:    return
func.func @partial_reload(%scratch: !tile.ptr<i32>, %out: !tile.ptr<i32>,
                          %s: i32) attributes {tile.kernel} {
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c32 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<i32>, i32
  %lane = tile.range 0, 32 : tensor<32xi32>
  %ss = tile.splat %s : i32 -> tensor<32xi32>
  %v = arith.muli %lane, %ss : tensor<32xi32>
  %ms = tile.splat %mine : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>>
  %mp = tile.addptr %ms, %lane : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
  tile.store %mp, %v : tensor<32x!tile.ptr<i32>>
  tile.barrier
  %half = tile.range 0, 16 : tensor<16xi32>
  %from = tile.addptr %mine, %c8 : !tile.ptr<i32>, i32
  %fs = tile.splat %from : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %fp = tile.addptr %fs, %half : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %x = tile.load %fp : tensor<16x!tile.ptr<i32>>
  %obase = arith.muli %pid, %c8 : i32
  %o = tile.addptr %out, %obase : !tile.ptr<i32>, i32
  %os = tile.splat %o : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %op = tile.addptr %os, %half : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %op, %x : tensor<16x!tile.ptr<i32>>
  return
}

// A reload wider than the store: elements 16 .. 31 were not stored, and the
// reload's mask (j < 16) keeps them off; loads rebuilt for the forwarded
// value carry that mask too.
// CHECK-LABEL: func.func @reload_beyond_stores_masked
// CHECK:         %[[M:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<32xi32>
// CHECK:         %[[T:.*]] = tile.load %{{.*}}, %[[M]] : tensor<32x!tile.ptr<i32>>
// CHECK:         %[[S:.*]] = arith.select %[[M]], %[[T]], %{{.*}} : tensor<32xi1>, tensor<32xi32>
// CHECK:         tile.store %{{.*}}, %[[S]] : tensor<32x!tile.ptr<i32>>
// CHECK-NOT:     tile.load
// CHECK:         tile.store %{{.*}}, %{{.*}} : tensor<16x!tile.ptr<i32>>
// CHECK-NEXT:    return
func.func @reload_beyond_stores_masked(%scratch: !tile.ptr<i32>,
                                       %table: !tile.ptr<i32>,
                                       %out: !tile.ptr<i32>) attributes {tile.kernel} {
  %c32 = arith.constant 32 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c32 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<i32>, i32
  %lane = tile.range 0, 16 : tensor<16xi32>
  %ts = tile.splat %table : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %tp = tile.addptr %ts, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %t = tile.load %tp : tensor<16x!tile.ptr<i32>>
  %ms = tile.splat %mine : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %mp = tile.addptr %ms, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %mp, %t : tensor<16x!tile.ptr<i32>>
  tile.barrier
  %wide = tile.range 0, 32 : tensor<32xi32>
  %c16 = arith.constant dense<16> : tensor<32xi32>
  %m = arith.cmpi slt, %wide, %c16 : tensor<32xi32>
  %ws = tile.splat %mine : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>>
  %wp = tile.addptr %ws, %wide : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
  %minus = arith.constant dense<-1> : tensor<32xi32>
  %x = tile.load %wp, %m, %minus : tensor<32x!tile.ptr<i32>>
  %o = tile.addptr %out, %base : !tile.ptr<i32>, i32
  %os = tile.splat %o : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>>
  %op = tile.addptr %os, %wide : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
  tile.store %op, %x : tensor<32x!tile.ptr<i32>>
  return
}

// Pieces that wrote more than the reload reads stay pieces: one store of the
// reloaded value would drop elements 16 .. 31 of the four 8-lane pieces.
// CHECK-LABEL: func.func @pieces_beyond_the_reload
// CHECK-NOT:     tile.load
// CHECK-COUNT-4: tile.store %{{.*}}, %{{.*}} : tensor<8x!tile.ptr<i32>>
// CHECK-NOT:     tile.store %{{.*}}, %{{.*}} : tensor<8x!tile.ptr<i32>>
// CHECK:         return
func.func @pieces_beyond_the_reload(%scratch: !tile.ptr<i32>,
                                    %out: !tile.ptr<i32>,
                                    %s: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c32 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<i32>, i32
  %lane = tile.range 0, 8 : tensor<8xi32>
  %ss = tile.splat %s : i32 -> tensor<8xi32>
  scf.for %p = %c0 to %c4 step %c1 : i32 {
    %ps = tile.splat %p : i32 -> tensor<8xi32>
    %v0 = arith.muli %ps, %ss : tensor<8xi32>
    %v = arith.addi %v0, %lane : tensor<8xi32>
    %off = arith.muli %p, %c8 : i32
    %dst0 = tile.addptr %mine, %off : !tile.ptr<i32>, i32
    %ds = tile.splat %dst0 : !tile.ptr<i32> -> tensor<8x!tile.ptr<i32>>
    %dp = tile.addptr %ds, %lane : tensor<8x!tile.ptr<i32>>, tensor<8xi32>
    tile.store %dp, %v : tensor<8x!tile.ptr<i32>>
  }
  tile.barrier
  %half = tile.range 0, 16 : tensor<16xi32>
  %src = tile.splat %mine : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %sp = tile.addptr %src, %half : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %x = tile.load %sp : tensor<16x!tile.ptr<i32>>
  %obase = arith.muli %pid, %c16 : i32
  %o = tile.addptr %out, %obase : !tile.ptr<i32>, i32
  %os = tile.splat %o : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %op = tile.addptr %os, %half : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %op, %x : tensor<16x!tile.ptr<i32>>
  return
}

// Pieces written where the reload's mask may be false stay pieces too: the
// reload reads elements j < n of the 32, the pieces wrote all of them.
// CHECK-LABEL: func.func @reload_mask_narrower_than_pieces
// CHECK-NOT:     tile.load
// CHECK-COUNT-4: tile.store %{{.*}}, %{{.*}} : tensor<8x!tile.ptr<i32>>
// CHECK-NOT:     tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<i32>>
// CHECK:         return
func.func @reload_mask_narrower_than_pieces(%scratch: !tile.ptr<i32>,
                                            %out: !tile.ptr<i32>, %s: i32,
                                            %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c32 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<i32>, i32
  %lane = tile.range 0, 8 : tensor<8xi32>
  %ss = tile.splat %s : i32 -> tensor<8xi32>
  scf.for %p = %c0 to %c4 step %c1 : i32 {
    %ps = tile.splat %p : i32 -> tensor<8xi32>
    %v0 = arith.muli %ps, %ss : tensor<8xi32>
    %v = arith.addi %v0, %lane : tensor<8xi32>
    %off = arith.muli %p, %c8 : i32
    %dst0 = tile.addptr %mine, %off : !tile.ptr<i32>, i32
    %ds = tile.splat %dst0 : !tile.ptr<i32> -> tensor<8x!tile.ptr<i32>>
    %dp = tile.addptr %ds, %lane : tensor<8x!tile.ptr<i32>>, tensor<8xi32>
    tile.store %dp, %v : tensor<8x!tile.ptr<i32>>
  }
  tile.barrier
  %all = tile.range 0, 32 : tensor<32xi32>
  %ns = tile.splat %n : i32 -> tensor<32xi32>
  %m = arith.cmpi slt, %all, %ns : tensor<32xi32>
  %zero = arith.constant dense<0> : tensor<32xi32>
  %src = tile.splat %mine : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>>
  %sp = tile.addptr %src, %all : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
  %x = tile.load %sp, %m, %zero : tensor<32x!tile.ptr<i32>>
  %o = tile.addptr %out, %base : !tile.ptr<i32>, i32
  %os = tile.splat %o : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>>
  %op = tile.addptr %os, %all : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
  tile.store %op, %x : tensor<32x!tile.ptr<i32>>
  return
}

// A scalar stored and read back.
// CHECK-LABEL: func.func @scalar_reload
// CHECK:         %[[V:.*]] = arith.muli
// CHECK-NEXT:    tile.store %arg1, %[[V]] : !tile.ptr<i32>
// CHECK-NEXT:    %[[P:.*]] = tile.addptr %arg0
// CHECK-NEXT:    tile.store %[[P]], %[[V]] : !tile.ptr<i32>
// CHECK-NEXT:    return
func.func @scalar_reload(%scratch: !tile.ptr<i32>, %out: !tile.ptr<i32>,
                         %a: i32) attributes {tile.kernel} {
  %pid = tile.program_id x
  %mine = tile.addptr %scratch, %pid : !tile.ptr<i32>, i32
  %v = arith.muli %a, %pid : i32
  tile.store %mine, %v : !tile.ptr<i32>
  tile.barrier
  %x = tile.load %mine : !tile.ptr<i32>
  tile.store %out, %x : !tile.ptr<i32>
  return
}

// No stores involved: a select the load's own mask decides (offsets kept
// in bounds with tl.where(mask, offs, 0)) is read through.
// CHECK-LABEL: func.func @select_decided_by_mask
// CHECK-NOT:     arith.select
// CHECK:         tile.load
func.func @select_decided_by_mask(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>,
                                  %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %z = arith.constant dense<0> : tensor<64xi32>
  %safe = arith.select %m, %r, %z : tensor<64xi1>, tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %safe : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %xp, %m : tensor<64x!tile.ptr<f32>>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %v, %m : tensor<64x!tile.ptr<f32>>
  return
}
