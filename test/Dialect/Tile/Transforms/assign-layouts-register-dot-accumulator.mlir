// RUN: quire-opt %s --canonicalize --cse --quire-lower-paged-loads --loop-invariant-code-motion --canonicalize --cse --quire-assign-layouts | FileCheck %s

// A register dot's accumulator takes the dot's layout even when the
// running rescale (acc * alpha[:, None]) comes before the dot in the loop,
// as an online softmax written the natural way has it (the frontend emits
// this from `acc = acc * alpha[:, None] + tl.dot(p, v)`): the 4-element
// alpha is converted, not the 4x128 accumulator, every iteration.
// CHECK-LABEL: func.func @rescale_before_dot
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout {{.*}} : tensor<4x128xf32
// CHECK: scf.yield
func.func @rescale_before_dot(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg4: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %arg5: !tile.ptr<i32>, %arg6: f32, %arg7: i32, %arg8: i32, %arg9: i64 {tile.divisibility = 16 : i32}, %arg10: i64 {tile.divisibility = 16 : i32}, %arg11: i64 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = tile.program_id y
  %2 = tile.addptr %arg5, %0 : !tile.ptr<i32>, i32
  %3 = tile.load %2 : !tile.ptr<i32>
  %4 = arith.muli %0, %arg8 : i32
  %5 = tile.addptr %arg4, %4 : !tile.ptr<i32>, i32
  %6 = arith.muli %0, %arg7 : i32
  %7 = arith.constant 4 : i32
  %8 = arith.muli %1, %7 : i32
  %9 = arith.addi %6, %8 : i32
  %10 = arith.constant 128 : i32
  %11 = arith.muli %9, %10 : i32
  %12 = tile.range 0, 4 : tensor<4xi32>
  %13 = tile.expand_dims %12 {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %14 = arith.constant dense<128> : tensor<4x1xi32>
  %15 = arith.muli %13, %14 : tensor<4x1xi32>
  %16 = tile.splat %11 : i32 -> tensor<4x1xi32>
  %17 = arith.addi %16, %15 : tensor<4x1xi32>
  %18 = tile.range 0, 128 : tensor<128xi32>
  %19 = tile.expand_dims %18 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %20 = tile.broadcast %17 : tensor<4x1xi32> -> tensor<4x128xi32>
  %21 = tile.broadcast %19 : tensor<1x128xi32> -> tensor<4x128xi32>
  %22 = arith.addi %20, %21 : tensor<4x128xi32>
  %23 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<4x128x!tile.ptr<f16>>
  %24 = tile.addptr %23, %22 : tensor<4x128x!tile.ptr<f16>>, tensor<4x128xi32>
  %25 = tile.load %24 : tensor<4x128x!tile.ptr<f16>>
  %26 = arith.constant dense<0xFF800000> : tensor<4xf32>
  %27 = arith.constant dense<0x00000000> : tensor<4xf32>
  %28 = arith.constant dense<0x00000000> : tensor<4x128xf32>
  %29 = arith.constant 0 : i32
  %30 = arith.constant 64 : i32
  %60:3 = scf.for %31 = %29 to %3 step %30 iter_args(%32 = %26, %33 = %27, %34 = %28) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x128xf32>) : i32 {
    %35 = tile.paged_load %arg2[%5, %31, %1] {page_size = 16 : i32} strides(%arg9, %arg10, %arg11) bound %3 : tensor<64x128xf16>
    %36 = tile.trans %35 : tensor<64x128xf16> -> tensor<128x64xf16>
    %37 = arith.constant dense<0x00000000> : tensor<4x64xf32>
    %38 = tile.dot %25, %36, %37 : tensor<4x128xf16> * tensor<128x64xf16> -> tensor<4x64xf32>
    %39 = tile.splat %arg6 : f32 -> tensor<4x64xf32>
    %40 = arith.mulf %38, %39 : tensor<4x64xf32>
    %41 = tile.reduce max %40 {axis = 1 : i32} : tensor<4x64xf32> -> tensor<4xf32>
    %42 = arith.maxnumf %32, %41 : tensor<4xf32>
    %43 = tile.expand_dims %42 {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %44 = tile.broadcast %43 : tensor<4x1xf32> -> tensor<4x64xf32>
    %45 = arith.subf %40, %44 : tensor<4x64xf32>
    %46 = math.exp %45 : tensor<4x64xf32>
    %47 = arith.subf %32, %42 : tensor<4xf32>
    %48 = math.exp %47 : tensor<4xf32>
    %49 = arith.mulf %33, %48 : tensor<4xf32>
    %50 = tile.reduce sum %46 {axis = 1 : i32} : tensor<4x64xf32> -> tensor<4xf32>
    %51 = arith.addf %49, %50 : tensor<4xf32>
    %52 = tile.paged_load %arg3[%5, %31, %1] {page_size = 16 : i32} strides(%arg9, %arg10, %arg11) bound %3 : tensor<64x128xf16>
    %53 = tile.expand_dims %48 {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %54 = tile.broadcast %53 : tensor<4x1xf32> -> tensor<4x128xf32>
    %55 = arith.mulf %34, %54 : tensor<4x128xf32>
    %56 = arith.truncf %46 : tensor<4x64xf32> to tensor<4x64xf16>
    %57 = arith.constant dense<0x00000000> : tensor<4x128xf32>
    %58 = tile.dot %56, %52, %57 : tensor<4x64xf16> * tensor<64x128xf16> -> tensor<4x128xf32>
    %59 = arith.addf %55, %58 : tensor<4x128xf32>
    scf.yield %42, %51, %59 : tensor<4xf32>, tensor<4xf32>, tensor<4x128xf32>
  }
  %61 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<4x128x!tile.ptr<f16>>
  %62 = tile.addptr %61, %22 : tensor<4x128x!tile.ptr<f16>>, tensor<4x128xi32>
  %63 = tile.expand_dims %60#1 {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %64 = tile.broadcast %63 : tensor<4x1xf32> -> tensor<4x128xf32>
  %65 = arith.divf %60#2, %64 : tensor<4x128xf32>
  %66 = arith.truncf %65 : tensor<4x128xf32> to tensor<4x128xf16>
  tile.store %62, %66 : tensor<4x128x!tile.ptr<f16>>
  return
}
