// RUN: quire-opt %s --quire-skip-unit-rescale | FileCheck %s
// In the pipeline (skip-unit-rescale=true), last: in the consumers' loop
// of the overlapped, ping-ponged attention kernel the guard comes after
// P V's wait and V's release, and guards only the rescale of the carried
// accumulator; the kernel goes through ptxas.
// RUN: quire-opt %S/pingpong.mlir "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 warp-specialize=true overlap-softmax=true pingpong=true skip-unit-rescale=true" | FileCheck %s --check-prefix=PIPE
// RUN: quirec %S/pingpong.mlir --sm 90 --num-warps 8 --async-stages 3 --warp-specialize --overlap-softmax --pingpong --skip-unit-rescale -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// PIPE:         scf.for
// PIPE:           %[[PV:.*]] = tile.warpgroup_wait %{{.*}} {pending = 0 : i32}
// PIPE-NEXT:      tile.tma_release
// PIPE:           %[[ANY:.*]] = tile.warp_any
// PIPE-NEXT:      %[[R:.*]] = scf.if %[[ANY]]
// PIPE-NEXT:        arith.mulf %[[PV]], %{{.*}} : tensor<128x64xf32
// PIPE:           scf.yield %{{.*}}, %{{.*}}, %[[R]],
// PIPE-NOT:       tile.warp_any
// PTX:          vote.sync.any.pred
// PTX-NOT:      vote.sync
// PTXAS-NOT:    error
// quire-skip-unit-rescale guards the rescale of a loop's dot accumulator by
// a row factor exp2(x - y) / exp(x - y) with tile.warp_any(factor != 1):
// a warp whose factors are all 1 keeps the accumulator as it is. The
// multiply moves into the branch; the factor's compare is unordered, so a
// NaN factor multiplies too.

// The rescale feeds the dot's accumulator in the same iteration.
// CHECK-LABEL: func.func @online_softmax
// CHECK:         scf.for
// CHECK:           %[[ALPHA:.*]] = math.exp2 %{{.*}} : tensor<16xf32>
// CHECK:           %[[B:.*]] = tile.broadcast
// CHECK:           %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<16xf32>
// CHECK:           %[[NE:.*]] = arith.cmpf une, %[[ALPHA]], %[[ONE]] : tensor<16xf32>
// CHECK:           %[[ANY:.*]] = tile.warp_any %[[NE]] : tensor<16xi1>
// CHECK:           %[[R:.*]] = scf.if %[[ANY]] -> (tensor<16x32xf32>) {
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[ACC:.*]], %[[B]] : tensor<16x32xf32>
// CHECK-NEXT:        scf.yield %[[M]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[ACC]]
// CHECK-NEXT:      }
// CHECK:           tile.dot %{{.*}}, %{{.*}}, %[[R]]
func.func @online_softmax(%x: f32, %h: f16, %n: i32) attributes {tile.kernel} {
  %s = tile.splat %x : f32 -> tensor<16x16xf32>
  %v = tile.splat %h : f16 -> tensor<16x32xf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m0 = arith.constant dense<0xFF800000> : tensor<16xf32>
  %acc0 = arith.constant dense<0.0> : tensor<16x32xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%m = %m0, %acc = %acc0) -> (tensor<16xf32>, tensor<16x32xf32>) : i32 {
    %t = tile.reduce max %s {axis = 1 : i32} : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %m, %t : tensor<16xf32>
    %d = arith.subf %m, %mn : tensor<16xf32>
    %alpha = math.exp2 %d : tensor<16xf32>
    %e = tile.expand_dims %alpha {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %b = tile.broadcast %e : tensor<16x1xf32> -> tensor<16x32xf32>
    %scaled = arith.mulf %acc, %b : tensor<16x32xf32>
    %p = arith.truncf %s : tensor<16x16xf32> to tensor<16x16xf16>
    %o = tile.dot %p, %v, %scaled : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
    scf.yield %mn, %o : tensor<16xf32>, tensor<16x32xf32>
  }
  return
}

// The rescale is yielded to the accumulator of the next iteration's dot
// (quire-overlap-softmax's order), the factor first, with exp.
// CHECK-LABEL: func.func @yielded
// CHECK:         scf.for
// CHECK:           tile.dot
// CHECK:           %[[ALPHA:.*]] = math.exp %{{.*}} : tensor<16xf32>
// CHECK:           arith.cmpf une, %[[ALPHA]]
// CHECK:           %[[ANY:.*]] = tile.warp_any
// CHECK:           %[[R:.*]] = scf.if %[[ANY]]
// CHECK:             arith.mulf %{{.*}}, %{{.*}} : tensor<16x32xf32>
// CHECK:           scf.yield %{{.*}}, %[[R]]
func.func @yielded(%x: f32, %h: f16, %n: i32) attributes {tile.kernel} {
  %s = tile.splat %x : f32 -> tensor<16x16xf32>
  %v = tile.splat %h : f16 -> tensor<16x32xf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m0 = arith.constant dense<0.0> : tensor<16xf32>
  %acc0 = arith.constant dense<0.0> : tensor<16x32xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%m = %m0, %acc = %acc0) -> (tensor<16xf32>, tensor<16x32xf32>) : i32 {
    %p = arith.truncf %s : tensor<16x16xf32> to tensor<16x16xf16>
    %o = tile.dot %p, %v, %acc : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
    %t = tile.reduce max %s {axis = 1 : i32} : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %m, %t : tensor<16xf32>
    %d = arith.subf %m, %mn : tensor<16xf32>
    %alpha = math.exp %d : tensor<16xf32>
    %e = tile.expand_dims %alpha {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %b = tile.broadcast %e : tensor<16x1xf32> -> tensor<16x32xf32>
    %scaled = arith.mulf %b, %o : tensor<16x32xf32>
    scf.yield %mn, %scaled : tensor<16xf32>, tensor<16x32xf32>
  }
  return
}

// Left alone: a factor that is not exp of a difference (nothing says it is
// often 1), a rescale no dot accumulates into, one outside a loop, and one
// in a function that is not a kernel.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:     tile.warp_any
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @near_misses(%x: f32, %h: f16, %n: i32) attributes {tile.kernel} {
  %s = tile.splat %x : f32 -> tensor<16x16xf32>
  %v = tile.splat %h : f16 -> tensor<16x32xf16>
  %f = tile.splat %x : f32 -> tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.0> : tensor<16x32xf32>
  %p = arith.truncf %s : tensor<16x16xf32> to tensor<16x16xf16>
  %alpha = math.exp2 %f : tensor<16xf32>
  %d = arith.subf %f, %f : tensor<16xf32>
  %unit = math.exp2 %d : tensor<16xf32>
  %e = tile.expand_dims %alpha {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %b = tile.broadcast %e : tensor<16x1xf32> -> tensor<16x32xf32>
  %eu = tile.expand_dims %unit {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %bu = tile.broadcast %eu : tensor<16x1xf32> -> tensor<16x32xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0, %other = %acc0) -> (tensor<16x32xf32>, tensor<16x32xf32>) : i32 {
    %scaled = arith.mulf %acc, %b : tensor<16x32xf32>
    %o = tile.dot %p, %v, %scaled : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
    %kept = arith.mulf %other, %bu : tensor<16x32xf32>
    scf.yield %o, %kept : tensor<16x32xf32>, tensor<16x32xf32>
  }
  %outside = arith.mulf %r#0, %bu : tensor<16x32xf32>
  %o2 = tile.dot %p, %v, %outside : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
  return
}

// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NOT:     tile.warp_any
// CHECK:         return
func.func @not_a_kernel(%x: f32, %h: f16, %n: i32) {
  %s = tile.splat %x : f32 -> tensor<16x16xf32>
  %v = tile.splat %h : f16 -> tensor<16x32xf16>
  %f = tile.splat %x : f32 -> tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.0> : tensor<16x32xf32>
  %p = arith.truncf %s : tensor<16x16xf32> to tensor<16x16xf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<16x32xf32>) : i32 {
    %d = arith.subf %f, %f : tensor<16xf32>
    %unit = math.exp2 %d : tensor<16xf32>
    %eu = tile.expand_dims %unit {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %bu = tile.broadcast %eu : tensor<16x1xf32> -> tensor<16x32xf32>
    %scaled = arith.mulf %acc, %bu : tensor<16x32xf32>
    %o = tile.dot %p, %v, %scaled : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
    scf.yield %o : tensor<16x32xf32>
  }
  return
}
