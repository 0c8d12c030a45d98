// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 tma-release=true warp-specialize=true" | FileCheck %s
// quire-warp-specialize leaves a kernel as quire-async-copies made it when
// splitting it off would be wrong: a store (and a barrier) before the loop
// would no longer come before the producer's copies, and a reduction of a
// tensor (shared memory, barriers) cannot run in the producer warp before
// the split. (The split itself: async-copies-tma.mlir, WS prefixes.)

// CHECK-LABEL: func.func @store_before_the_loop
// CHECK-NOT:     tile.is_producer
// CHECK:         tile.tma_acquire
func.func @store_before_the_loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %m: i32 {tile.divisibility = 16 : i32},
                  %k: i32 {tile.divisibility = 16 : i32}, %lda: i64 {tile.divisibility = 16 : i32},
                  %tma: !tile.tensormap,
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %k2: i32 {tile.divisibility = 16 : i32},
                  %n: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32},
                  %tmb: !tile.tensormap,
                  %c: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %ldc: i64 {tile.divisibility = 16 : i32})
    attributes {tile.kernel} {
  %c1_i64 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %da = tile.make_descriptor %a, shape [%m, %k], strides [%lda, %c1_i64], tensormap %tma
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
  %db = tile.make_descriptor %b, shape [%k2, %n], strides [%ldb, %c1_i64], tensormap %tmb
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x128xf16>>
  %dc = tile.make_descriptor %c, shape [%m, %n], strides [%ldc, %c1_i64]
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x128xf16>>
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %kt = arith.divsi %k, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %one = arith.constant 1.0 : f16
  tile.store %a, %one : !tile.ptr<f16>
  tile.barrier
  %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32>) : i32 {
    %k0 = arith.muli %i, %c64 : i32
    %x = tile.descriptor_load %da[%m0, %k0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %y = tile.descriptor_load %db[%k0, %n0] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc0 : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.descriptor_store %dc[%m0, %n0], %h : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
  return
}

// -----

// CHECK-LABEL: func.func @bound_from_a_reduction
// CHECK-NOT:     tile.is_producer
// CHECK:         tile.tma_acquire
func.func @bound_from_a_reduction(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %m: i32 {tile.divisibility = 16 : i32},
                  %k: i32 {tile.divisibility = 16 : i32}, %lda: i64 {tile.divisibility = 16 : i32},
                  %tma: !tile.tensormap,
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %k2: i32 {tile.divisibility = 16 : i32},
                  %n: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32},
                  %tmb: !tile.tensormap,
                  %c: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %ldc: i64 {tile.divisibility = 16 : i32})
    attributes {tile.kernel} {
  %c1_i64 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %da = tile.make_descriptor %a, shape [%m, %k], strides [%lda, %c1_i64], tensormap %tma
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
  %db = tile.make_descriptor %b, shape [%k2, %n], strides [%ldb, %c1_i64], tensormap %tmb
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x128xf16>>
  %dc = tile.make_descriptor %c, shape [%m, %n], strides [%ldc, %c1_i64]
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x128xf16>>
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %kq = arith.divsi %k, %c64 : i32
  %r = tile.range 0, 256 : tensor<256xi32>
  %kqs = tile.splat %kq : i32 -> tensor<256xi32>
  %lim = arith.minsi %r, %kqs : tensor<256xi32>
  %kt = tile.reduce max %lim {axis = 0 : i32} : tensor<256xi32> -> i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32>) : i32 {
    %k0 = arith.muli %i, %c64 : i32
    %x = tile.descriptor_load %da[%m0, %k0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %y = tile.descriptor_load %db[%k0, %n0] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc0 : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.descriptor_store %dc[%m0, %n0], %h : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
  return
}
