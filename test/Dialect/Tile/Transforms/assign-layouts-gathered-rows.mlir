// RUN: quire-opt %s --quire-lower-paged-loads --canonicalize --cse --quire-assign-layouts=gathered-rows=true | FileCheck %s
// RUN: quire-opt %s --quire-lower-paged-loads --canonicalize --cse --quire-assign-layouts | FileCheck %s --check-prefix=APART
// RUN: quirec %s --gathered-rows -o - | FileCheck %s --check-prefix=PTX
// RUN: quirec %s -o - | FileCheck %s --check-prefix=PTX-APART
// A 64 x 128 f16 tile at a multiple of 64 tokens over 16-token pages: its
// block-table entries are constant over 16 consecutive rows, so with
// gathered-rows each thread takes 8 consecutive rows (the 4 warps' lanes
// cover 8 rows, the tile repeats 8 times) and loads one entry for them;
// without (the default) its rows are 8 apart, each in a page of its own.
// The entries' vector takes the rows' layout. Over 4-token pages a thread
// takes 4 rows; a tile in one page (64-token pages) keeps the default.

// CHECK-LABEL: func.func @pages_of_16
// CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<i32>, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [8, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: tile.load %{{.*}} : tensor<64x128x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [8, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-LABEL: func.func @pages_of_4
// CHECK: tile.load %{{.*}} : tensor<64x128x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [4, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-LABEL: func.func @one_page
// CHECK: tile.load %{{.*}} : tensor<64x128x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-LABEL: func.func @unknown_start
// CHECK: tile.load %{{.*}} : tensor<64x128x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>

// APART-NOT: sizePerThread = [8
// APART-NOT: sizePerThread = [4
// APART-LABEL: func.func @pages_of_16
// APART: tile.load %{{.*}} : tensor<64x128x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// APART-LABEL: func.func @pages_of_4
// APART: tile.load %{{.*}} : tensor<64x128x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>

module attributes {tile.num_warps = 4 : i32} {
func.func @pages_of_16(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %blk: i32, %head: i32,
                       %ps: i64, %ts: i64, %hs: i64, %len: i32, %out: !tile.ptr<f16>)
    attributes {tile.kernel} {
  %c64 = arith.constant 64 : i32
  %first = arith.muli %blk, %c64 : i32
  %k = tile.paged_load %cache[%bt, %first, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
  %o = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  tile.store %o, %k : tensor<64x128x!tile.ptr<f16>>
  return
}

func.func @pages_of_4(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %blk: i32, %head: i32,
                      %ps: i64, %ts: i64, %hs: i64, %len: i32, %out: !tile.ptr<f16>)
    attributes {tile.kernel} {
  %c64 = arith.constant 64 : i32
  %first = arith.muli %blk, %c64 : i32
  %k = tile.paged_load %cache[%bt, %first, %head] {page_size = 4 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
  %o = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  tile.store %o, %k : tensor<64x128x!tile.ptr<f16>>
  return
}

func.func @one_page(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %blk: i32, %head: i32,
                    %ps: i64, %ts: i64, %hs: i64, %len: i32, %out: !tile.ptr<f16>)
    attributes {tile.kernel} {
  %c64 = arith.constant 64 : i32
  %first = arith.muli %blk, %c64 : i32
  %k = tile.paged_load %cache[%bt, %first, %head] {page_size = 64 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
  %o = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  tile.store %o, %k : tensor<64x128x!tile.ptr<f16>>
  return
}

// The block-table entries each thread loads (32-bit loads; the cache
// pointer has no known alignment, so its f16 loads are 16-bit).
// PTX-LABEL: .entry pages_of_16(
// PTX-COUNT-1: ld.global.b32
// PTX-NOT: ld.global.b32
// PTX-LABEL: .entry pages_of_4(
// PTX-COUNT-2: ld.global.b32
// PTX-NOT: ld.global.b32
// PTX-LABEL: .entry one_page(
// PTX-APART-LABEL: .entry pages_of_16(
// PTX-APART-COUNT-4: ld.global.b32
// PTX-APART-NOT: ld.global.b32
// PTX-APART-LABEL: .entry pages_of_4(
// PTX-APART-COUNT-8: ld.global.b32
// PTX-APART-NOT: ld.global.b32
// PTX-APART-LABEL: .entry one_page(

// A start of unknown alignment: no block of rows is known to share a page.
func.func @unknown_start(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %first: i32, %head: i32,
                         %ps: i64, %ts: i64, %hs: i64, %len: i32, %out: !tile.ptr<f16>)
    attributes {tile.kernel} {
  %k = tile.paged_load %cache[%bt, %first, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
  %o = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  tile.store %o, %k : tensor<64x128x!tile.ptr<f16>>
  return
}
}
