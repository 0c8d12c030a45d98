// Floating-point multiplies and adds contract into fma by default, as nvcc
// (--fmad=true) and Triton (enable_fp_fusion) compile them; --fp-fusion=false
// rounds the product and the sum each on its own.
// RUN: quirec %s --sm 90 | FileCheck %s
// RUN: quirec %s --sm 90 --fp-fusion=false | FileCheck %s --check-prefix=OFF
// RUN: quirec %s --sm 80 | FileCheck %s

// CHECK-LABEL: .entry axpy(
// CHECK:       fma.rn.f32
// CHECK-NOT:   mul.rn.f32
// CHECK:       ret;

// OFF-LABEL: .entry axpy(
// OFF-NOT:   fma.rn.f32
// OFF:       mul.rn.f32
// OFF:       add.rn.f32
// OFF-NOT:   fma.rn.f32
// OFF:       ret;

func.func @axpy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %a: f32, %n: i32) attributes {tile.kernel} {
  %pid = tile.program_id x
  %block = arith.constant 256 : i32
  %start = arith.muli %pid, %block : i32
  %range = tile.range 0, 256 : tensor<256xi32>
  %starts = tile.splat %start : i32 -> tensor<256xi32>
  %offs = arith.addi %starts, %range : tensor<256xi32>
  %ns = tile.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<256xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %xv = tile.load %xp, %mask : tensor<256x!tile.ptr<f32>>
  %yv = tile.load %yp, %mask : tensor<256x!tile.ptr<f32>>
  %as = tile.splat %a : f32 -> tensor<256xf32>
  %ax = arith.mulf %as, %xv : tensor<256xf32>
  %r = arith.addf %ax, %yv : tensor<256xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %op, %r, %mask : tensor<256x!tile.ptr<f32>>
  return
}
