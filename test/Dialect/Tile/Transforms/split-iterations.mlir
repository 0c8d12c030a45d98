// RUN: quire-opt %s --quire-split-iterations --allow-unregistered-dialect | FileCheck %s
// In the pipeline (split-iterations=true), last: the overlapped,
// ping-ponged consumers' loop of a causal attention kernel (scores masked
// in the tiles past %diag) becomes two loops of one pipeline: the first
// without the mask's branch, the second with it, carrying the first's
// results (no second peeled first scores or last P V between them). Off
// by default. The kernel goes through ptxas.
// RUN: quire-opt %S/Inputs/split-iterations-causal.mlir "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 warp-specialize=true producer-warpgroup=true overlap-softmax=true pingpong=true split-iterations=true" | FileCheck %s --check-prefix=PIPE
// RUN: quire-opt %S/Inputs/split-iterations-causal.mlir "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 warp-specialize=true producer-warpgroup=true overlap-softmax=true pingpong=true" | FileCheck %s --check-prefix=OFF
// RUN: quirec %S/Inputs/split-iterations-causal.mlir --sm 90 --num-warps 8 --async-stages 3 --warp-specialize --producer-warpgroup --overlap-softmax --pingpong --split-iterations -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// PIPE:         tile.warpgroup_turn start
// PIPE:         %[[K:.*]] = arith.trunci %{{.*}} : i64 to i32
// PIPE-NEXT:    %[[A:.*]]:7 = scf.for %{{.*}} = %c64_i32 to %[[K]] step %c64_i32
// PIPE-NOT:       scf.if
// PIPE-NOT:       arith.select %{{.*}} : tensor<128x64xi1
// PIPE:           tile.warpgroup_wait %{{.*}} {pending = 0 : i32}
// PIPE:           scf.yield
// PIPE-NEXT:    {{^ *[}]$}}
// PIPE-NEXT:    %[[B:.*]]:7 = scf.for %{{.*}} = %[[K]] to %arg4 step %c64_i32 iter_args(%{{.*}} = %[[A]]#0, %{{.*}} = %[[A]]#1, %{{.*}} = %[[A]]#2, %{{.*}} = %[[A]]#3, %{{.*}} = %[[A]]#4, %{{.*}} = %[[A]]#5, %{{.*}} = %[[A]]#6)
// PIPE:           scf.if
// PIPE:             arith.select %{{.*}} : tensor<128x64xi1
// PIPE:           tile.warpgroup_wait %{{.*}} {pending = 0 : i32}
// PIPE:           scf.yield
// PIPE-NEXT:    {{^ *[}]$}}
// PIPE-NEXT:    scf.if
// PIPE:           tile.warpgroup_dot a(%[[B]]#4
// PIPE:         tile.warpgroup_turn end
// OFF:          tile.warpgroup_turn start
// OFF-COUNT-1:  scf.for
// OFF-NOT:      scf.for
// OFF:          tile.warpgroup_turn end
// PTXAS-NOT:    error

// quire-split-iterations on a dot loop whose body branches on the
// induction variable %i against a loop-invariant value: %k, the first
// iteration of the loop's grid (lb + n * step) where the condition turns,
// within [lb, ub], is computed in i64; the loop over [lb, %k) has the side
// taken before %k inlined, the loop over [%k, ub) keeps the branch.

// %i + 16 > %x: false up to %i = %x - 16, the else side first.
// CHECK-LABEL: func.func @masked_tail
// CHECK:         %[[LB:.*]] = arith.extsi %arg1 : i32 to i64
// CHECK-NEXT:    %[[UB:.*]] = arith.extsi %arg2 : i32 to i64
// CHECK-NEXT:    %[[X:.*]] = arith.extsi %arg3 : i32 to i64
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : i64
// CHECK-NEXT:    %[[T:.*]] = arith.subi %[[X]], %[[C16]] : i64
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[T1:.*]] = arith.addi %[[T]], %[[C1]] : i64
// CHECK-NEXT:    %[[MAX:.*]] = arith.maxsi %[[T1]], %[[LB]] : i64
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[MAX]], %[[LB]] : i64
// CHECK-NEXT:    %[[C15:.*]] = arith.constant 15 : i64
// CHECK-NEXT:    %[[D1:.*]] = arith.addi %[[D]], %[[C15]] : i64
// CHECK-NEXT:    %[[N:.*]] = arith.divsi %[[D1]], %[[C16]] : i64
// CHECK-NEXT:    %[[NS:.*]] = arith.muli %[[N]], %[[C16]] : i64
// CHECK-NEXT:    %[[G:.*]] = arith.addi %[[LB]], %[[NS]] : i64
// CHECK-NEXT:    %[[MIN:.*]] = arith.minsi %[[G]], %[[UB]] : i64
// CHECK-NEXT:    %[[K:.*]] = arith.trunci %[[MIN]] : i64 to i32
// CHECK-NEXT:    %[[A:.*]] = scf.for %[[I:.*]] = %arg1 to %[[K]] step %c16_i32 iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:      %[[S:.*]] = tile.splat %arg0
// CHECK-NEXT:      %[[O:.*]] = tile.dot %[[S]], %{{.*}}, %[[ACC]]
// CHECK-NEXT:      scf.yield %[[O]]
// CHECK:         %[[B:.*]] = scf.for %{{.*}} = %[[K]] to %arg2 step %c16_i32 iter_args(%{{.*}} = %[[A]])
// CHECK:           arith.cmpi sgt
// CHECK:           scf.if
// CHECK:             arith.select
// CHECK:         "test.use"(%[[B]])
func.func @masked_tail(%x: f16, %lb: i32, %ub: i32, %diag: i32) attributes {tile.kernel} {
  %c16 = arith.constant 16 : i32
  %b = tile.splat %x : f16 -> tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = scf.for %i = %lb to %ub step %c16 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %e = arith.addi %i, %c16 : i32
    %t = arith.cmpi sgt, %e, %diag : i32
    %a = scf.if %t -> (tensor<16x16xf16>) {
      %r16 = tile.range 0, 16 : tensor<16xi32>
      %lim = tile.splat %diag : i32 -> tensor<16xi32>
      %ok = arith.cmpi slt, %r16, %lim : tensor<16xi32>
      %ok2 = tile.expand_dims %ok {axis = 0 : i32} : tensor<16xi1> -> tensor<1x16xi1>
      %okb = tile.broadcast %ok2 : tensor<1x16xi1> -> tensor<16x16xi1>
      %z = arith.constant dense<0.0> : tensor<16x16xf16>
      %m = arith.select %okb, %b, %z : tensor<16x16xi1>, tensor<16x16xf16>
      scf.yield %m : tensor<16x16xf16>
    } else {
      %s = tile.splat %x : f16 -> tensor<16x16xf16>
      scf.yield %s : tensor<16x16xf16>
    }
    %o = tile.dot %a, %b, %acc : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  "test.use"(%r) : (tensor<16x16xf32>) -> ()
  return
}

// %x > %i (%i < %x, the induction variable on the right): true up to
// %i = %x - 1, so the first loop takes the then side; a branch without
// results and without an else.
// CHECK-LABEL: func.func @head_first
// CHECK:         %[[X:.*]] = arith.extsi %arg2 : i32 to i64
// CHECK:         %[[T:.*]] = arith.subi %[[X]], %c0_i64 : i64
// CHECK-NEXT:    %[[MAX:.*]] = arith.maxsi %[[T]], %{{.*}} : i64
// CHECK:         %[[K:.*]] = arith.trunci
// CHECK:         scf.for %{{.*}} = %c0_i32 to %[[K]] step %c1_i32
// CHECK-NOT:       scf.if
// CHECK:           tile.store
// CHECK:         scf.for %{{.*}} = %[[K]] to %arg1 step %c1_i32
// CHECK:           arith.cmpi sgt, %arg2,
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        tile.store
func.func @head_first(%p: !tile.ptr<f32>, %n: i32, %x: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %h = arith.constant dense<1.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = tile.range 0, 16 : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v = arith.constant dense<2.0> : tensor<16xf32>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %t = arith.cmpi sgt, %x, %i : i32
    scf.if %t {
      tile.store %ptrs, %v : tensor<16x!tile.ptr<f32>>
    }
    %o = tile.dot %h, %h, %acc : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  "test.use"(%res) : (tensor<16x16xf32>) -> ()
  return
}

// %i - 8 <= %x: true up to %x + 8; a negative offset could wrap below the
// type's minimum, so the first loop runs only where lb - 8 does not.
// CHECK-LABEL: func.func @negative_offset
// CHECK:         %[[LB:.*]] = arith.extsi %arg1 : i32 to i64
// CHECK:         %[[K:.*]] = arith.minsi
// CHECK-NEXT:    %[[LOW:.*]] = arith.addi %[[LB]], %c-8_i64 : i64
// CHECK:         %[[FITS:.*]] = arith.cmpi sge, %[[LOW]], %c-2147483648_i64 : i64
// CHECK-NEXT:    %[[SEL:.*]] = arith.select %[[FITS]], %[[K]], %[[LB]] : i64
// CHECK-NEXT:    %[[KI:.*]] = arith.trunci %[[SEL]] : i64 to i32
// CHECK-NEXT:    scf.for %{{.*}} = %arg1 to %[[KI]] step
// CHECK-NOT:       scf.if
// CHECK:         scf.for %{{.*}} = %[[KI]] to %arg2 step
// CHECK:           scf.if
func.func @negative_offset(%x: i32, %lb: i32, %ub: i32) attributes {tile.kernel} {
  %c4 = arith.constant 4 : i32
  %cm8 = arith.constant -8 : i32
  %h = arith.constant dense<1.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %res = scf.for %i = %lb to %ub step %c4 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %e = arith.addi %cm8, %i : i32
    %t = arith.cmpi sle, %e, %x : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      %z = arith.constant dense<0.0> : tensor<16x16xf32>
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  "test.use"(%res) : (tensor<16x16xf32>) -> ()
  return
}

// Left as they are: a loop without a dot; a condition on a carried value,
// on a value computed in the loop, unsigned or (in)equality; a step that
// is not a constant or not positive; a 64-bit induction variable; a loop
// over unsigned bounds; a function that is not a kernel.
// CHECK-LABEL: func.func @near_misses
// CHECK-COUNT-8: scf.for
// CHECK-NOT:     scf.for
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-COUNT-1: scf.for
// CHECK-NOT:     scf.for
func.func @near_misses(%x: i32, %n: i32, %s: i32, %n64: i64, %x64: i64) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm1 = arith.constant -1 : i32
  %h = arith.constant dense<1.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  // No dot.
  %r0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %t = arith.cmpi sgt, %i, %x : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    scf.yield %a : tensor<16x16xf32>
  }
  // A carried value.
  %r1:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0, %j = %c0) -> (tensor<16x16xf32>, i32) : i32 {
    %t = arith.cmpi sgt, %j, %x : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    %j1 = arith.addi %j, %c1 : i32
    scf.yield %o, %j1 : tensor<16x16xf32>, i32
  }
  // A bound computed in the loop.
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %y = arith.muli %i, %x : i32
    %t = arith.cmpi sgt, %i, %y : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  // Unsigned.
  %r3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %t = arith.cmpi ugt, %i, %x : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  // Equality.
  %r4 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %t = arith.cmpi eq, %i, %x : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  // A step known only at run time.
  %r5 = scf.for %i = %c0 to %n step %s iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %t = arith.cmpi sgt, %i, %x : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  // A 64-bit induction variable.
  %c0_64 = arith.constant 0 : i64
  %c1_64 = arith.constant 1 : i64
  %r6 = scf.for %i = %c0_64 to %n64 step %c1_64 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i64 {
    %t = arith.cmpi sgt, %i, %x64 : i64
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  // Unsigned bounds.
  %r7 = scf.for unsigned %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %t = arith.cmpi sgt, %i, %x : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  "test.use"(%r0, %r1#0, %r2, %r3, %r4, %r5, %r6, %r7) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> ()
  return
}

func.func @not_a_kernel(%x: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %h = arith.constant dense<1.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %t = arith.cmpi sgt, %i, %x : i32
    %a = scf.if %t -> (tensor<16x16xf32>) {
      scf.yield %acc : tensor<16x16xf32>
    } else {
      scf.yield %z : tensor<16x16xf32>
    }
    %o = tile.dot %h, %h, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  "test.use"(%r) : (tensor<16x16xf32>) -> ()
  return
}
