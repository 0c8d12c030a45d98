// With num_blocks, a block-table entry outside [0, num_blocks) that a row
// below seq_len uses is a located error (exit 1) before any row is read, naming
// the entry, its page and the first token of the tile in that page. The
// checked lowering (quire-lower-paged-loads=checked) reports the same entry
// through tile.assert, masks the rows of the bad entry instead of reading
// through it, and computes the same tiles from a good table.
//
// @gather: a 16x4 tile over 4-token pages; cache row r (block r / 4, slot
// r % 4) holds r, num_blocks 4. @walk: 4x4 tiles over 8-token pages in a loop
// from 0 by 4 (one scalar entry per tile, prefetched), summed; num_blocks 2.

// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --kernel fill_rows --grid 2 --arg out:%t/cache.npy:f32:16x4
// RUN: quire-opt %s --quire-lower-paged-loads=checked -o %t/lowered.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t/lowered.mlir
// LOWERED-COUNT-2: tile.assert
// LOWERED-NOT:     = tile.paged_load

// A good table, through the op and through its checked lowering.
// RUN: quire-run %s --kernel gather --arg in:%t/cache.npy --arg values:i32:3,1,2,0 \
// RUN:   --arg i32:0 --arg i32:16 --arg i32:4 --arg out:%t/o.npy:f32:16x4 --print \
// RUN:   | FileCheck %s --check-prefix=GOOD
// RUN: quire-run %t/lowered.mlir --kernel gather --arg in:%t/cache.npy --arg values:i32:3,1,2,0 \
// RUN:   --arg i32:0 --arg i32:16 --arg i32:4 --arg out:%t/o.npy:f32:16x4 --print \
// RUN:   | FileCheck %s --check-prefix=GOOD
// GOOD:      arg #5 (out, f32, 16x4):
// GOOD-NEXT: 12 12 12 12
// GOOD-NEXT: 13 13 13 13
// GOOD-NEXT: 14 14 14 14
// GOOD-NEXT: 15 15 15 15
// GOOD-NEXT: 4 4 4 4
// GOOD:      11 11 11 11
// GOOD-NEXT: 0 0 0 0
// GOOD-NEXT: 1 1 1 1
// GOOD-NEXT: 2 2 2 2
// GOOD-NEXT: 3 3 3 3
// GOOD-NOT:  {{.}}

// Entry 9 (page 1, tokens 4..7) would read past the cache.
// RUN: not quire-run %s --kernel gather --arg in:%t/cache.npy --arg values:i32:3,9,2,0 \
// RUN:   --arg i32:0 --arg i32:16 --arg i32:4 --arg out:%t/o.npy:f32:16x4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD -DFILE=%s
// BAD: [[FILE]]:[[@LINE+59]]:8: error: 'tile.paged_load' op block table entry 9 out of range [0, 4) at page 1 (token 4) in program (0, 0, 0)
// RUN: not quire-run %t/lowered.mlir --kernel gather --arg in:%t/cache.npy --arg values:i32:3,9,2,0 \
// RUN:   --arg i32:0 --arg i32:16 --arg i32:4 --arg out:%t/o.npy:f32:16x4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-LOWERED -DFILE=%s
// BAD-LOWERED: lowered.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'tile.assert' op assertion failed: quire: block table entry 9 out of range [0, 4) at page 1 (token 4) of tile.paged_load at [[FILE]]:[[@LINE+55]]:8 in program (0, 0, 0)

// A negative entry. Then a tile from token 2 with two bad pages: the first
// in row order is reported, at its first row in the tile (token 2).
// RUN: not quire-run %s --kernel gather --arg in:%t/cache.npy --arg values:i32:3,1,-1,0 \
// RUN:   --arg i32:0 --arg i32:16 --arg i32:4 --arg out:%t/o.npy:f32:16x4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEG
// RUN: not quire-run %t/lowered.mlir --kernel gather --arg in:%t/cache.npy --arg values:i32:3,1,-1,0 \
// RUN:   --arg i32:0 --arg i32:16 --arg i32:4 --arg out:%t/o.npy:f32:16x4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEG
// NEG: block table entry -1 out of range [0, 4) at page 2 (token 8)
// RUN: not quire-run %s --kernel gather --arg in:%t/cache.npy --arg values:i32:7,1,2,9 \
// RUN:   --arg i32:2 --arg i32:16 --arg i32:4 --arg out:%t/o.npy:f32:16x4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FIRST
// RUN: not quire-run %t/lowered.mlir --kernel gather --arg in:%t/cache.npy --arg values:i32:7,1,2,9 \
// RUN:   --arg i32:2 --arg i32:16 --arg i32:4 --arg out:%t/o.npy:f32:16x4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FIRST
// FIRST: block table entry 7 out of range [0, 4) at page 0 (token 2)

// A bad entry no row below seq_len uses is fine: with seq_len 12 page 3
// (tokens 12..15) reads nothing, and its rows are 0.
// RUN: quire-run %s --kernel gather --arg in:%t/cache.npy --arg values:i32:3,1,2,9 \
// RUN:   --arg i32:0 --arg i32:12 --arg i32:4 --arg out:%t/o.npy:f32:16x4 --print \
// RUN:   | FileCheck %s --check-prefix=PAST
// RUN: quire-run %t/lowered.mlir --kernel gather --arg in:%t/cache.npy --arg values:i32:3,1,2,9 \
// RUN:   --arg i32:0 --arg i32:12 --arg i32:4 --arg out:%t/o.npy:f32:16x4 --print \
// RUN:   | FileCheck %s --check-prefix=PAST
// PAST:         11 11 11 11
// PAST-COUNT-4: 0 0 0 0
// PAST-NOT:     {{.}}

// One scalar entry per tile, prefetched in the loop: pages [1, 0] sum rows
// 8..15 and 0..7 in tile slots; entry 5 of page 1 is reported at token 8.
// RUN: quire-run %s --kernel walk --arg in:%t/cache.npy --arg values:i32:1,0 \
// RUN:   --arg i32:16 --arg i32:2 --arg out:%t/s.npy:f32:4x4 --print | FileCheck %s --check-prefix=WALK
// RUN: quire-run %t/lowered.mlir --kernel walk --arg in:%t/cache.npy --arg values:i32:1,0 \
// RUN:   --arg i32:16 --arg i32:2 --arg out:%t/s.npy:f32:4x4 --print | FileCheck %s --check-prefix=WALK
// WALK:      arg #4 (out, f32, 4x4):
// WALK-NEXT: 24 24 24 24
// WALK-NEXT: 28 28 28 28
// WALK-NEXT: 32 32 32 32
// WALK-NEXT: 36 36 36 36
// RUN: not quire-run %s --kernel walk --arg in:%t/cache.npy --arg values:i32:0,5 \
// RUN:   --arg i32:16 --arg i32:2 --arg out:%t/s.npy:f32:4x4 2>&1 | FileCheck %s --check-prefix=WALK-BAD
// RUN: not quire-run %t/lowered.mlir --kernel walk --arg in:%t/cache.npy --arg values:i32:0,5 \
// RUN:   --arg i32:16 --arg i32:2 --arg out:%t/s.npy:f32:4x4 2>&1 | FileCheck %s --check-prefix=WALK-BAD
// WALK-BAD: block table entry 5 out of range [0, 2) at page 1 (token 8)

func.func @gather(%cache: !tile.ptr<f32>, %table: !tile.ptr<i32>, %first: i32,
                  %len: i32, %num_blocks: i32, %out: !tile.ptr<f32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c4_i64 = arith.constant 4 : i64
  %c16_i64 = arith.constant 16 : i64
  %t = tile.paged_load %cache[%table, %first, %c0] {page_size = 4 : i32}
         strides(%c16_i64, %c4_i64, %c0_i64)
         bound %len num_blocks %num_blocks : tensor<16x4xf32>
  %r = tile.range 0, 16 : tensor<16xi32>
  %c4 = arith.constant dense<4> : tensor<16xi32>
  %roff = arith.muli %r, %c4 : tensor<16xi32>
  %roff2 = tile.expand_dims %roff {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<16x1xi32> -> tensor<16x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c2 : tensor<1x4xi32> -> tensor<16x4xi32>
  %offs = arith.addi %roffb, %cb : tensor<16x4xi32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<16x4x!tile.ptr<f32>>
  %ptrs = tile.addptr %outs, %offs : tensor<16x4x!tile.ptr<f32>>, tensor<16x4xi32>
  tile.store %ptrs, %t : tensor<16x4x!tile.ptr<f32>>
  return
}

func.func @walk(%cache: !tile.ptr<f32>, %table: !tile.ptr<i32>, %len: i32,
                %num_blocks: i32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c0_i64 = arith.constant 0 : i64
  %c4_i64 = arith.constant 4 : i64
  %c32_i64 = arith.constant 32 : i64
  %zero = arith.constant dense<0.0> : tensor<4x4xf32>
  %sum = scf.for %s = %c0 to %len step %c4 iter_args(%acc = %zero) -> (tensor<4x4xf32>) : i32 {
    %t = tile.paged_load %cache[%table, %s, %c0] {page_size = 8 : i32}
           strides(%c32_i64, %c4_i64, %c0_i64)
           bound %len num_blocks %num_blocks : tensor<4x4xf32>
    %a = arith.addf %acc, %t : tensor<4x4xf32>
    scf.yield %a : tensor<4x4xf32>
  }
  %r = tile.range 0, 4 : tensor<4xi32>
  %c4s = arith.constant dense<4> : tensor<4xi32>
  %roff = arith.muli %r, %c4s : tensor<4xi32>
  %roff2 = tile.expand_dims %roff {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<4x1xi32> -> tensor<4x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c2 : tensor<1x4xi32> -> tensor<4x4xi32>
  %offs = arith.addi %roffb, %cb : tensor<4x4xi32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<4x4x!tile.ptr<f32>>
  %ptrs = tile.addptr %outs, %offs : tensor<4x4x!tile.ptr<f32>>, tensor<4x4xi32>
  tile.store %ptrs, %sum : tensor<4x4x!tile.ptr<f32>>
  return
}

// Program p writes rows 8p .. 8p+7 of a [rows, 4] cache, each holding its row
// index.
func.func @fill_rows(%out: !tile.ptr<f32>) attributes {tile.kernel} {
  %p = tile.program_id x
  %c8 = arith.constant 8 : i32
  %row0 = arith.muli %p, %c8 : i32
  %r = tile.range 0, 8 : tensor<8xi32>
  %row0s = tile.splat %row0 : i32 -> tensor<8xi32>
  %rows = arith.addi %row0s, %r : tensor<8xi32>
  %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %rowsb = tile.broadcast %rows2 : tensor<8x1xi32> -> tensor<8x4xi32>
  %vals = arith.sitofp %rowsb : tensor<8x4xi32> to tensor<8x4xf32>
  %c4 = arith.constant dense<4> : tensor<8x4xi32>
  %roff = arith.muli %rowsb, %c4 : tensor<8x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c2 : tensor<1x4xi32> -> tensor<8x4xi32>
  %offs = arith.addi %roff, %cb : tensor<8x4xi32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<8x4x!tile.ptr<f32>>
  %ptrs = tile.addptr %outs, %offs : tensor<8x4x!tile.ptr<f32>>, tensor<8x4xi32>
  tile.store %ptrs, %vals : tensor<8x4x!tile.ptr<f32>>
  return
}
