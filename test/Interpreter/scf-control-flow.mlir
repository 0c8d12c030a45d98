// scf.for with i64, index, i8 and unsigned induction variables, tensor
// iter_args, zero-trip loops; scf.if with results; scf.while. Each result is
// stored to one element of the i64 output.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --kernel loops --arg out:%t/o.npy:i64:9 --print \
// RUN:   | FileCheck %s

// CHECK:      arg #0 (out, i64, 9):
// Elements: i64 loop -3..10 step 4 (sum of IVs, tensor iter_arg); its trip
// count; index loop 0..5 step 2; i8 loop 120..127 step 3 (no wrap); unsigned
// i8 loop 100..200 (2 trips; a signed compare would run 0); zero-trip loop
// keeps its init; scf.if then/else; scf.while doubling 3 until >= 100.
// CHECK-NEXT: 12 4 6 369 2 0 7 -7 192
// CHECK-NOT:  {{.}}

// A zero or negative step is an error, not a hang.
// RUN: not quire-run %s --kernel zero_step --arg i32:0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ZERO
// RUN: not quire-run %s --kernel zero_step --arg i32:-2 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEG

func.func @loops(%out: !tile.ptr<i64>) attributes {tile.kernel} {
  %zero4 = arith.constant dense<0> : tensor<4xi64>
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %lb = arith.constant -3 : i64
  %ub = arith.constant 10 : i64
  %st = arith.constant 4 : i64
  %acc:2 = scf.for %i = %lb to %ub step %st iter_args(%t = %zero4, %n = %c0_i64)
      -> (tensor<4xi64>, i64) : i64 {
    %is = tile.splat %i : i64 -> tensor<4xi64>
    %t2 = arith.addi %t, %is : tensor<4xi64>
    %n2 = arith.addi %n, %c1_i64 : i64
    scf.yield %t2, %n2 : tensor<4xi64>, i64
  }
  %s0 = tile.reduce max %acc#0 {axis = 0 : i32} : tensor<4xi64> -> i64

  %i0 = arith.constant 0 : index
  %i5 = arith.constant 5 : index
  %i2 = arith.constant 2 : index
  %isum = scf.for %j = %i0 to %i5 step %i2 iter_args(%a = %c0_i64) -> (i64) {
    %jj = arith.index_cast %j : index to i64
    %a2 = arith.addi %a, %jj : i64
    scf.yield %a2 : i64
  }

  %b120 = arith.constant 120 : i8
  %b127 = arith.constant 127 : i8
  %b3 = arith.constant 3 : i8
  %bsum = scf.for %k = %b120 to %b127 step %b3 iter_args(%a = %c0_i64) -> (i64) : i8 {
    %kk = arith.extsi %k : i8 to i64
    %a2 = arith.addi %a, %kk : i64
    scf.yield %a2 : i64
  }

  %u100 = arith.constant 100 : i8
  %u200 = arith.constant -56 : i8
  %u50 = arith.constant 50 : i8
  %utrips = scf.for unsigned %k = %u100 to %u200 step %u50 iter_args(%a = %c0_i64) -> (i64) : i8 {
    %a2 = arith.addi %a, %c1_i64 : i64
    scf.yield %a2 : i64
  }

  %none = scf.for %k = %ub to %ub step %st iter_args(%a = %c0_i64) -> (i64) : i64 {
    %a2 = arith.addi %a, %c1_i64 : i64
    scf.yield %a2 : i64
  }

  %true = arith.constant true
  %false = arith.constant false
  %c7 = arith.constant 7 : i64
  %cm7 = arith.constant -7 : i64
  %then = scf.if %true -> (i64) {
    scf.yield %c7 : i64
  } else {
    scf.yield %cm7 : i64
  }
  %else = scf.if %false -> (i64) {
    scf.yield %c7 : i64
  } else {
    scf.yield %cm7 : i64
  }

  %c3 = arith.constant 3 : i64
  %c100 = arith.constant 100 : i64
  %doubled = scf.while (%x = %c3) : (i64) -> i64 {
    %lt = arith.cmpi slt, %x, %c100 : i64
    scf.condition(%lt) %x : i64
  } do {
  ^bb0(%x: i64):
    %x2 = arith.addi %x, %x : i64
    scf.yield %x2 : i64
  }

  %p0 = tile.addptr %out, %c0_i64 : !tile.ptr<i64>, i64
  tile.store %p0, %s0 : !tile.ptr<i64>
  %p1 = tile.addptr %out, %c1_i64 : !tile.ptr<i64>, i64
  tile.store %p1, %acc#1 : !tile.ptr<i64>
  %c2_i64 = arith.constant 2 : i64
  %p2 = tile.addptr %out, %c2_i64 : !tile.ptr<i64>, i64
  tile.store %p2, %isum : !tile.ptr<i64>
  %p3 = tile.addptr %out, %c3 : !tile.ptr<i64>, i64
  tile.store %p3, %bsum : !tile.ptr<i64>
  %c4_i64 = arith.constant 4 : i64
  %p4 = tile.addptr %out, %c4_i64 : !tile.ptr<i64>, i64
  tile.store %p4, %utrips : !tile.ptr<i64>
  %c5_i64 = arith.constant 5 : i64
  %p5 = tile.addptr %out, %c5_i64 : !tile.ptr<i64>, i64
  tile.store %p5, %none : !tile.ptr<i64>
  %c6_i64 = arith.constant 6 : i64
  %p6 = tile.addptr %out, %c6_i64 : !tile.ptr<i64>, i64
  tile.store %p6, %then : !tile.ptr<i64>
  %p7 = tile.addptr %out, %c7 : !tile.ptr<i64>, i64
  tile.store %p7, %else : !tile.ptr<i64>
  %c8_i64 = arith.constant 8 : i64
  %p8 = tile.addptr %out, %c8_i64 : !tile.ptr<i64>, i64
  tile.store %p8, %doubled : !tile.ptr<i64>
  return
}

func.func @zero_step(%step: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c10 = arith.constant 10 : i32
  // ZERO: scf-control-flow.mlir:[[@LINE+2]]:3: error: 'scf.for' op step must be positive, got 0 in program (0, 0, 0)
  // NEG:  scf-control-flow.mlir:[[@LINE+1]]:3: error: 'scf.for' op step must be positive, got -2 in program (0, 0, 0)
  scf.for %i = %c0 to %c10 step %step : i32 {
  }
  return
}
