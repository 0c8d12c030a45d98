// RUN: quire-opt %s --split-input-file --canonicalize --cse --quire-raise-paged-loads | FileCheck %s

// Natural paged gathers (what quire.jit emits for a Triton kernel that
// reads bt[tok // P] and builds the offsets itself, here a [16, 32] f16
// tile of tokens pid * 16 .. pid * 16 + 15, page size 8) become
// tile.paged_load. The inputs are the frontend's output for the kernels of
// python/test/test_raise_paged_loads.py.

// [T, D] tile, 64-bit offsets, the head's term (h * s2) uniform: it moves
// into the cache pointer. The block-table load that fed only this tile is
// gone.
// CHECK-LABEL: func.func @rows_i64
// CHECK: %[[CACHE:.*]] = tile.addptr %arg0, %{{.*}} : !tile.ptr<f16>, i64
// CHECK: %[[PL:.*]] = tile.paged_load %[[CACHE]][%arg1, %{{.*}}, %{{.*}}] {page_size = 8 : i32} strides(%{{.*}}, %{{.*}}, %{{.*}}) bound %arg3 : tensor<16x32xf16>
// CHECK-NOT: tile.load
// CHECK: tile.store %{{.*}}, %[[PL]]
func.func @rows_i64(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<16xi32>
  %8 = arith.constant dense<8> : tensor<16xi32>
  %9 = arith.divsi %5, %8 : tensor<16xi32>
  %10 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %11 = tile.addptr %10, %9 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %12 = arith.constant dense<0> : tensor<16xi32>
  %13 = tile.load %11, %7, %12 : tensor<16x!tile.ptr<i32>>
  %14 = tile.range 0, 32 : tensor<32xi32>
  %15 = tile.expand_dims %13 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %16 = arith.extsi %15 : tensor<16x1xi32> to tensor<16x1xi64>
  %17 = arith.extsi %arg4 : i32 to i64
  %18 = tile.splat %17 : i64 -> tensor<16x1xi64>
  %19 = arith.muli %16, %18 : tensor<16x1xi64>
  %20 = arith.constant dense<8> : tensor<16xi32>
  %21 = arith.remsi %5, %20 : tensor<16xi32>
  %22 = tile.expand_dims %21 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %23 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %24 = arith.muli %22, %23 : tensor<16x1xi32>
  %25 = arith.extsi %24 : tensor<16x1xi32> to tensor<16x1xi64>
  %26 = arith.addi %19, %25 : tensor<16x1xi64>
  %27 = arith.muli %arg7, %arg6 : i32
  %28 = arith.extsi %27 : i32 to i64
  %29 = tile.splat %28 : i64 -> tensor<16x1xi64>
  %30 = arith.addi %26, %29 : tensor<16x1xi64>
  %31 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %32 = tile.broadcast %30 : tensor<16x1xi64> -> tensor<16x32xi64>
  %33 = arith.extsi %31 : tensor<1x32xi32> to tensor<1x32xi64>
  %34 = tile.broadcast %33 : tensor<1x32xi64> -> tensor<16x32xi64>
  %35 = arith.addi %32, %34 : tensor<16x32xi64>
  %36 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %37 = tile.addptr %36, %35 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi64>
  %38 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %39 = tile.broadcast %38 : tensor<16x1xi1> -> tensor<16x32xi1>
  %40 = arith.constant dense<0x0000> : tensor<16x32xf16>
  %41 = tile.load %37, %39, %40 : tensor<16x32x!tile.ptr<f16>>
  %42 = tile.expand_dims %5 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %43 = arith.constant dense<32> : tensor<16x1xi32>
  %44 = arith.muli %42, %43 : tensor<16x1xi32>
  %45 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %46 = tile.addptr %45, %44 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %47 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %48 = tile.broadcast %47 : tensor<1x32xi32> -> tensor<16x32xi32>
  %49 = tile.broadcast %46 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %50 = tile.addptr %49, %48 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %50, %41 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// 32-bit offsets, terms in another order, no widening of the entries.
// CHECK-LABEL: func.func @rows_i32
// CHECK: tile.paged_load %arg0[%arg1, %{{.*}}, %{{.*}}] {page_size = 8 : i32} {{.*}} bound %arg3 : tensor<16x32xf16>
// CHECK-NOT: tile.load
func.func @rows_i32(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<16xi32>
  %8 = arith.constant dense<8> : tensor<16xi32>
  %9 = arith.divsi %5, %8 : tensor<16xi32>
  %10 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %11 = tile.addptr %10, %9 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %12 = arith.constant dense<0> : tensor<16xi32>
  %13 = tile.load %11, %7, %12 : tensor<16x!tile.ptr<i32>>
  %14 = tile.range 0, 32 : tensor<32xi32>
  %15 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %16 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<1x32x!tile.ptr<f16>>
  %17 = tile.addptr %16, %15 : tensor<1x32x!tile.ptr<f16>>, tensor<1x32xi32>
  %18 = arith.constant dense<8> : tensor<16xi32>
  %19 = arith.remsi %5, %18 : tensor<16xi32>
  %20 = tile.expand_dims %19 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %21 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %22 = arith.muli %20, %21 : tensor<16x1xi32>
  %23 = tile.broadcast %22 : tensor<16x1xi32> -> tensor<16x32xi32>
  %24 = tile.broadcast %17 : tensor<1x32x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %25 = tile.addptr %24, %23 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %26 = tile.expand_dims %13 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %27 = tile.splat %arg4 : i32 -> tensor<16x1xi32>
  %28 = arith.muli %26, %27 : tensor<16x1xi32>
  %29 = tile.broadcast %28 : tensor<16x1xi32> -> tensor<16x32xi32>
  %30 = tile.addptr %25, %29 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %31 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %32 = tile.broadcast %31 : tensor<16x1xi1> -> tensor<16x32xi1>
  %33 = arith.constant dense<0x0000> : tensor<16x32xf16>
  %34 = tile.load %30, %32, %33 : tensor<16x32x!tile.ptr<f16>>
  %35 = tile.expand_dims %5 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %36 = arith.constant dense<32> : tensor<16x1xi32>
  %37 = arith.muli %35, %36 : tensor<16x1xi32>
  %38 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %39 = tile.addptr %38, %37 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %40 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %41 = tile.broadcast %40 : tensor<1x32xi32> -> tensor<16x32xi32>
  %42 = tile.broadcast %39 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %43 = tile.addptr %42, %41 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %43, %34 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// K^T read directly ([D, T], tokens along the columns): the paged load
// and a transpose.
// CHECK-LABEL: func.func @cols_kt
// CHECK: %[[PL:.*]] = tile.paged_load {{.*}} : tensor<16x32xf16>
// CHECK: %[[T:.*]] = tile.trans %[[PL]] : tensor<16x32xf16> -> tensor<32x16xf16>
// CHECK-NOT: tile.load
// CHECK: tile.store %{{.*}}, %[[T]]
func.func @cols_kt(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<16xi32>
  %8 = arith.constant dense<8> : tensor<16xi32>
  %9 = arith.divsi %5, %8 : tensor<16xi32>
  %10 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %11 = tile.addptr %10, %9 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %12 = arith.constant dense<0> : tensor<16xi32>
  %13 = tile.load %11, %7, %12 : tensor<16x!tile.ptr<i32>>
  %14 = tile.range 0, 32 : tensor<32xi32>
  %15 = tile.expand_dims %13 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %16 = arith.extsi %15 : tensor<1x16xi32> to tensor<1x16xi64>
  %17 = arith.extsi %arg4 : i32 to i64
  %18 = tile.splat %17 : i64 -> tensor<1x16xi64>
  %19 = arith.muli %16, %18 : tensor<1x16xi64>
  %20 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<1x16x!tile.ptr<f16>>
  %21 = tile.addptr %20, %19 : tensor<1x16x!tile.ptr<f16>>, tensor<1x16xi64>
  %22 = arith.constant dense<8> : tensor<16xi32>
  %23 = arith.remsi %5, %22 : tensor<16xi32>
  %24 = tile.expand_dims %23 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %25 = tile.splat %arg5 : i32 -> tensor<1x16xi32>
  %26 = arith.muli %24, %25 : tensor<1x16xi32>
  %27 = tile.addptr %21, %26 : tensor<1x16x!tile.ptr<f16>>, tensor<1x16xi32>
  %28 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %29 = tile.broadcast %28 : tensor<32x1xi32> -> tensor<32x16xi32>
  %30 = tile.broadcast %27 : tensor<1x16x!tile.ptr<f16>> -> tensor<32x16x!tile.ptr<f16>>
  %31 = tile.addptr %30, %29 : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
  %32 = tile.expand_dims %7 {axis = 0 : i32} : tensor<16xi1> -> tensor<1x16xi1>
  %33 = tile.broadcast %32 : tensor<1x16xi1> -> tensor<32x16xi1>
  %34 = arith.constant dense<0x0000> : tensor<32x16xf16>
  %35 = tile.load %31, %33, %34 : tensor<32x16x!tile.ptr<f16>>
  %36 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %37 = arith.constant dense<1024> : tensor<32x1xi32>
  %38 = arith.muli %36, %37 : tensor<32x1xi32>
  %39 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<32x1x!tile.ptr<f16>>
  %40 = tile.addptr %39, %38 : tensor<32x1x!tile.ptr<f16>>, tensor<32x1xi32>
  %41 = tile.expand_dims %5 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %42 = tile.broadcast %41 : tensor<1x16xi32> -> tensor<32x16xi32>
  %43 = tile.broadcast %40 : tensor<32x1x!tile.ptr<f16>> -> tensor<32x16x!tile.ptr<f16>>
  %44 = tile.addptr %43, %42 : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
  tile.store %44, %35 : tensor<32x16x!tile.ptr<f16>>
  return
}

// -----

// tok >> 3 and tok & 7 for a page of 8; a constant column bound is the
// op's cols.
// CHECK-LABEL: func.func @shifts_and_cols
// CHECK: tile.paged_load {{.*}} {cols = 20 : i32, page_size = 8 : i32} {{.*}} : tensor<16x32xf16>
// CHECK-NOT: tile.load
func.func @shifts_and_cols(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<16xi32>
  %8 = arith.constant dense<3> : tensor<16xi32>
  %9 = arith.shrsi %5, %8 : tensor<16xi32>
  %10 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %11 = tile.addptr %10, %9 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %12 = arith.constant dense<0> : tensor<16xi32>
  %13 = tile.load %11, %7, %12 : tensor<16x!tile.ptr<i32>>
  %14 = tile.range 0, 32 : tensor<32xi32>
  %15 = tile.expand_dims %13 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %16 = arith.extsi %15 : tensor<16x1xi32> to tensor<16x1xi64>
  %17 = arith.extsi %arg4 : i32 to i64
  %18 = tile.splat %17 : i64 -> tensor<16x1xi64>
  %19 = arith.muli %16, %18 : tensor<16x1xi64>
  %20 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %21 = tile.addptr %20, %19 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi64>
  %22 = arith.constant dense<7> : tensor<16xi32>
  %23 = arith.andi %5, %22 : tensor<16xi32>
  %24 = tile.expand_dims %23 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %25 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %26 = arith.muli %24, %25 : tensor<16x1xi32>
  %27 = tile.addptr %21, %26 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %28 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %29 = tile.broadcast %28 : tensor<1x32xi32> -> tensor<16x32xi32>
  %30 = tile.broadcast %27 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %31 = tile.addptr %30, %29 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %32 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %33 = arith.constant dense<20> : tensor<32xi32>
  %34 = arith.cmpi slt, %14, %33 : tensor<32xi32>
  %35 = tile.expand_dims %34 {axis = 0 : i32} : tensor<32xi1> -> tensor<1x32xi1>
  %36 = tile.broadcast %32 : tensor<16x1xi1> -> tensor<16x32xi1>
  %37 = tile.broadcast %35 : tensor<1x32xi1> -> tensor<16x32xi1>
  %38 = arith.andi %36, %37 : tensor<16x32xi1>
  %39 = arith.constant dense<0x0000> : tensor<16x32xf16>
  %40 = tile.load %31, %38, %39 : tensor<16x32x!tile.ptr<f16>>
  %41 = tile.expand_dims %5 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %42 = arith.constant dense<32> : tensor<16x1xi32>
  %43 = arith.muli %41, %42 : tensor<16x1xi32>
  %44 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %45 = tile.addptr %44, %43 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %46 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %47 = tile.broadcast %46 : tensor<1x32xi32> -> tensor<16x32xi32>
  %48 = tile.broadcast %45 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %49 = tile.addptr %48, %47 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %49, %40 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// A nonzero `other` comes back through a select on the load's mask.
// CHECK-LABEL: func.func @other_value
// CHECK: %[[PL:.*]] = tile.paged_load
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[PL]], %{{.*}} : tensor<16x32xi1>, tensor<16x32xf16>
// CHECK: tile.store %{{.*}}, %[[S]]
func.func @other_value(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<16xi32>
  %8 = arith.constant dense<8> : tensor<16xi32>
  %9 = arith.divsi %5, %8 : tensor<16xi32>
  %10 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %11 = tile.addptr %10, %9 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %12 = arith.constant dense<0> : tensor<16xi32>
  %13 = tile.load %11, %7, %12 : tensor<16x!tile.ptr<i32>>
  %14 = tile.range 0, 32 : tensor<32xi32>
  %15 = tile.expand_dims %13 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %16 = arith.extsi %15 : tensor<16x1xi32> to tensor<16x1xi64>
  %17 = arith.extsi %arg4 : i32 to i64
  %18 = tile.splat %17 : i64 -> tensor<16x1xi64>
  %19 = arith.muli %16, %18 : tensor<16x1xi64>
  %20 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %21 = tile.addptr %20, %19 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi64>
  %22 = arith.constant dense<8> : tensor<16xi32>
  %23 = arith.remsi %5, %22 : tensor<16xi32>
  %24 = tile.expand_dims %23 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %25 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %26 = arith.muli %24, %25 : tensor<16x1xi32>
  %27 = tile.addptr %21, %26 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %28 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %29 = tile.broadcast %28 : tensor<1x32xi32> -> tensor<16x32xi32>
  %30 = tile.broadcast %27 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %31 = tile.addptr %30, %29 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %32 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %33 = tile.broadcast %32 : tensor<16x1xi1> -> tensor<16x32xi1>
  %34 = arith.constant dense<0xC000> : tensor<16x32xf16>
  %35 = tile.load %31, %33, %34 : tensor<16x32x!tile.ptr<f16>>
  %36 = tile.expand_dims %5 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %37 = arith.constant dense<32> : tensor<16x1xi32>
  %38 = arith.muli %36, %37 : tensor<16x1xi32>
  %39 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %40 = tile.addptr %39, %38 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %41 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %42 = tile.broadcast %41 : tensor<1x32xi32> -> tensor<16x32xi32>
  %43 = tile.broadcast %40 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %44 = tile.addptr %43, %42 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %44, %35 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// No masks: every token of the tile is read, the bound is start + T.
// CHECK-LABEL: func.func @unmasked
// CHECK: %[[START:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: %[[END:.*]] = arith.addi %[[START]], %{{.*}} : i32
// CHECK: tile.paged_load {{.*}}[%arg1, %[[START]], %{{.*}}] {{.*}} bound %[[END]]
// CHECK-NOT: tile.load
func.func @unmasked(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = arith.constant dense<8> : tensor<16xi32>
  %7 = arith.divsi %5, %6 : tensor<16xi32>
  %8 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %9 = tile.addptr %8, %7 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %10 = tile.load %9 : tensor<16x!tile.ptr<i32>>
  %11 = tile.range 0, 32 : tensor<32xi32>
  %12 = tile.expand_dims %10 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %13 = arith.extsi %12 : tensor<16x1xi32> to tensor<16x1xi64>
  %14 = arith.extsi %arg4 : i32 to i64
  %15 = tile.splat %14 : i64 -> tensor<16x1xi64>
  %16 = arith.muli %13, %15 : tensor<16x1xi64>
  %17 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %18 = tile.addptr %17, %16 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi64>
  %19 = arith.constant dense<8> : tensor<16xi32>
  %20 = arith.remsi %5, %19 : tensor<16xi32>
  %21 = tile.expand_dims %20 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %22 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %23 = arith.muli %21, %22 : tensor<16x1xi32>
  %24 = tile.addptr %18, %23 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %25 = tile.expand_dims %11 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %26 = tile.broadcast %25 : tensor<1x32xi32> -> tensor<16x32xi32>
  %27 = tile.broadcast %24 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %28 = tile.addptr %27, %26 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %29 = tile.load %28 : tensor<16x32x!tile.ptr<f16>>
  %30 = tile.expand_dims %5 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %31 = arith.constant dense<32> : tensor<16x1xi32>
  %32 = arith.muli %30, %31 : tensor<16x1xi32>
  %33 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %34 = tile.addptr %33, %32 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %35 = tile.expand_dims %11 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %36 = tile.broadcast %35 : tensor<1x32xi32> -> tensor<16x32xi32>
  %37 = tile.broadcast %34 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %38 = tile.addptr %37, %36 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %38, %29 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// In a loop over tokens the induction variable is the first token.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %arg3 step %{{.*}} iter_args
// CHECK:   tile.paged_load %arg0[%arg1, %[[IV]], %{{.*}}] {page_size = 8 : i32} {{.*}} bound %arg3 : tensor<16x32xf16>
// CHECK-NOT: tile.load
func.func @in_loop(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.kernel} {
  %0 = tile.range 0, 32 : tensor<32xi32>
  %1 = arith.constant dense<0x00000000> : tensor<32xf32>
  %2 = arith.constant 0 : i32
  %3 = arith.constant 16 : i32
  %41 = scf.for %4 = %2 to %arg3 step %3 iter_args(%5 = %1) -> (tensor<32xf32>) : i32 {
    %6 = tile.range 0, 16 : tensor<16xi32>
    %7 = tile.splat %4 : i32 -> tensor<16xi32>
    %8 = arith.addi %7, %6 : tensor<16xi32>
    %9 = tile.splat %arg3 : i32 -> tensor<16xi32>
    %10 = arith.cmpi slt, %8, %9 : tensor<16xi32>
    %11 = arith.constant dense<8> : tensor<16xi32>
    %12 = arith.divsi %8, %11 : tensor<16xi32>
    %13 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
    %14 = tile.addptr %13, %12 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
    %15 = arith.constant dense<0> : tensor<16xi32>
    %16 = tile.load %14, %10, %15 : tensor<16x!tile.ptr<i32>>
    %17 = tile.expand_dims %16 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %18 = arith.extsi %17 : tensor<16x1xi32> to tensor<16x1xi64>
    %19 = arith.extsi %arg4 : i32 to i64
    %20 = tile.splat %19 : i64 -> tensor<16x1xi64>
    %21 = arith.muli %18, %20 : tensor<16x1xi64>
    %22 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
    %23 = tile.addptr %22, %21 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi64>
    %24 = arith.constant dense<8> : tensor<16xi32>
    %25 = arith.remsi %8, %24 : tensor<16xi32>
    %26 = tile.expand_dims %25 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %27 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
    %28 = arith.muli %26, %27 : tensor<16x1xi32>
    %29 = tile.addptr %23, %28 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
    %30 = tile.expand_dims %0 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %31 = tile.broadcast %30 : tensor<1x32xi32> -> tensor<16x32xi32>
    %32 = tile.broadcast %29 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
    %33 = tile.addptr %32, %31 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %34 = tile.expand_dims %10 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
    %35 = tile.broadcast %34 : tensor<16x1xi1> -> tensor<16x32xi1>
    %36 = arith.constant dense<0x0000> : tensor<16x32xf16>
    %37 = tile.load %33, %35, %36 : tensor<16x32x!tile.ptr<f16>>
    %38 = arith.extf %37 : tensor<16x32xf16> to tensor<16x32xf32>
    %39 = tile.reduce sum %38 {axis = 0 : i32} : tensor<16x32xf32> -> tensor<32xf32>
    %40 = arith.addf %5, %39 : tensor<32xf32>
    scf.yield %40 : tensor<32xf32>
  }
  %42 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %43 = tile.addptr %42, %0 : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  %44 = arith.truncf %41 : tensor<32xf32> to tensor<32xf16>
  tile.store %43, %44 : tensor<32x!tile.ptr<f16>>
  return
}

// -----

// The page index written as a whole number of pages plus the tile's own
// (start // 8 + j // 8, start a multiple of 16), the slot as j % 8 and the
// entries read per page (page * 8 < len): what quire-forward-stores makes
// of a scratch-buffer kernel. The tile's tokens are (start // 8) * 8 + j,
// which is start + j: the op's first token is start, its bound the length.
// CHECK-LABEL: func.func @pages_ahead
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[START:.*]] = arith.muli %[[PID]], %c16_i32_{{[0-9]+}} : i32
// CHECK: tile.paged_load %arg0[%arg1, %[[START]], %{{.*}}] {page_size = 8 : i32} {{.*}} bound %arg3 : tensor<16x32xf16>
// CHECK-NOT: tile.load
func.func @pages_ahead(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<16xi32>
  %8 = arith.constant 8 : i32
  %9 = arith.divsi %2, %8 : i32
  %10 = arith.constant dense<8> : tensor<16xi32>
  %11 = arith.divsi %3, %10 : tensor<16xi32>
  %12 = tile.splat %9 : i32 -> tensor<16xi32>
  %13 = arith.addi %12, %11 : tensor<16xi32>
  %14 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %15 = tile.addptr %14, %13 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %16 = arith.constant dense<8> : tensor<16xi32>
  %17 = arith.muli %13, %16 : tensor<16xi32>
  %18 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %19 = arith.cmpi slt, %17, %18 : tensor<16xi32>
  %20 = arith.constant dense<0> : tensor<16xi32>
  %21 = tile.load %15, %19, %20 : tensor<16x!tile.ptr<i32>>
  %22 = tile.range 0, 32 : tensor<32xi32>
  %23 = tile.expand_dims %21 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %24 = arith.extsi %23 : tensor<16x1xi32> to tensor<16x1xi64>
  %25 = arith.extsi %arg4 : i32 to i64
  %26 = tile.splat %25 : i64 -> tensor<16x1xi64>
  %27 = arith.muli %24, %26 : tensor<16x1xi64>
  %28 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %29 = tile.addptr %28, %27 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi64>
  %30 = arith.constant dense<8> : tensor<16xi32>
  %31 = arith.remsi %3, %30 : tensor<16xi32>
  %32 = tile.expand_dims %31 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %33 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %34 = arith.muli %32, %33 : tensor<16x1xi32>
  %35 = tile.addptr %29, %34 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %36 = tile.expand_dims %22 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %37 = tile.broadcast %36 : tensor<1x32xi32> -> tensor<16x32xi32>
  %38 = tile.broadcast %35 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %39 = tile.addptr %38, %37 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %40 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %41 = tile.broadcast %40 : tensor<16x1xi1> -> tensor<16x32xi1>
  %42 = arith.constant dense<0x0000> : tensor<16x32xf16>
  %43 = tile.load %39, %41, %42 : tensor<16x32x!tile.ptr<f16>>
  %44 = tile.splat %2 : i32 -> tensor<16xi32>
  %45 = arith.addi %44, %3 : tensor<16xi32>
  %46 = tile.expand_dims %45 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %47 = arith.constant dense<32> : tensor<16x1xi32>
  %48 = arith.muli %46, %47 : tensor<16x1xi32>
  %49 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %50 = tile.addptr %49, %48 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %51 = tile.expand_dims %22 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %52 = tile.broadcast %51 : tensor<1x32xi32> -> tensor<16x32xi32>
  %53 = tile.broadcast %50 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %54 = tile.addptr %53, %52 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %54, %43 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// The same with start = pid * 16 + 4, not a multiple of the page: the
// tile's tokens (start // 8) * 8 + j begin 4 before start + j, on which the
// mask is written, so the bound moves by the difference.
// CHECK-LABEL: func.func @pages_ahead_unaligned_start
// CHECK: %[[Q:.*]] = arith.divsi %{{.*}}, %c8_i32 : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[Q]], %{{.*}} : i32
// CHECK: %[[B:.*]] = arith.addi %{{.*}}, %c-4_i32 : i32
// CHECK: tile.paged_load %arg0[%arg1, %[[FIRST]], %{{.*}}] {page_size = 8 : i32} {{.*}} bound %[[B]] : tensor<16x32xf16>
// CHECK-NOT: tile.load
func.func @pages_ahead_unaligned_start(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %c4 = arith.constant 4 : i32
  %p16 = arith.muli %0, %1 : i32
  %2 = arith.addi %p16, %c4 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<16xi32>
  %8 = arith.constant 8 : i32
  %9 = arith.divsi %2, %8 : i32
  %10 = arith.constant dense<8> : tensor<16xi32>
  %11 = arith.divsi %3, %10 : tensor<16xi32>
  %12 = tile.splat %9 : i32 -> tensor<16xi32>
  %13 = arith.addi %12, %11 : tensor<16xi32>
  %14 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %15 = tile.addptr %14, %13 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %16 = arith.constant dense<8> : tensor<16xi32>
  %17 = arith.muli %13, %16 : tensor<16xi32>
  %18 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %19 = arith.cmpi slt, %17, %18 : tensor<16xi32>
  %20 = arith.constant dense<0> : tensor<16xi32>
  %21 = tile.load %15, %19, %20 : tensor<16x!tile.ptr<i32>>
  %22 = tile.range 0, 32 : tensor<32xi32>
  %23 = tile.expand_dims %21 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %24 = arith.extsi %23 : tensor<16x1xi32> to tensor<16x1xi64>
  %25 = arith.extsi %arg4 : i32 to i64
  %26 = tile.splat %25 : i64 -> tensor<16x1xi64>
  %27 = arith.muli %24, %26 : tensor<16x1xi64>
  %28 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %29 = tile.addptr %28, %27 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi64>
  %30 = arith.constant dense<8> : tensor<16xi32>
  %31 = arith.remsi %3, %30 : tensor<16xi32>
  %32 = tile.expand_dims %31 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %33 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %34 = arith.muli %32, %33 : tensor<16x1xi32>
  %35 = tile.addptr %29, %34 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %36 = tile.expand_dims %22 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %37 = tile.broadcast %36 : tensor<1x32xi32> -> tensor<16x32xi32>
  %38 = tile.broadcast %35 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %39 = tile.addptr %38, %37 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %40 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %41 = tile.broadcast %40 : tensor<16x1xi1> -> tensor<16x32xi1>
  %42 = arith.constant dense<0x0000> : tensor<16x32xf16>
  %43 = tile.load %39, %41, %42 : tensor<16x32x!tile.ptr<f16>>
  %44 = tile.splat %2 : i32 -> tensor<16xi32>
  %45 = arith.addi %44, %3 : tensor<16xi32>
  %46 = tile.expand_dims %45 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %47 = arith.constant dense<32> : tensor<16x1xi32>
  %48 = arith.muli %46, %47 : tensor<16x1xi32>
  %49 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %50 = tile.addptr %49, %48 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %51 = tile.expand_dims %22 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %52 = tile.broadcast %51 : tensor<1x32xi32> -> tensor<16x32xi32>
  %53 = tile.broadcast %50 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %54 = tile.addptr %53, %52 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %54, %43 : tensor<16x32x!tile.ptr<f16>>
  return
}
