// RUN: quire-opt %s --canonicalize --split-input-file | FileCheck %s
// An addition of a dot with a zero accumulator is the dot accumulating into
// the other addend: `acc += tl.dot(a, b)` in a loop becomes the loop-carried
// accumulator of the dot (what quire-async-copies needs to keep wgmma
// groups in flight), in either operand order. The dot must have no other
// use, a zero (+0 or -0) accumulator, and the block of the addition.

// CHECK-LABEL: func.func @loop
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:    %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ACC]]
// CHECK-NEXT:    scf.yield %[[D]]
func.func @loop(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %n: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %d = tile.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %s = arith.addf %acc, %d : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func.func @dot_first
// CHECK-NEXT:  %[[D:.*]] = tile.dot %arg0, %arg1, %arg2
// CHECK-NEXT:  return %[[D]]
func.func @dot_first(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant dense<-0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %zero : tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  %s = arith.addf %d, %x : tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}

// -----

// Not folded: the dot has another use, or its accumulator is not zero.
// CHECK-LABEL: func.func @near_misses
// CHECK:       %[[D1:.*]] = tile.dot %arg0, %arg1, %{{.*}}
// CHECK:       arith.addf %[[D1]], %arg2
// CHECK:       %[[D2:.*]] = tile.dot %arg0, %arg1, %{{.*}}
// CHECK:       arith.addf %[[D2]], %arg2
func.func @near_misses(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %one = arith.constant dense<1.0> : tensor<16x16xf32>
  %d1 = tile.dot %a, %b, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s1 = arith.addf %d1, %x : tensor<16x16xf32>
  %d2 = tile.dot %a, %b, %one : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s2 = arith.addf %d2, %x : tensor<16x16xf32>
  return %s1, %d1, %s2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Not folded: the dot is outside the loop whose body adds it (rebuilt at
// the add, it would run every iteration).
// CHECK-LABEL: func.func @dot_before_loop
// CHECK:       %[[D:.*]] = tile.dot
// CHECK:       scf.for
// CHECK-NEXT:    arith.addf %{{.*}}, %[[D]]
func.func @dot_before_loop(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %n: i32) -> tensor<16x16xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
    %s = arith.addf %acc, %d : tensor<16x16xf32>
    scf.yield %s : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}
