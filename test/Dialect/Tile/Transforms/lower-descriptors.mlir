// RUN: quire-opt %s --quire-lower-descriptors | FileCheck %s
// RUN: quire-opt %s --quire-lower-descriptors --canonicalize --cse | FileCheck %s --check-prefix=CANON
// A descriptor block access is a masked tile.load / tile.store of the
// block's pointers: per dimension k the indices o_k + range(0, B_k), in
// bounds where 0 <= index < shape_k, 64-bit offsets index * stride_k
// spread over the block; loads read zero (or NaN with nan_padding) out of
// bounds, stores write nothing there. No descriptor op remains.

// CHECK-LABEL: func.func @copy_block
// CHECK-NOT:   tile.make_descriptor
// CHECK-NOT:   tile.descriptor_
// CHECK:       %[[R0:.*]] = tile.range 0, 64 : tensor<64xi32>
// CHECK:       %[[I0:.*]] = arith.addi %[[R0]], %{{.*}} : tensor<64xi32>
// CHECK:       arith.cmpi sge, %[[I0]]
// CHECK:       arith.cmpi slt, %[[I0]]
// CHECK:       %[[E0:.*]] = arith.extsi %[[I0]] : tensor<64xi32> to tensor<64xi64>
// CHECK:       arith.muli %[[E0]], %{{.*}} : tensor<64xi64>
// CHECK:       tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<64xi64> -> tensor<64x1xi64>
// CHECK:       tile.broadcast %{{.*}} : tensor<64x1xi64> -> tensor<64x32xi64>
// CHECK:       tile.range 0, 32 : tensor<32xi32>
// CHECK:       tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<32xi64> -> tensor<1x32xi64>
// CHECK:       %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi64>
// CHECK:       %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf16>
// CHECK:       %[[X:.*]] = tile.load %[[P]], %[[M:.*]], %[[ZERO]] : tensor<64x32x!tile.ptr<f16>>
// CHECK:       tile.store %{{.*}}, %[[X]], %{{.*}} : tensor<64x32x!tile.ptr<f16>>
// The last stride, the constant 1, folds away: the block's rows are
// contiguous, as a pointer kernel writes them.
// CANON-LABEL: func.func @copy_block
// CANON-NOT:   arith.muli %{{.*}}, %cst{{.*}} : tensor<32xi64>
// CANON:       tile.load
func.func @copy_block(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                      %m: i32, %n: i32, %ld: i64) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i64
  %pid = tile.program_id x
  %c64 = arith.constant 64 : i32
  %c0 = arith.constant 0 : i32
  %row = arith.muli %pid, %c64 : i32
  %dx = tile.make_descriptor %x, shape [%m, %n], strides [%ld, %c1] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  %dy = tile.make_descriptor %y, shape [%m, %n], strides [%ld, %c1] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  %t = tile.descriptor_load %dx[%row, %c0] : !tile.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
  tile.descriptor_store %dy[%row, %c0], %t : !tile.tensordesc<tensor<64x32xf16>>, tensor<64x32xf16>
  return
}

// Three dimensions (the middle one spread with size-1 dimensions on both
// sides), NaN padding, and a 1-D integer block padded with zeros.
// CHECK-LABEL: func.func @ranks
// CHECK:       tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<8xi64> -> tensor<1x8xi64>
// CHECK-NEXT:  tile.expand_dims %{{.*}} {axis = 2 : i32} : tensor<1x8xi64> -> tensor<1x8x1xi64>
// CHECK-NEXT:  tile.broadcast %{{.*}} : tensor<1x8x1xi64> -> tensor<2x8x16xi64>
// CHECK:       arith.constant dense<0x7FC00000> : tensor<2x8x16xf32>
// CHECK:       arith.constant dense<0> : tensor<128xi32>
func.func @ranks(%x: !tile.ptr<f32>, %i: !tile.ptr<i32>, %s0: i32, %s1: i32, %s2: i32,
                 %t0: i64, %t1: i64, %t2: i64, %o: i32) attributes {tile.kernel} {
  %d = tile.make_descriptor %x, shape [%s0, %s1, %s2], strides [%t0, %t1, %t2] {nan_padding} : !tile.ptr<f32> -> !tile.tensordesc<tensor<2x8x16xf32>>
  %v = tile.descriptor_load %d[%o, %o, %o] : !tile.tensordesc<tensor<2x8x16xf32>> -> tensor<2x8x16xf32>
  tile.descriptor_store %d[%o, %o, %o], %v : !tile.tensordesc<tensor<2x8x16xf32>>, tensor<2x8x16xf32>
  %e = tile.make_descriptor %i, shape [%s0], strides [%t0] : !tile.ptr<i32> -> !tile.tensordesc<tensor<128xi32>>
  %w = tile.descriptor_load %e[%o] : !tile.tensordesc<tensor<128xi32>> -> tensor<128xi32>
  tile.descriptor_store %e[%o], %w : !tile.tensordesc<tensor<128xi32>>, tensor<128xi32>
  return
}
