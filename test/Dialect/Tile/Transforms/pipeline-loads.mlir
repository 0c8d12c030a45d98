// RUN: quire-opt %s --quire-pipeline-loads --canonicalize | FileCheck %s
// RUN: quire-opt %s "--quire-pipeline-loads=skip-dot-operands" --canonicalize | FileCheck %s --check-prefix=SKIP
// The load of the next iteration is issued at the top of the current one and
// carried; the first iteration's load moves before the loop. Both masks are
// and-ed with "that iteration exists", so nothing past the end is read; the
// next iteration's test is i < ub - step (and ub - step < ub, invariant):
// i + step < ub would hold where the sum wraps past INT32_MAX.
// Loads that depend on a loop-carried value stay where they are.

// CHECK-LABEL: func.func @sum_rows
// CHECK: %[[IN0:.*]] = arith.cmpi sgt, %[[UB:.*]], %c0_i32 : i32
// CHECK: %[[G0:.*]] = tile.splat %[[IN0]] : i1 -> tensor<64xi1>
// CHECK: %[[M0:.*]] = arith.andi %{{.*}}, %[[G0]] : tensor<64xi1>
// CHECK: %[[X0:.*]] = tile.load %{{.*}}, %[[M0]], %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK: scf.for %[[I:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[X:.*]] = %[[X0]])
// CHECK:   %[[N:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK:   %[[LIM:.*]] = arith.subi %[[UB]], %{{.*}} : i32
// CHECK:   %[[OK:.*]] = arith.cmpi slt, %[[LIM]], %[[UB]] : i32
// CHECK:   %[[BELOW:.*]] = arith.cmpi slt, %[[I]], %[[LIM]] : i32
// CHECK:   %[[IN:.*]] = arith.andi %[[BELOW]], %[[OK]] : i1
// CHECK:   %[[G:.*]] = tile.splat %[[IN]] : i1 -> tensor<64xi1>
// CHECK:   %[[M:.*]] = arith.andi %{{.*}}, %[[G]] : tensor<64xi1>
// CHECK:   %[[XN:.*]] = tile.load %{{.*}}, %[[M]], %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK:   %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : tensor<64xf32>
// CHECK:   scf.yield %[[S]], %[[XN]]
func.func @sum_rows(%p: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: i32, %rows: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %inrow = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %base = arith.muli %i, %n : i32
    %bs = tile.splat %base : i32 -> tensor<64xi32>
    %off = arith.addi %bs, %r : tensor<64xi32>
    %ptr = tile.addptr %ps, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %x = tile.load %ptr, %inrow, %zero : tensor<64x!tile.ptr<f32>>
    %s = arith.addf %acc, %x : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %sum : tensor<64x!tile.ptr<f32>>
  return
}

// A print in the loop writes only the device's printf buffer: the loop is
// pipelined as without it, and the print shows the value loaded for its
// iteration (the carried one).
// CHECK-LABEL: func.func @sum_rows_printed
// CHECK: tile.load
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[X:.*]] = %{{.*}})
// CHECK:   %[[XN:.*]] = tile.load
// CHECK:   tile.print "row", %[[X]] : tensor<64xf32>
// CHECK:   scf.yield %{{.*}}, %[[XN]]
func.func @sum_rows_printed(%p: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: i32, %rows: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %inrow = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %base = arith.muli %i, %n : i32
    %bs = tile.splat %base : i32 -> tensor<64xi32>
    %off = arith.addi %bs, %r : tensor<64xi32>
    %ptr = tile.addptr %ps, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %x = tile.load %ptr, %inrow, %zero : tensor<64x!tile.ptr<f32>>
    tile.print "row", %x : tensor<64xf32>
    %s = arith.addf %acc, %x : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %sum : tensor<64x!tile.ptr<f32>>
  return
}

// An unsigned loop (bounds compared as unsigned) is left alone: the
// "next iteration runs" test is a signed one.
// CHECK-LABEL: func.func @unsigned_loop
// CHECK: scf.for unsigned %{{.*}} iter_args(%{{[^,]*}} = %{{[^)]*}}) -> (tensor<64xf32>)
// CHECK-NEXT: arith.muli
func.func @unsigned_loop(%p: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: i32, %rows: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %sum = scf.for unsigned %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %base = arith.muli %i, %n : i32
    %bs = tile.splat %base : i32 -> tensor<64xi32>
    %off = arith.addi %bs, %r : tensor<64xi32>
    %ptr = tile.addptr %ps, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %x = tile.load %ptr : tensor<64x!tile.ptr<f32>>
    %s = arith.addf %acc, %x : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %sum : tensor<64x!tile.ptr<f32>>
  return
}

// CHECK-LABEL: func.func @carried_pointer
// CHECK: scf.for
// CHECK:   tile.load %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK:   tile.addptr
// CHECK:   scf.yield
func.func @carried_pointer(%p: !tile.ptr<f32>, %o: !tile.ptr<f32>, %rows: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p0 = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %sum:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero, %ptr = %p0) -> (tensor<64xf32>, tensor<64x!tile.ptr<f32>>) : i32 {
    %x = tile.load %ptr : tensor<64x!tile.ptr<f32>>
    %s = arith.addf %acc, %x : tensor<64xf32>
    %pn = tile.addptr %ptr, %c64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %s, %pn : tensor<64xf32>, tensor<64x!tile.ptr<f32>>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %sum#0 : tensor<64x!tile.ptr<f32>>
  return
}

// A loop that writes memory keeps its loads in place: here iteration i+1
// loads the row iteration i stored, so issuing that load at the top of
// iteration i would read the row before it is written.
// CHECK-LABEL: func.func @load_what_was_stored
// CHECK-NOT:   tile.load
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:         %[[X:.*]] = tile.load %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK:         tile.store %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT:  }
func.func @load_what_was_stored(%p: !tile.ptr<f32>, %rows: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  scf.for %i = %c0 to %rows step %c1 : i32 {
    // x = row i; row i + 1 = x + 1.
    %base = arith.muli %i, %c64 : i32
    %bs = tile.splat %base : i32 -> tensor<64xi32>
    %off = arith.addi %bs, %r : tensor<64xi32>
    %ptr = tile.addptr %ps, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %x = tile.load %ptr : tensor<64x!tile.ptr<f32>>
    %y = arith.addf %x, %one : tensor<64xf32>
    %c64s = arith.constant dense<64> : tensor<64xi32>
    %next = tile.addptr %ptr, %c64s : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %next, %y : tensor<64x!tile.ptr<f32>>
  }
  return
}

// A loop that stores only through another kernel argument still has its
// loads issued ahead (distinct arguments are taken not to overlap): the
// row loop of Triton's fused softmax tutorial, out[i] = f(x[i]).
// CHECK-LABEL: func.func @store_to_another_argument
// CHECK:       %[[FIRST:.*]] = tile.load
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[X:.*]] = %[[FIRST]])
// CHECK:         tile.load
// CHECK:         tile.store %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
func.func @store_to_another_argument(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %rows: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  scf.for %i = %c0 to %rows step %c1 : i32 {
    %base = arith.muli %i, %c64 : i32
    %bs = tile.splat %base : i32 -> tensor<64xi32>
    %off = arith.addi %bs, %r : tensor<64xi32>
    %xp = tile.addptr %xs, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %xp : tensor<64x!tile.ptr<f32>>
    %y = arith.addf %v, %one : tensor<64xf32>
    %op = tile.addptr %os, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %op, %y : tensor<64x!tile.ptr<f32>>
  }
  return
}

// With skip-dot-operands (the pipeline's setting when cp.async staging is
// on), dot operands quire-async-copies can stage are left to it: here B,
// 16-byte aligned rows of 16 f16. A, whose row stride %lda has no known
// divisibility, cannot be copied in runs of 4 bytes or more, so it is
// prefetched in registers.
// SKIP-LABEL: func.func @dot_operands
// SKIP:       %[[A0:.*]] = tile.load %{{.*}}, %{{.*}} : tensor<16x32x!tile.ptr<f16>>
// SKIP-NOT:   tile.load
// SKIP:       scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[A:.*]] = %[[A0]])
// SKIP:         tile.load %{{.*}}, %{{.*}} : tensor<16x32x!tile.ptr<f16>>
// SKIP:         %[[B:.*]] = tile.load %{{.*}} : tensor<32x16x!tile.ptr<f16>>
// SKIP:         tile.dot %[[A]], %[[B]], %[[ACC]]
func.func @dot_operands(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                        %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                        %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                        %k: i32, %lda: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = tile.range 0, 16 : tensor<16xi32>
  %kk = tile.range 0, 32 : tensor<32xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ldas = tile.splat %lda : i32 -> tensor<16x1xi32>
  %ar = arith.muli %r2, %ldas : tensor<16x1xi32>
  %arb = tile.broadcast %ar : tensor<16x1xi32> -> tensor<16x32xi32>
  %k2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %aoff0 = arith.addi %arb, %kb : tensor<16x32xi32>
  %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c16 = arith.constant dense<16> : tensor<32x1xi32>
  %br = arith.muli %kc, %c16 : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x16xi32>
  %n2 = tile.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %nb = tile.broadcast %n2 : tensor<1x16xi32> -> tensor<32x16xi32>
  %boff0 = arith.addi %brb, %nb : tensor<32x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
  %ks = tile.splat %k : i32 -> tensor<16x32xi32>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<16x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<16x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %acols = arith.addi %kb, %is : tensor<16x32xi32>
    %am = arith.cmpi slt, %acols, %ks : tensor<16x32xi32>
    %x = tile.load %ap, %am : tensor<16x32x!tile.ptr<f16>>
    %c16s = arith.constant 16 : i32
    %i16 = arith.muli %i, %c16s : i32
    %is2 = tile.splat %i16 : i32 -> tensor<32x16xi32>
    %boff = arith.addi %boff0, %is2 : tensor<32x16xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
    %y = tile.load %bp : tensor<32x16x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<16x16x!tile.ptr<f32>>
  return
}
