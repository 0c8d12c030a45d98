// --loop-strength-reduction: LLVM's loop strength reduction turns each
// `row * stride` of this persistent row loop (the frontend's MLIR of Triton's
// fused-softmax tutorial) into a loop-carried register and its step, where
// the multiply would read the stride from the constant bank. With the next
// row prefetched in registers, ptxas then needs 38 registers instead of 32
// (12 resident CTAs of 4 warps instead of 16), so `auto` (the default) emits
// the PTX made without it; a kernel with tensor-core instructions keeps it.
// REQUIRES: ptxas
// RUN: quirec %s --sm 90 --loop-strength-reduction=on -o %t.on
// RUN: quirec %s --sm 90 --loop-strength-reduction=off -o %t.off
// RUN: quirec %s --sm 90 -o %t.auto
// RUN: not cmp -s %t.on %t.off
// RUN: cmp %t.auto %t.off
// RUN: FileCheck %s --check-prefix=OFF < %t.off
// A tie keeps LSR: the PTX differs, the resident CTAs do not.
// RUN: quirec %S/Inputs/softmax-rows-hoisted.mlir --sm 90 --loop-strength-reduction=on -o %t.h.on
// RUN: quirec %S/Inputs/softmax-rows-hoisted.mlir --sm 90 --loop-strength-reduction=off -o %t.h.off
// RUN: quirec %S/Inputs/softmax-rows-hoisted.mlir --sm 90 -o %t.h.auto
// RUN: not cmp -s %t.h.on %t.h.off
// RUN: cmp %t.h.auto %t.h.on
// RUN: quirec %quire_src/examples/matmul.mlir --sm 90 --loop-strength-reduction=on -o %t.mm.on
// RUN: quirec %quire_src/examples/matmul.mlir --sm 90 -o %t.mm.auto
// RUN: cmp %t.mm.auto %t.mm.on

// Without it the loop multiplies the row by each stride (a parameter).
// OFF-LABEL: .entry softmax_rows(
// OFF:       $L__BB0_2:
// OFF:       mul.lo.s32
// OFF:       mul.lo.s32
// OFF:       bra {{.*}}$L__BB0_2;

module attributes {tile.num_warps = 4 : i32} {
func.func @softmax_rows(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: i32 {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = tile.num_programs x
  scf.for %2 = %0 to %arg4 step %1 : i32 {
    %3 = arith.muli %2, %arg2 : i32
    %4 = tile.addptr %arg1, %3 : !tile.ptr<f32>, i32
    %5 = tile.range 0, 1024 : tensor<1024xi32>
    %6 = tile.splat %4 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %7 = tile.addptr %6, %5 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %8 = tile.splat %arg5 : i32 -> tensor<1024xi32>
    %9 = arith.cmpi slt, %5, %8 : tensor<1024xi32>
    %10 = arith.constant dense<0xFF800000> : tensor<1024xf32>
    %11 = tile.load %7, %9, %10 : tensor<1024x!tile.ptr<f32>>
    %12 = tile.reduce max %11 {axis = 0 : i32} : tensor<1024xf32> -> f32
    %13 = tile.splat %12 : f32 -> tensor<1024xf32>
    %14 = arith.subf %11, %13 : tensor<1024xf32>
    %15 = math.exp %14 : tensor<1024xf32>
    %16 = tile.reduce sum %15 {axis = 0 : i32} : tensor<1024xf32> -> f32
    %17 = tile.splat %16 : f32 -> tensor<1024xf32>
    %18 = arith.divf %15, %17 fastmath<arcp> : tensor<1024xf32>
    %19 = arith.muli %2, %arg3 : i32
    %20 = tile.addptr %arg0, %19 : !tile.ptr<f32>, i32
    %21 = tile.splat %20 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %22 = tile.addptr %21, %5 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %22, %18, %9 : tensor<1024x!tile.ptr<f32>>
  }
  return
}
}
