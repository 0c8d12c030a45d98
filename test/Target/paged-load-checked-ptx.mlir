// quirec --paged-checked: the PTX of a checked paged load calls vprintf with
// the report and traps, on a branch the loads do not depend on; without the
// flag num_blocks is unused and neither appears. A kernel without num_blocks
// is a located error in checked mode.
// RUN: quirec %s --sm 90 --paged-checked | FileCheck %s
// RUN: quirec %s --sm 90 --paged-checked --emit=llvm | FileCheck %s --check-prefix=LLVM -DFILE=%s
// RUN: quirec %s --sm 90 | FileCheck %s --check-prefix=UNCHECKED
// RUN: not quirec %quire_src/examples/paged_decode_attention.mlir --paged-checked 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// RUN: quirec --help | FileCheck %s --check-prefix=HELP

// CHECK:     .extern .func  (.param .b32 func_retval0) vprintf
// CHECK-LABEL: .entry gather(
// CHECK:     ld.global.v4.b32
// CHECK:     call.uni (retval0), vprintf,
// CHECK:     trap;
// CHECK-LABEL: .entry one_page(
// CHECK:     call.uni (retval0), vprintf,
// CHECK:     trap;

// The message names the paged_load; the lowering appends the program id.
// LLVM-DAG: c"quire: block table entry %d out of range [0, %d) at page %d (token %d) of tile.paged_load at [[FILE]]:[[@LINE+27]]:8 in program (%d, %d, %d)\0A\00"
// LLVM-DAG: c"quire: block table entry %d out of range [0, %d) at page %d (token %d) of tile.paged_load at [[FILE]]:[[@LINE+56]]:10 in program (%d, %d, %d)\0A\00"
// LLVM: declare i32 @vprintf(ptr, ptr)
// LLVM: call i32 @vprintf(
// LLVM: call void @llvm.trap()

// UNCHECKED-NOT:   vprintf
// UNCHECKED-LABEL: .entry gather(
// UNCHECKED-NOT:   vprintf
// UNCHECKED-NOT:   trap;
// UNCHECKED-LABEL: .entry one_page(
// UNCHECKED-NOT:   vprintf
// UNCHECKED-NOT:   trap;

// MISSING: paged_decode_attention.mlir:{{[0-9]+}}:10: error: checked mode needs num_blocks on tile.paged_load

// HELP: --paged-checked {{.*}} check block-table entries against num_blocks

// A 64-token tile over 16-token pages (one entry per row) of a
// [num_blocks, 16, heads, 128] f16 cache, stored to out[64, 128].
func.func @gather(%out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %table: !tile.ptr<i32>, %first: i32, %head: i32,
                  %ps: i64 {tile.divisibility = 16 : i32},
                  %ts: i64 {tile.divisibility = 16 : i32},
                  %hs: i64 {tile.divisibility = 16 : i32},
                  %len: i32, %num_blocks: i32) attributes {tile.kernel} {
  %t = tile.paged_load %cache[%table, %first, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len num_blocks %num_blocks : tensor<64x128xf16>
  %r = tile.range 0, 64 : tensor<64xi32>
  %c128 = arith.constant dense<128> : tensor<64xi32>
  %ro = arith.muli %r, %c128 : tensor<64xi32>
  %ro2 = tile.expand_dims %ro {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rob = tile.broadcast %ro2 : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %offs = arith.addi %rob, %cb : tensor<64x128xi32>
  %outs = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %ptrs = tile.addptr %outs, %offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  tile.store %ptrs, %t : tensor<64x128x!tile.ptr<f16>>
  return
}

// 16-token tiles in a loop from 0 by 16 over 16-token pages: one scalar entry
// per tile, prefetched; the tiles are summed into out[16, 128].
func.func @one_page(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %table: !tile.ptr<i32>, %head: i32,
                    %ps: i64 {tile.divisibility = 16 : i32},
                    %ts: i64 {tile.divisibility = 16 : i32},
                    %hs: i64 {tile.divisibility = 16 : i32},
                    %len: i32, %num_blocks: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16x128xf32>
  %sum = scf.for %s = %c0 to %len step %c16 iter_args(%acc = %zero) -> (tensor<16x128xf32>) : i32 {
    %t = tile.paged_load %cache[%table, %s, %head] {page_size = 16 : i32}
           strides(%ps, %ts, %hs) bound %len num_blocks %num_blocks : tensor<16x128xf16>
    %tf = arith.extf %t : tensor<16x128xf16> to tensor<16x128xf32>
    %a = arith.addf %acc, %tf : tensor<16x128xf32>
    scf.yield %a : tensor<16x128xf32>
  }
  %r = tile.range 0, 16 : tensor<16xi32>
  %c128 = arith.constant dense<128> : tensor<16xi32>
  %ro = arith.muli %r, %c128 : tensor<16xi32>
  %ro2 = tile.expand_dims %ro {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rob = tile.broadcast %ro2 : tensor<16x1xi32> -> tensor<16x128xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<16x128xi32>
  %offs = arith.addi %rob, %cb : tensor<16x128xi32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<16x128x!tile.ptr<f32>>
  %ptrs = tile.addptr %outs, %offs : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xi32>
  tile.store %ptrs, %sum : tensor<16x128x!tile.ptr<f32>>
  return
}
