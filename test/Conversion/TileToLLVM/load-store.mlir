// RUN: quire-opt %s --quire-convert-tile-to-llvm --canonicalize --cse | FileCheck %s
// tile.load / tile.store (LoadStoreToLLVM.cpp): a thread's run of
// consecutive registers becomes one access of up to 16 bytes when AxisInfo
// proves the addresses contiguous and aligned and the mask uniform over the
// run. Masked accesses are predicated inline PTX (masked lanes read `other`,
// zero by default, and issue no transaction); unmasked ones are plain LLVM
// loads and stores.

#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked8 = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#mma = #tile.mma<{warpsPerCTA = [4, 1]}>

module attributes {tile.num_warps = 4 : i32} {

// A 16-divisible bound keeps the mask uniform over each run of 4: one
// predicated 16-byte load and store per run.
// CHECK-LABEL: llvm.func @masked_vector_load_store
// CHECK-SAME:    nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tile.shared_bytes = 0 : i64
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"mov.b32 $0, $6;{{.*}}@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [ $4 + 0 ];"
// CHECK-NOT:     ld.global.b32
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.v4.b32 [ $0 + 0 ], {$2, $3, $4, $5};"
// CHECK:         llvm.return
func.func @masked_vector_load_store(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                    %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                    %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #blocked>
  %ns = tile.splat %n : i32 -> tensor<512xi32, #blocked>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  %a = tile.load %xp, %m : tensor<512x!tile.ptr<f32>, #blocked>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %op = tile.addptr %os, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  tile.store %op, %a, %m : tensor<512x!tile.ptr<f32>, #blocked>
  return
}

// Without the divisibility fact the mask may change inside a run: four
// predicated 4-byte loads per run, each starting from `other` (1.0). The
// unmasked store stays one 16-byte llvm.store.
// CHECK-LABEL: llvm.func @masked_scalar_load_other
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK:         %[[OTHER:.*]] = llvm.bitcast %[[ONE]] : f32 to i32
// CHECK-COUNT-4: llvm.inline_asm has_side_effects {{.*}}"mov.b32 $0, $3;{{.*}}@$2 ld.global.b32 $0, [ $1 + 0 ];", "=r,l,b,r" %{{.*}}, %{{.*}}, %[[OTHER]]
// CHECK-NOT:     ld.global
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @masked_scalar_load_other(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                    %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                    %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #blocked>
  %ns = tile.splat %n : i32 -> tensor<512xi32, #blocked>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  %one = arith.constant dense<1.0> : tensor<512xf32, #blocked>
  %a = tile.load %xp, %m, %one : tensor<512x!tile.ptr<f32>, #blocked>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %op = tile.addptr %os, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  tile.store %op, %a : tensor<512x!tile.ptr<f32>, #blocked>
  return
}

// Eight f16 per thread: one 16-byte vector load and store.
// CHECK-LABEL: llvm.func @f16_vector_load_store
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
func.func @f16_vector_load_store(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                 %out: !tile.ptr<f16> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 1024 : tensor<1024xi32, #blocked8>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>, #blocked8>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f16>, #blocked8>, tensor<1024xi32, #blocked8>
  %a = tile.load %xp : tensor<1024x!tile.ptr<f16>, #blocked8>
  %os = tile.splat %out : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>, #blocked8>
  %op = tile.addptr %os, %r : tensor<1024x!tile.ptr<f16>, #blocked8>, tensor<1024xi32, #blocked8>
  tile.store %op, %a : tensor<1024x!tile.ptr<f16>, #blocked8>
  return
}

// A base pointer of unknown alignment: element loads.
// CHECK-LABEL: llvm.func @unaligned_load
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT:     llvm.load
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>
func.func @unaligned_load(%x: !tile.ptr<f32>,
                          %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  %a = tile.load %xp : tensor<512x!tile.ptr<f32>, #blocked>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #blocked>
  %op = tile.addptr %os, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
  tile.store %op, %a : tensor<512x!tile.ptr<f32>, #blocked>
  return
}

// Scalars through a !tile.ptr: every thread loads, thread 0 stores.
// CHECK-LABEL: llvm.func @scalar_load_store
// CHECK:         %[[V:.*]] = llvm.load %arg0 {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK:         %[[T0:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.b32 [ $0 + 0 ], $2;", "l,b,r" %arg1, %[[T0]], %[[V]]
func.func @scalar_load_store(%x: !tile.ptr<i32>, %out: !tile.ptr<i32>) attributes {tile.kernel} {
  %v = tile.load %x : !tile.ptr<i32>
  tile.store %out, %v : !tile.ptr<i32>
  return
}

// 64-bit elements take one 64-bit register (`l`) each: a masked run of two
// i64 is one predicated v2.b64 access; a masked f64 run of one is a b64
// access whose `other` is the double's bits.
// CHECK-LABEL: llvm.func @masked_64bit_load_store
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"mov.b64 $0, $4;{{.*}}mov.b64 $1, $5;{{.*}}@$3 ld.global.v2.b64 {$0, $1}, [ $2 + 0 ];", "=l,=l,l,b,l,l"
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.v2.b64 [ $0 + 0 ], {$2, $3};", "l,b,l,l"
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"mov.b64 $0, $3;{{.*}}@$2 ld.global.b64 $0, [ $1 + 0 ];", "=l,l,b,l"
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.b64 [ $0 + 0 ], $2;", "l,b,l"
func.func @masked_64bit_load_store(%x: !tile.ptr<i64> {tile.divisibility = 16 : i32},
                                   %out: !tile.ptr<i64> {tile.divisibility = 16 : i32},
                                   %y: !tile.ptr<f64>, %outf: !tile.ptr<f64>,
                                   %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 256 : tensor<256xi32, #blocked8>
  %ns = tile.splat %n : i32 -> tensor<256xi32, #blocked8>
  %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #blocked8>
  %xs = tile.splat %x : !tile.ptr<i64> -> tensor<256x!tile.ptr<i64>, #blocked8>
  %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<i64>, #blocked8>, tensor<256xi32, #blocked8>
  %a = tile.load %xp, %m : tensor<256x!tile.ptr<i64>, #blocked8>
  %os = tile.splat %out : !tile.ptr<i64> -> tensor<256x!tile.ptr<i64>, #blocked8>
  %op = tile.addptr %os, %r : tensor<256x!tile.ptr<i64>, #blocked8>, tensor<256xi32, #blocked8>
  tile.store %op, %a, %m : tensor<256x!tile.ptr<i64>, #blocked8>
  %ys = tile.splat %y : !tile.ptr<f64> -> tensor<256x!tile.ptr<f64>, #blocked8>
  %yp = tile.addptr %ys, %r : tensor<256x!tile.ptr<f64>, #blocked8>, tensor<256xi32, #blocked8>
  %two = arith.constant dense<2.0> : tensor<256xf64, #blocked8>
  %b = tile.load %yp, %m, %two : tensor<256x!tile.ptr<f64>, #blocked8>
  %fs = tile.splat %outf : !tile.ptr<f64> -> tensor<256x!tile.ptr<f64>, #blocked8>
  %fp = tile.addptr %fs, %r : tensor<256x!tile.ptr<f64>, #blocked8>, tensor<256xi32, #blocked8>
  tile.store %fp, %b, %m : tensor<256x!tile.ptr<f64>, #blocked8>
  return
}

// Two elements in a layout of four registers per thread: registers 2 and 3
// hold elements 0 and 1 again, and only lane 0 of warp 0 owns them. One
// 8-byte store, by one thread.
// CHECK-LABEL: llvm.func @store_replicated_registers_once
// CHECK:         %[[OWN:.*]] = llvm.icmp "eq"
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.v2.b32 [ $0 + 0 ], {$2, $3};", "l,b,r,r" %{{.*}}, %[[OWN]]
// CHECK-NOT:     st.global
// CHECK:         llvm.return
func.func @store_replicated_registers_once(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                           %v: f32) attributes {tile.kernel} {
  %r = tile.range 0, 2 : tensor<2xi32, #blocked>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<2x!tile.ptr<f32>, #blocked>
  %op = tile.addptr %os, %r : tensor<2x!tile.ptr<f32>, #blocked>, tensor<2xi32, #blocked>
  %vs = tile.splat %v : f32 -> tensor<2xf32, #blocked>
  tile.store %op, %vs : tensor<2x!tile.ptr<f32>, #blocked>
  return
}


// An f16 mma accumulator (64 x 128 over 4 warps): a thread holds two
// consecutive columns of every 8, in two rows. Lanes 4g + t trade pairs
// (shfl.bfly 1 between the columns 2 and 8 apart, then 2 between those 4
// and 16 apart: 16 pairs of registers each) until each holds 8 consecutive
// columns, stored 16 bytes at a time under the row mask: 8 stores a thread
// and no narrower one.
// CHECK-LABEL: llvm.func @accumulator_store_trades_lanes
// CHECK-COUNT-32: nvvm.shfl.sync  bfly
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-COUNT-8: "@$1 st.global.v4.b32 [ $0 + 0 ], {$2, $3, $4, $5};"
// CHECK-NOT:     st.global
// CHECK:         llvm.return
func.func @accumulator_store_trades_lanes(%out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %stride: i32 {tile.divisibility = 16 : i32}, %bound: i32) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #mma}>>
  %c = tile.range 0, 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #mma}>>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tile.slice<{dim = 1, parent = #mma}>> -> tensor<64x1xi32, #mma>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #mma}>> -> tensor<1x128xi32, #mma>
  %s = tile.splat %stride : i32 -> tensor<64x1xi32, #mma>
  %ro = arith.muli %r2, %s : tensor<64x1xi32, #mma>
  %rb = tile.broadcast %ro : tensor<64x1xi32, #mma> -> tensor<64x128xi32, #mma>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #mma> -> tensor<64x128xi32, #mma>
  %off = arith.addi %rb, %cb : tensor<64x128xi32, #mma>
  %n = tile.splat %bound : i32 -> tensor<64x1xi32, #mma>
  %m1 = arith.cmpi slt, %r2, %n : tensor<64x1xi32, #mma>
  %m = tile.broadcast %m1 : tensor<64x1xi1, #mma> -> tensor<64x128xi1, #mma>
  %p0 = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #mma>
  %p = tile.addptr %p0, %off : tensor<64x128x!tile.ptr<f16>, #mma>, tensor<64x128xi32, #mma>
  %v = arith.sitofp %off : tensor<64x128xi32, #mma> to tensor<64x128xf16, #mma>
  tile.store %p, %v, %m : tensor<64x128x!tile.ptr<f16>, #mma>
  return
}

// An f32 accumulator, unmasked: one trade (columns 2 and 8 apart, two
// 32-bit shuffles for each 8-byte pair) gives each thread 4 consecutive
// columns: 16 plain 16-byte stores a thread.
// CHECK-LABEL: llvm.func @f32_accumulator_store_trades_lanes
// CHECK-COUNT-32: nvvm.shfl.sync  bfly
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-COUNT-16: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT:     llvm.store
// CHECK:         llvm.return
func.func @f32_accumulator_store_trades_lanes(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %stride: i32 {tile.divisibility = 16 : i32}, %bound: i32) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #mma}>>
  %c = tile.range 0, 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #mma}>>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tile.slice<{dim = 1, parent = #mma}>> -> tensor<64x1xi32, #mma>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #mma}>> -> tensor<1x128xi32, #mma>
  %s = tile.splat %stride : i32 -> tensor<64x1xi32, #mma>
  %ro = arith.muli %r2, %s : tensor<64x1xi32, #mma>
  %rb = tile.broadcast %ro : tensor<64x1xi32, #mma> -> tensor<64x128xi32, #mma>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #mma> -> tensor<64x128xi32, #mma>
  %off = arith.addi %rb, %cb : tensor<64x128xi32, #mma>
  %p0 = tile.splat %out : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>, #mma>
  %p = tile.addptr %p0, %off : tensor<64x128x!tile.ptr<f32>, #mma>, tensor<64x128xi32, #mma>
  %v = arith.sitofp %off : tensor<64x128xi32, #mma> to tensor<64x128xf32, #mma>
  tile.store %p, %v : tensor<64x128x!tile.ptr<f32>, #mma>
  return
}

// A mask that may change from one column to the next (an unknown bound on
// the columns) would differ between the lanes that trade: no trade, the
// pairs' elements stored one by one.
// CHECK-LABEL: llvm.func @accumulator_store_column_mask
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         "@$1 st.global.b16 [ $0 + 0 ], $2;"
// CHECK-NOT:     st.global.v4
// CHECK:         llvm.return
func.func @accumulator_store_column_mask(%out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %stride: i32 {tile.divisibility = 16 : i32}, %bound: i32) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #mma}>>
  %c = tile.range 0, 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #mma}>>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tile.slice<{dim = 1, parent = #mma}>> -> tensor<64x1xi32, #mma>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #mma}>> -> tensor<1x128xi32, #mma>
  %s = tile.splat %stride : i32 -> tensor<64x1xi32, #mma>
  %ro = arith.muli %r2, %s : tensor<64x1xi32, #mma>
  %rb = tile.broadcast %ro : tensor<64x1xi32, #mma> -> tensor<64x128xi32, #mma>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #mma> -> tensor<64x128xi32, #mma>
  %off = arith.addi %rb, %cb : tensor<64x128xi32, #mma>
  %n = tile.splat %bound : i32 -> tensor<1x128xi32, #mma>
  %m1 = arith.cmpi slt, %c2, %n : tensor<1x128xi32, #mma>
  %m = tile.broadcast %m1 : tensor<1x128xi1, #mma> -> tensor<64x128xi1, #mma>
  %p0 = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #mma>
  %p = tile.addptr %p0, %off : tensor<64x128x!tile.ptr<f16>, #mma>, tensor<64x128xi32, #mma>
  %v = arith.sitofp %off : tensor<64x128xi32, #mma> to tensor<64x128xf16, #mma>
  tile.store %p, %v, %m : tensor<64x128x!tile.ptr<f16>, #mma>
  return
}

}
