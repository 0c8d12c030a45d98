// Every buffer dtype travels .npy -> kernel -> .npy bit for bit: f16, bf16
// (as its <u2 bit pattern), f32, f64, i1 (|b1), i8, i16, i32, i64, with
// version 1.0, 2.0 and 3.0 headers; subnormals, -0, inf, NaN and the integer
// extremes included. inout:FILE:OUTFILE reads one file and writes another;
// rand: data is determined by its seed and saved by --save-inputs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy_round_trip.py make %t
// RUN: quire-run %s --arg in:%t/f16.npy --arg out:%t/f16.out.npy:f16:3 \
// RUN:   --arg in:%t/bf16.npy --arg out:%t/bf16.out.npy:bf16:3 \
// RUN:   --arg in:%t/f32.npy --arg out:%t/f32.out.npy:f32:3 \
// RUN:   --arg in:%t/f64.npy --arg out:%t/f64.out.npy:f64:3 \
// RUN:   --arg in:%t/i1.npy --arg out:%t/i1.out.npy:i1:3 --arg in:%t/i8.npy \
// RUN:   --arg out:%t/i8.out.npy:i8:3 --arg in:%t/i16.npy \
// RUN:   --arg out:%t/i16.out.npy:i16:3 --arg in:%t/i32.npy \
// RUN:   --arg out:%t/i32.out.npy:i32:3 --arg in:%t/i64.npy \
// RUN:   --arg out:%t/i64.out.npy:i64:3 --arg inout:%t/acc.npy:%t/acc.out.npy \
// RUN:   --arg rand:f32:3:seed=5 --arg out:%t/rand.out.npy:f32:3 \
// RUN:   --save-inputs %t/saved
// RUN: quire-run %s --arg in:%t/f16.npy --arg out:%t/f16.out.npy:f16:3 \
// RUN:   --arg in:%t/bf16.npy --arg out:%t/bf16.out.npy:bf16:3 \
// RUN:   --arg in:%t/f32.npy --arg out:%t/f32.out.npy:f32:3 \
// RUN:   --arg in:%t/f64.npy --arg out:%t/f64.out.npy:f64:3 \
// RUN:   --arg in:%t/i1.npy --arg out:%t/i1.out.npy:i1:3 --arg in:%t/i8.npy \
// RUN:   --arg out:%t/i8.out.npy:i8:3 --arg in:%t/i16.npy \
// RUN:   --arg out:%t/i16.out.npy:i16:3 --arg in:%t/i32.npy \
// RUN:   --arg out:%t/i32.out.npy:i32:3 --arg in:%t/i64.npy \
// RUN:   --arg out:%t/i64.out.npy:i64:3 --arg inout:%t/acc.npy:%t/acc.out.npy \
// RUN:   --arg rand:f32:3:seed=5 --arg out:%t/rand.again.npy:f32:3
// RUN: quire-run %s --arg in:%t/f16.npy --arg out:%t/f16.out.npy:f16:3 \
// RUN:   --arg in:%t/bf16.npy --arg out:%t/bf16.out.npy:bf16:3 \
// RUN:   --arg in:%t/f32.npy --arg out:%t/f32.out.npy:f32:3 \
// RUN:   --arg in:%t/f64.npy --arg out:%t/f64.out.npy:f64:3 \
// RUN:   --arg in:%t/i1.npy --arg out:%t/i1.out.npy:i1:3 --arg in:%t/i8.npy \
// RUN:   --arg out:%t/i8.out.npy:i8:3 --arg in:%t/i16.npy \
// RUN:   --arg out:%t/i16.out.npy:i16:3 --arg in:%t/i32.npy \
// RUN:   --arg out:%t/i32.out.npy:i32:3 --arg in:%t/i64.npy \
// RUN:   --arg out:%t/i64.out.npy:i64:3 --arg inout:%t/acc.npy:%t/acc.out.npy \
// RUN:   --arg rand:f32:3:seed=6 --arg out:%t/rand.other.npy:f32:3
// RUN: %python %S/Inputs/npy_round_trip.py check %t | FileCheck %s

// CHECK: f16: <f2 exact ok
// CHECK-NEXT: bf16: <u2 exact ok
// CHECK-NEXT: f32: <f4 exact ok
// CHECK-NEXT: f64: <f8 exact ok
// CHECK-NEXT: i1: |b1 exact ok
// CHECK-NEXT: i8: |i1 exact ok
// CHECK-NEXT: i16: <i2 exact ok
// CHECK-NEXT: i32: <i4 exact ok
// CHECK-NEXT: i64: <i8 exact ok
// CHECK-NEXT: inout: ok
// CHECK-NEXT: rand: ok

func.func @copy_all(%in_f16: !tile.ptr<f16>,
                    %out_f16: !tile.ptr<f16>,
                    %in_bf16: !tile.ptr<bf16>,
                    %out_bf16: !tile.ptr<bf16>,
                    %in_f32: !tile.ptr<f32>,
                    %out_f32: !tile.ptr<f32>,
                    %in_f64: !tile.ptr<f64>,
                    %out_f64: !tile.ptr<f64>,
                    %in_i1: !tile.ptr<i1>,
                    %out_i1: !tile.ptr<i1>,
                    %in_i8: !tile.ptr<i8>,
                    %out_i8: !tile.ptr<i8>,
                    %in_i16: !tile.ptr<i16>,
                    %out_i16: !tile.ptr<i16>,
                    %in_i32: !tile.ptr<i32>,
                    %out_i32: !tile.ptr<i32>,
                    %in_i64: !tile.ptr<i64>,
                    %out_i64: !tile.ptr<i64>,
                    %acc: !tile.ptr<i32>,
                    %rnd: !tile.ptr<f32>,
                    %rnd_out: !tile.ptr<f32>)
    attributes {tile.kernel} {
  %r = tile.range 0, 3 : tensor<3xi32>
  %is_f16 = tile.splat %in_f16 : !tile.ptr<f16> -> tensor<3x!tile.ptr<f16>>
  %ip_f16 = tile.addptr %is_f16, %r : tensor<3x!tile.ptr<f16>>, tensor<3xi32>
  %v_f16 = tile.load %ip_f16 : tensor<3x!tile.ptr<f16>>
  %os_f16 = tile.splat %out_f16 : !tile.ptr<f16> -> tensor<3x!tile.ptr<f16>>
  %op_f16 = tile.addptr %os_f16, %r : tensor<3x!tile.ptr<f16>>, tensor<3xi32>
  tile.store %op_f16, %v_f16 : tensor<3x!tile.ptr<f16>>
  %is_bf16 = tile.splat %in_bf16 : !tile.ptr<bf16> -> tensor<3x!tile.ptr<bf16>>
  %ip_bf16 = tile.addptr %is_bf16, %r : tensor<3x!tile.ptr<bf16>>, tensor<3xi32>
  %v_bf16 = tile.load %ip_bf16 : tensor<3x!tile.ptr<bf16>>
  %os_bf16 = tile.splat %out_bf16 : !tile.ptr<bf16> -> tensor<3x!tile.ptr<bf16>>
  %op_bf16 = tile.addptr %os_bf16, %r : tensor<3x!tile.ptr<bf16>>, tensor<3xi32>
  tile.store %op_bf16, %v_bf16 : tensor<3x!tile.ptr<bf16>>
  %is_f32 = tile.splat %in_f32 : !tile.ptr<f32> -> tensor<3x!tile.ptr<f32>>
  %ip_f32 = tile.addptr %is_f32, %r : tensor<3x!tile.ptr<f32>>, tensor<3xi32>
  %v_f32 = tile.load %ip_f32 : tensor<3x!tile.ptr<f32>>
  %os_f32 = tile.splat %out_f32 : !tile.ptr<f32> -> tensor<3x!tile.ptr<f32>>
  %op_f32 = tile.addptr %os_f32, %r : tensor<3x!tile.ptr<f32>>, tensor<3xi32>
  tile.store %op_f32, %v_f32 : tensor<3x!tile.ptr<f32>>
  %is_f64 = tile.splat %in_f64 : !tile.ptr<f64> -> tensor<3x!tile.ptr<f64>>
  %ip_f64 = tile.addptr %is_f64, %r : tensor<3x!tile.ptr<f64>>, tensor<3xi32>
  %v_f64 = tile.load %ip_f64 : tensor<3x!tile.ptr<f64>>
  %os_f64 = tile.splat %out_f64 : !tile.ptr<f64> -> tensor<3x!tile.ptr<f64>>
  %op_f64 = tile.addptr %os_f64, %r : tensor<3x!tile.ptr<f64>>, tensor<3xi32>
  tile.store %op_f64, %v_f64 : tensor<3x!tile.ptr<f64>>
  %is_i1 = tile.splat %in_i1 : !tile.ptr<i1> -> tensor<3x!tile.ptr<i1>>
  %ip_i1 = tile.addptr %is_i1, %r : tensor<3x!tile.ptr<i1>>, tensor<3xi32>
  %v_i1 = tile.load %ip_i1 : tensor<3x!tile.ptr<i1>>
  %os_i1 = tile.splat %out_i1 : !tile.ptr<i1> -> tensor<3x!tile.ptr<i1>>
  %op_i1 = tile.addptr %os_i1, %r : tensor<3x!tile.ptr<i1>>, tensor<3xi32>
  tile.store %op_i1, %v_i1 : tensor<3x!tile.ptr<i1>>
  %is_i8 = tile.splat %in_i8 : !tile.ptr<i8> -> tensor<3x!tile.ptr<i8>>
  %ip_i8 = tile.addptr %is_i8, %r : tensor<3x!tile.ptr<i8>>, tensor<3xi32>
  %v_i8 = tile.load %ip_i8 : tensor<3x!tile.ptr<i8>>
  %os_i8 = tile.splat %out_i8 : !tile.ptr<i8> -> tensor<3x!tile.ptr<i8>>
  %op_i8 = tile.addptr %os_i8, %r : tensor<3x!tile.ptr<i8>>, tensor<3xi32>
  tile.store %op_i8, %v_i8 : tensor<3x!tile.ptr<i8>>
  %is_i16 = tile.splat %in_i16 : !tile.ptr<i16> -> tensor<3x!tile.ptr<i16>>
  %ip_i16 = tile.addptr %is_i16, %r : tensor<3x!tile.ptr<i16>>, tensor<3xi32>
  %v_i16 = tile.load %ip_i16 : tensor<3x!tile.ptr<i16>>
  %os_i16 = tile.splat %out_i16 : !tile.ptr<i16> -> tensor<3x!tile.ptr<i16>>
  %op_i16 = tile.addptr %os_i16, %r : tensor<3x!tile.ptr<i16>>, tensor<3xi32>
  tile.store %op_i16, %v_i16 : tensor<3x!tile.ptr<i16>>
  %is_i32 = tile.splat %in_i32 : !tile.ptr<i32> -> tensor<3x!tile.ptr<i32>>
  %ip_i32 = tile.addptr %is_i32, %r : tensor<3x!tile.ptr<i32>>, tensor<3xi32>
  %v_i32 = tile.load %ip_i32 : tensor<3x!tile.ptr<i32>>
  %os_i32 = tile.splat %out_i32 : !tile.ptr<i32> -> tensor<3x!tile.ptr<i32>>
  %op_i32 = tile.addptr %os_i32, %r : tensor<3x!tile.ptr<i32>>, tensor<3xi32>
  tile.store %op_i32, %v_i32 : tensor<3x!tile.ptr<i32>>
  %is_i64 = tile.splat %in_i64 : !tile.ptr<i64> -> tensor<3x!tile.ptr<i64>>
  %ip_i64 = tile.addptr %is_i64, %r : tensor<3x!tile.ptr<i64>>, tensor<3xi32>
  %v_i64 = tile.load %ip_i64 : tensor<3x!tile.ptr<i64>>
  %os_i64 = tile.splat %out_i64 : !tile.ptr<i64> -> tensor<3x!tile.ptr<i64>>
  %op_i64 = tile.addptr %os_i64, %r : tensor<3x!tile.ptr<i64>>, tensor<3xi32>
  tile.store %op_i64, %v_i64 : tensor<3x!tile.ptr<i64>>
  %as = tile.splat %acc : !tile.ptr<i32> -> tensor<3x!tile.ptr<i32>>
  %ap = tile.addptr %as, %r : tensor<3x!tile.ptr<i32>>, tensor<3xi32>
  %a = tile.load %ap : tensor<3x!tile.ptr<i32>>
  %c10 = arith.constant dense<10> : tensor<3xi32>
  %a10 = arith.addi %a, %c10 : tensor<3xi32>
  tile.store %ap, %a10 : tensor<3x!tile.ptr<i32>>
  %rs = tile.splat %rnd : !tile.ptr<f32> -> tensor<3x!tile.ptr<f32>>
  %rp = tile.addptr %rs, %r : tensor<3x!tile.ptr<f32>>, tensor<3xi32>
  %rv = tile.load %rp : tensor<3x!tile.ptr<f32>>
  %ros = tile.splat %rnd_out : !tile.ptr<f32> -> tensor<3x!tile.ptr<f32>>
  %rop = tile.addptr %ros, %r : tensor<3x!tile.ptr<f32>>, tensor<3xi32>
  tile.store %rop, %rv : tensor<3x!tile.ptr<f32>>
  return
}
