// quire-run lowers tensor-descriptor accesses before it runs a kernel
// (quire-lower-descriptors): a 4x4 block of a 3x5 tensor (row stride 8 in
// an array of 3x8 values 0..23) at offsets (-1, 2) reads zero outside the
// shape and stores into a 4x4 view of a 5x5 output only inside it (the
// output's other elements keep their fill, -1).
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --arg values:f32:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23 --arg out:%t/o.npy:f32:25:fill=-1 --print | FileCheck %s

// Output row r (5 wide) holds block row r + 1 for r < 2, i.e. tensor row r,
// columns 2..5: column 5 is outside the tensor's shape (zero) and output
// column 4 outside the output's (left at -1); the block's row 0 (tensor
// row -1) lies outside the output too.
// CHECK: arg #1 (out, f32, 25):
// CHECK-NEXT: 2 3 4 0 -1 10 11 12 0 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
func.func @blocks(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel} {
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %m1 = arith.constant -1 : i32
  %c0 = arith.constant 0 : i32
  %s8 = arith.constant 8 : i64
  %s5 = arith.constant 5 : i64
  %s1 = arith.constant 1 : i64
  %dx = tile.make_descriptor %x, shape [%c3, %c5], strides [%s8, %s1] : !tile.ptr<f32> -> !tile.tensordesc<tensor<4x4xf32>>
  %dy = tile.make_descriptor %y, shape [%c2, %c4], strides [%s5, %s1] : !tile.ptr<f32> -> !tile.tensordesc<tensor<4x4xf32>>
  %t = tile.descriptor_load %dx[%m1, %c2] : !tile.tensordesc<tensor<4x4xf32>> -> tensor<4x4xf32>
  tile.descriptor_store %dy[%m1, %c0], %t : !tile.tensordesc<tensor<4x4xf32>>, tensor<4x4xf32>
  return
}
