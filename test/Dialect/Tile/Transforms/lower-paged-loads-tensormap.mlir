// quire-lower-paged-loads marks a paged tile with a tensor map as
// tile.tensormap_pages only where TMA can copy it: its first token a known
// multiple of the box (min(page_size, BLOCK_N) tokens), boxes that fill
// the swizzle's 1024-byte period, unchecked
// (warp-specialize-tma-pages.mlir: a tile it marks).
// RUN: quire-opt %s --split-input-file --quire-lower-paged-loads | FileCheck %s

// A tile one token past a box boundary: no marker.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT:     tile.tensormap_pages
func.func @unaligned(%kc: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %bt: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                     %t: i32 {tile.divisibility = 16 : i32}, %len: i32,
                     %s: i64 {tile.divisibility = 16 : i32},
                     %tm: !tile.tensormap, %out: !tile.ptr<f16> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %first = arith.addi %t, %c1 : i32
  %k = tile.paged_load %kc[%bt, %first, %c0] {page_size = 16 : i32} strides(%s, %s, %s) bound %len tensormap %tm : tensor<64x64xf16>
  %r = tile.range 0, 64 : tensor<64xi32>
  %p = tile.splat %out : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %pa = tile.addptr %p, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %row = tile.reduce max %k {axis = 1 : i32} : tensor<64x64xf16> -> tensor<64xf16>
  tile.store %pa, %row : tensor<64x!tile.ptr<f16>>
  return
}

// -----

// Pages of 4 tokens: a box of 4 rows of 128 bytes is half a period.
// CHECK-LABEL: func.func @small_pages
// CHECK-NOT:     tile.tensormap_pages
func.func @small_pages(%kc: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %bt: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                       %t: i32 {tile.divisibility = 16 : i32}, %len: i32,
                       %s: i64 {tile.divisibility = 16 : i32},
                       %tm: !tile.tensormap, %n: i32,
                       %out: !tile.ptr<f16> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %k = tile.paged_load %kc[%bt, %t, %c0] {page_size = 4 : i32} strides(%s, %s, %s) bound %len num_blocks %n tensormap %tm : tensor<64x64xf16>
  %r = tile.range 0, 64 : tensor<64xi32>
  %p = tile.splat %out : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %pa = tile.addptr %p, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %row = tile.reduce max %k {axis = 1 : i32} : tensor<64x64xf16> -> tensor<64xf16>
  tile.store %pa, %row : tensor<64x!tile.ptr<f16>>
  return
}

// -----

// With num_blocks (checked mode's bound on the entries) it stays plain.
// CHECK-LABEL: func.func @with_num_blocks
// CHECK-NOT:     tile.tensormap_pages
func.func @with_num_blocks(%kc: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                           %bt: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                           %t: i32 {tile.divisibility = 16 : i32}, %len: i32,
                           %s: i64 {tile.divisibility = 16 : i32},
                           %tm: !tile.tensormap, %n: i32,
                           %out: !tile.ptr<f16> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %k = tile.paged_load %kc[%bt, %t, %c0] {page_size = 16 : i32} strides(%s, %s, %s) bound %len num_blocks %n tensormap %tm : tensor<64x64xf16>
  %r = tile.range 0, 64 : tensor<64xi32>
  %p = tile.splat %out : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %pa = tile.addptr %p, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %row = tile.reduce max %k {axis = 1 : i32} : tensor<64x64xf16> -> tensor<64xf16>
  tile.store %pa, %row : tensor<64x!tile.ptr<f16>>
  return
}
