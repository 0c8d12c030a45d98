// A loop-invariant register A operand of a wgmma dot (attention's query)
// moves to shared memory in every loop: the consumer loops of
// quire-warp-specialize (both forms), which moves it after the split, and
// the loops quire-async-copies stages, with cp.async or TMA. The query is
// stored once before the loop (tile.local_store into a one-stage buffer)
// and the scores dot reads it from there (a_stage, a_stages = 1); P,
// computed in the loop, stays the register A of P V. ptxas has been seen
// to hand such long-lived A registers to other values inside loops that
// spin on an mbarrier and inside loops that wait on cp.async groups
// (docs/passes.md, "Loop-invariant A operands of wgmma loops").
// Dense attention, one loop over 128-key tiles, 8 warps, sm_90.
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 warp-specialize=true" | FileCheck %s
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 warp-specialize=true producer-warpgroup=true" | FileCheck %s
// RUN: quirec %s --sm 90 --num-warps 8 --warp-specialize --producer-warpgroup -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// Loops that wait on cp.async groups (no producer warps) read it from
// shared memory too.
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8" | FileCheck %s --check-prefix=CPASYNC

// CHECK-LABEL: func.func @dense_attention
// CHECK-NOT:   tile.local_store
// CHECK:       tile.is_producer
// CHECK-NOT:   tile.local_store
// CHECK:       } else {
// CHECK:         tile.local_store %{{.*}} into stage %[[C0:.*]] {buffer = 2 : i32, contig = 1 : i32, nvmma, stages = 1 : i32}
// CHECK:         scf.for
// CHECK:           tile.tma_wait
// CHECK-NEXT:      tile.warpgroup_dot a_stage %[[C0]] b_stage {{.*}}a_buffer = 2 : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0
// CHECK:           tile.tma_wait
// CHECK-NEXT:      tile.warpgroup_dot a(
// CHECK-NOT:     tile.convert_layout {{.*}}opIdx = 0
// PTXAS-NOT: error

// CPASYNC-LABEL: func.func @dense_attention
// CPASYNC:       tile.local_store %{{.*}} into stage %[[C0:.*]] {buffer = 2 : i32, contig = 1 : i32, nvmma, stages = 1 : i32}
// CPASYNC:       scf.for
// CPASYNC:         tile.async_wait
// CPASYNC:         tile.warpgroup_dot a_stage %[[C0]] b_stage {{.*}}a_buffer = 2 : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0
// CPASYNC:         tile.warpgroup_dot a(
// CPASYNC-NOT:   tile.convert_layout {{.*}}opIdx = 0

func.func @dense_attention(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: f32) attributes {tile.kernel} {
  %0 = tile.program_id x
  %1 = tile.program_id y
  %2 = tile.range 0, 128 : tensor<128xi32>
  %3 = tile.range 0, 128 : tensor<128xi32>
  %4 = tile.range 0, 128 : tensor<128xi32>
  %5 = arith.muli %1, %arg4 : i32
  %6 = arith.constant 128 : i32
  %7 = arith.muli %0, %6 : i32
  %8 = arith.addi %5, %7 : i32
  %9 = arith.extsi %8 : i32 to i64
  %10 = arith.constant 128 : i64
  %11 = arith.muli %9, %10 : i64
  %12 = tile.addptr %arg0, %11 : !tile.ptr<f16>, i64
  %13 = tile.expand_dims %2 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %14 = arith.constant dense<128> : tensor<128x1xi32>
  %15 = arith.muli %13, %14 : tensor<128x1xi32>
  %16 = tile.splat %12 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>>
  %17 = tile.addptr %16, %15 : tensor<128x1x!tile.ptr<f16>>, tensor<128x1xi32>
  %18 = tile.expand_dims %4 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %19 = tile.broadcast %18 : tensor<1x128xi32> -> tensor<128x128xi32>
  %20 = tile.broadcast %17 : tensor<128x1x!tile.ptr<f16>> -> tensor<128x128x!tile.ptr<f16>>
  %21 = tile.addptr %20, %19 : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
  %22 = tile.load %21 : tensor<128x128x!tile.ptr<f16>>
  %23 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %24 = arith.constant dense<0x00000000> : tensor<128xf32>
  %25 = arith.constant dense<0x00000000> : tensor<128x128xf32>
  %26 = arith.muli %1, %arg4 : i32
  %27 = arith.extsi %26 : i32 to i64
  %28 = arith.constant 128 : i64
  %29 = arith.muli %27, %28 : i64
  %30 = tile.addptr %arg2, %29 : !tile.ptr<f16>, i64
  %31 = arith.muli %1, %arg4 : i32
  %32 = arith.extsi %31 : i32 to i64
  %33 = arith.constant 128 : i64
  %34 = arith.muli %32, %33 : i64
  %35 = tile.addptr %arg3, %34 : !tile.ptr<f16>, i64
  %36 = arith.constant 0 : i32
  %37 = arith.constant 128 : i32
  %89:3 = scf.for %38 = %36 to %arg4 step %37 iter_args(%39 = %23, %40 = %24, %41 = %25) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) : i32 {
    %42 = tile.expand_dims %3 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %43 = tile.splat %38 : i32 -> tensor<128x1xi32>
    %44 = arith.addi %43, %42 : tensor<128x1xi32>
    %45 = arith.constant dense<128> : tensor<128x1xi32>
    %46 = arith.muli %44, %45 : tensor<128x1xi32>
    %47 = tile.splat %30 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>>
    %48 = tile.addptr %47, %46 : tensor<128x1x!tile.ptr<f16>>, tensor<128x1xi32>
    %49 = tile.expand_dims %4 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %50 = tile.broadcast %49 : tensor<1x128xi32> -> tensor<128x128xi32>
    %51 = tile.broadcast %48 : tensor<128x1x!tile.ptr<f16>> -> tensor<128x128x!tile.ptr<f16>>
    %52 = tile.addptr %51, %50 : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
    %53 = tile.load %52 : tensor<128x128x!tile.ptr<f16>>
    %54 = tile.trans %53 : tensor<128x128xf16> -> tensor<128x128xf16>
    %55 = arith.constant dense<0x00000000> : tensor<128x128xf32>
    %56 = tile.dot %22, %54, %55 : tensor<128x128xf16> * tensor<128x128xf16> -> tensor<128x128xf32>
    %57 = tile.reduce max %56 {axis = 1 : i32} : tensor<128x128xf32> -> tensor<128xf32>
    %58 = tile.splat %arg5 : f32 -> tensor<128xf32>
    %59 = arith.mulf %57, %58 : tensor<128xf32>
    %60 = arith.maxnumf %39, %59 : tensor<128xf32>
    %61 = tile.splat %arg5 : f32 -> tensor<128x128xf32>
    %62 = arith.mulf %56, %61 : tensor<128x128xf32>
    %63 = tile.expand_dims %60 {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %64 = tile.broadcast %63 : tensor<128x1xf32> -> tensor<128x128xf32>
    %65 = arith.subf %62, %64 : tensor<128x128xf32>
    %66 = math.exp2 %65 : tensor<128x128xf32>
    %67 = arith.subf %39, %60 : tensor<128xf32>
    %68 = math.exp2 %67 : tensor<128xf32>
    %69 = arith.mulf %40, %68 : tensor<128xf32>
    %70 = tile.reduce sum %66 {axis = 1 : i32} : tensor<128x128xf32> -> tensor<128xf32>
    %71 = arith.addf %69, %70 : tensor<128xf32>
    %72 = tile.expand_dims %3 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %73 = tile.splat %38 : i32 -> tensor<128x1xi32>
    %74 = arith.addi %73, %72 : tensor<128x1xi32>
    %75 = arith.constant dense<128> : tensor<128x1xi32>
    %76 = arith.muli %74, %75 : tensor<128x1xi32>
    %77 = tile.splat %35 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>>
    %78 = tile.addptr %77, %76 : tensor<128x1x!tile.ptr<f16>>, tensor<128x1xi32>
    %79 = tile.expand_dims %4 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %80 = tile.broadcast %79 : tensor<1x128xi32> -> tensor<128x128xi32>
    %81 = tile.broadcast %78 : tensor<128x1x!tile.ptr<f16>> -> tensor<128x128x!tile.ptr<f16>>
    %82 = tile.addptr %81, %80 : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
    %83 = tile.load %82 : tensor<128x128x!tile.ptr<f16>>
    %84 = arith.truncf %66 : tensor<128x128xf32> to tensor<128x128xf16>
    %85 = tile.expand_dims %68 {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %86 = tile.broadcast %85 : tensor<128x1xf32> -> tensor<128x128xf32>
    %87 = arith.mulf %41, %86 : tensor<128x128xf32>
    %88 = tile.dot %84, %83, %87 : tensor<128x128xf16> * tensor<128x128xf16> -> tensor<128x128xf32>
    scf.yield %60, %71, %88 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
  }
  %90 = tile.expand_dims %89#1 {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %91 = tile.broadcast %90 : tensor<128x1xf32> -> tensor<128x128xf32>
  %92 = arith.divf %89#2, %91 fastmath<arcp> : tensor<128x128xf32>
  %93 = tile.addptr %arg1, %11 : !tile.ptr<f16>, i64
  %94 = tile.expand_dims %2 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %95 = arith.constant dense<128> : tensor<128x1xi32>
  %96 = arith.muli %94, %95 : tensor<128x1xi32>
  %97 = tile.splat %93 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>>
  %98 = tile.addptr %97, %96 : tensor<128x1x!tile.ptr<f16>>, tensor<128x1xi32>
  %99 = tile.expand_dims %4 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %100 = tile.broadcast %99 : tensor<1x128xi32> -> tensor<128x128xi32>
  %101 = tile.broadcast %98 : tensor<128x1x!tile.ptr<f16>> -> tensor<128x128x!tile.ptr<f16>>
  %102 = tile.addptr %101, %100 : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
  %103 = arith.truncf %92 : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %102, %103 : tensor<128x128x!tile.ptr<f16>>
  return
}
// end
