// RUN: quire-opt %s --split-input-file --canonicalize --cse --quire-raise-paged-loads | FileCheck %s

// Near misses quire-raise-paged-loads leaves alone (each a variant of the
// accepted forms in raise-paged-loads.mlir).

// Left alone: the page size is a run-time value.
// CHECK-LABEL: func.func @page_not_constant
// CHECK-NOT: tile.paged_load
// CHECK: return
func.func @page_not_constant(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = tile.splat %2 : i32 -> tensor<16xi32>
  %5 = arith.addi %4, %3 : tensor<16xi32>
  %6 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<16xi32>
  %8 = tile.splat %arg6 : i32 -> tensor<16xi32>
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
  %22 = tile.splat %arg6 : i32 -> tensor<16xi32>
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
  %34 = arith.constant dense<0x0000> : tensor<16x32xf16>
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

// Left alone: the tokens are start + 2 * range: not one row per token.
// CHECK-LABEL: func.func @tokens_not_affine
// CHECK-NOT: tile.paged_load
// CHECK: return
func.func @tokens_not_affine(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = arith.constant 16 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tile.range 0, 16 : tensor<16xi32>
  %4 = arith.constant dense<2> : tensor<16xi32>
  %5 = arith.muli %3, %4 : tensor<16xi32>
  %6 = tile.splat %2 : i32 -> tensor<16xi32>
  %7 = arith.addi %6, %5 : tensor<16xi32>
  %8 = tile.splat %arg3 : i32 -> tensor<16xi32>
  %9 = arith.cmpi slt, %7, %8 : tensor<16xi32>
  %10 = arith.constant dense<8> : tensor<16xi32>
  %11 = arith.divsi %7, %10 : tensor<16xi32>
  %12 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %13 = tile.addptr %12, %11 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %14 = arith.constant dense<0> : tensor<16xi32>
  %15 = tile.load %13, %9, %14 : tensor<16x!tile.ptr<i32>>
  %16 = tile.range 0, 32 : tensor<32xi32>
  %17 = tile.expand_dims %15 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %18 = arith.extsi %17 : tensor<16x1xi32> to tensor<16x1xi64>
  %19 = arith.extsi %arg4 : i32 to i64
  %20 = tile.splat %19 : i64 -> tensor<16x1xi64>
  %21 = arith.muli %18, %20 : tensor<16x1xi64>
  %22 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %23 = tile.addptr %22, %21 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi64>
  %24 = arith.constant dense<8> : tensor<16xi32>
  %25 = arith.remsi %7, %24 : tensor<16xi32>
  %26 = tile.expand_dims %25 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %27 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %28 = arith.muli %26, %27 : tensor<16x1xi32>
  %29 = tile.addptr %23, %28 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %30 = tile.expand_dims %16 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %31 = tile.broadcast %30 : tensor<1x32xi32> -> tensor<16x32xi32>
  %32 = tile.broadcast %29 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %33 = tile.addptr %32, %31 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %34 = tile.expand_dims %9 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %35 = tile.broadcast %34 : tensor<16x1xi1> -> tensor<16x32xi1>
  %36 = arith.constant dense<0x0000> : tensor<16x32xf16>
  %37 = tile.load %33, %35, %36 : tensor<16x32x!tile.ptr<f16>>
  %38 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %39 = arith.constant dense<32> : tensor<16x1xi32>
  %40 = arith.muli %38, %39 : tensor<16x1xi32>
  %41 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %42 = tile.addptr %41, %40 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %43 = tile.expand_dims %16 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %44 = tile.broadcast %43 : tensor<1x32xi32> -> tensor<16x32xi32>
  %45 = tile.broadcast %42 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %46 = tile.addptr %45, %44 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %46, %37 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// Left alone: the column mask has a run-time bound (cols must be a constant).
// CHECK-LABEL: func.func @runtime_column_mask
// CHECK-NOT: tile.paged_load
// CHECK: return
func.func @runtime_column_mask(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.kernel} {
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
  %33 = tile.splat %arg6 : i32 -> tensor<32xi32>
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

// Left alone: the kernel stores to the block table.
// CHECK-LABEL: func.func @block_table_stored
// CHECK-NOT: tile.paged_load
// CHECK: return
func.func @block_table_stored(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
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
  %12 = arith.constant dense<8> : tensor<16xi32>
  %13 = arith.divsi %5, %12 : tensor<16xi32>
  tile.store %11, %13, %7 : tensor<16x!tile.ptr<i32>>
  %14 = arith.constant dense<8> : tensor<16xi32>
  %15 = arith.divsi %5, %14 : tensor<16xi32>
  %16 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %17 = tile.addptr %16, %15 : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %18 = arith.constant dense<0> : tensor<16xi32>
  %19 = tile.load %17, %7, %18 : tensor<16x!tile.ptr<i32>>
  %20 = tile.range 0, 32 : tensor<32xi32>
  %21 = tile.expand_dims %19 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %22 = arith.extsi %21 : tensor<16x1xi32> to tensor<16x1xi64>
  %23 = arith.extsi %arg4 : i32 to i64
  %24 = tile.splat %23 : i64 -> tensor<16x1xi64>
  %25 = arith.muli %22, %24 : tensor<16x1xi64>
  %26 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %27 = tile.addptr %26, %25 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi64>
  %28 = arith.constant dense<8> : tensor<16xi32>
  %29 = arith.remsi %5, %28 : tensor<16xi32>
  %30 = tile.expand_dims %29 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %31 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %32 = arith.muli %30, %31 : tensor<16x1xi32>
  %33 = tile.addptr %27, %32 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %34 = tile.expand_dims %20 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %35 = tile.broadcast %34 : tensor<1x32xi32> -> tensor<16x32xi32>
  %36 = tile.broadcast %33 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %37 = tile.addptr %36, %35 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %38 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %39 = tile.broadcast %38 : tensor<16x1xi1> -> tensor<16x32xi1>
  %40 = arith.constant dense<0x0000> : tensor<16x32xf16>
  %41 = tile.load %37, %39, %40 : tensor<16x32x!tile.ptr<f16>>
  %42 = tile.expand_dims %5 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %43 = arith.constant dense<32> : tensor<16x1xi32>
  %44 = arith.muli %42, %43 : tensor<16x1xi32>
  %45 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %46 = tile.addptr %45, %44 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %47 = tile.expand_dims %20 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %48 = tile.broadcast %47 : tensor<1x32xi32> -> tensor<16x32xi32>
  %49 = tile.broadcast %46 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %50 = tile.addptr %49, %48 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %50, %41 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// Left alone: the columns are strided by 2.
// CHECK-LABEL: func.func @column_stride
// CHECK-NOT: tile.paged_load
// CHECK: return
func.func @column_stride(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
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
  %29 = arith.constant dense<2> : tensor<1x32xi32>
  %30 = arith.muli %28, %29 : tensor<1x32xi32>
  %31 = tile.broadcast %30 : tensor<1x32xi32> -> tensor<16x32xi32>
  %32 = tile.broadcast %27 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %33 = tile.addptr %32, %31 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %34 = tile.expand_dims %7 {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %35 = tile.broadcast %34 : tensor<16x1xi1> -> tensor<16x32xi1>
  %36 = arith.constant dense<0x0000> : tensor<16x32xf16>
  %37 = tile.load %33, %35, %36 : tensor<16x32x!tile.ptr<f16>>
  %38 = tile.expand_dims %5 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %39 = arith.constant dense<32> : tensor<16x1xi32>
  %40 = arith.muli %38, %39 : tensor<16x1xi32>
  %41 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %42 = tile.addptr %41, %40 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %43 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %44 = tile.broadcast %43 : tensor<1x32xi32> -> tensor<16x32xi32>
  %45 = tile.broadcast %42 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %46 = tile.addptr %45, %44 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %46, %37 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// Left alone: the block table is read under a bound the tile's rows are not: raising would read entries the kernel does not.
// CHECK-LABEL: func.func @table_masked_tile_not
// CHECK-NOT: tile.paged_load
// CHECK: return
func.func @table_masked_tile_not(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<f16>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
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
  %32 = tile.load %31 : tensor<16x32x!tile.ptr<f16>>
  %33 = tile.expand_dims %5 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %34 = arith.constant dense<32> : tensor<16x1xi32>
  %35 = arith.muli %33, %34 : tensor<16x1xi32>
  %36 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %37 = tile.addptr %36, %35 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %38 = tile.expand_dims %14 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %39 = tile.broadcast %38 : tensor<1x32xi32> -> tensor<16x32xi32>
  %40 = tile.broadcast %37 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %41 = tile.addptr %40, %39 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  tile.store %41, %32 : tensor<16x32x!tile.ptr<f16>>
  return
}

// -----

// Entries read per page under another bound than the tile's tokens
// (page * 8 < len + 8): the op would read fewer entries, but the original
// reads entries the op never would, so it is left as written.
// CHECK-LABEL: func.func @pages_ahead_table_bound_differs
// CHECK-NOT: tile.paged_load
func.func @pages_ahead_table_bound_differs(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32) attributes {tile.kernel} {
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
  %len8 = arith.addi %arg3, %8 : i32
  %18 = tile.splat %len8 : i32 -> tensor<16xi32>
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
