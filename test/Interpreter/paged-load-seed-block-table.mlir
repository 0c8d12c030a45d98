// The seed case: block table [40, 30], page size 8, a 16-token paged_load of
// a cache whose row r holds the value r. With page_stride = token_stride (one
// row), entry e and slot s address row e + s: the tile is rows 40..47 then
// 30..37. With vLLM strides (page_stride = 8 rows) it is rows 320..327 then
// 240..247. Rows at or past seq_len read 0 and touch no cache memory; the
// block table is read for the pages the tile touches that hold a token below
// seq_len, so a one-entry table suffices while seq_len <= 8, and a page whose
// only valid tokens precede first_token still needs its entry.

// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --kernel fill_rows --grid 41 \
// RUN:   --arg out:%t/cache.npy:f32:328x4
// RUN: quire-run %s --kernel seed --arg in:%t/cache.npy \
// RUN:   --arg values:i32:40,30 --arg i32:0 --arg i32:16 --arg i64:4 --arg i64:4 \
// RUN:   --arg out:%t/o.npy:f32:16x4 --print | FileCheck %s --check-prefix=SEED
// RUN: quire-run %s --kernel seed --arg in:%t/cache.npy \
// RUN:   --arg values:i32:40,30 --arg i32:0 --arg i32:16 --arg i64:32 --arg i64:4 \
// RUN:   --arg out:%t/o.npy:f32:16x4 --print | FileCheck %s --check-prefix=VLLM
// RUN: quire-run %s --kernel seed --arg in:%t/cache.npy \
// RUN:   --arg values:i32:40,30 --arg i32:0 --arg i32:13 --arg i64:4 --arg i64:4 \
// RUN:   --arg out:%t/o.npy:f32:16x4 --print | FileCheck %s --check-prefix=LEN13
// RUN: quire-run %s --kernel seed --arg in:%t/cache.npy \
// RUN:   --arg values:i32:40 --arg i32:0 --arg i32:5 --arg i64:4 --arg i64:4 \
// RUN:   --arg out:%t/o.npy:f32:16x4 --print | FileCheck %s --check-prefix=LEN5
// RUN: not quire-run %s --kernel seed --arg in:%t/cache.npy \
// RUN:   --arg values:i32:40 --arg i32:0 --arg i32:9 --arg i64:4 --arg i64:4 \
// RUN:   --arg out:%t/o.npy:f32:16x4 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: not quire-run %s --kernel seed --arg in:%t/cache.npy \
// RUN:   --arg values:i32:40 --arg i32:14 --arg i32:9 --arg i64:4 --arg i64:4 \
// RUN:   --arg out:%t/o.npy:f32:16x4 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: quire-run %s --kernel seed --arg in:%t/cache.npy \
// RUN:   --arg values:i32:40 --arg i32:16 --arg i32:9 --arg i64:4 --arg i64:4 \
// RUN:   --arg out:%t/o.npy:f32:16x4 --print | FileCheck %s --check-prefix=PAST

// SEED:      arg #6 (out, f32, 16x4):
// SEED-NEXT: 40 40 40 40
// SEED-NEXT: 41 41 41 41
// SEED-NEXT: 42 42 42 42
// SEED-NEXT: 43 43 43 43
// SEED-NEXT: 44 44 44 44
// SEED-NEXT: 45 45 45 45
// SEED-NEXT: 46 46 46 46
// SEED-NEXT: 47 47 47 47
// SEED-NEXT: 30 30 30 30
// SEED-NEXT: 31 31 31 31
// SEED-NEXT: 32 32 32 32
// SEED-NEXT: 33 33 33 33
// SEED-NEXT: 34 34 34 34
// SEED-NEXT: 35 35 35 35
// SEED-NEXT: 36 36 36 36
// SEED-NEXT: 37 37 37 37
// SEED-NOT:  {{.}}

// VLLM:      arg #6 (out, f32, 16x4):
// VLLM-NEXT: 320 320 320 320
// VLLM-NEXT: 321 321 321 321
// VLLM:      327 327 327 327
// VLLM-NEXT: 240 240 240 240
// VLLM:      247 247 247 247
// VLLM-NOT:  {{.}}

// LEN13:      32 32 32 32
// LEN13-NEXT: 33 33 33 33
// LEN13-NEXT: 34 34 34 34
// LEN13-NEXT: 0 0 0 0
// LEN13-NEXT: 0 0 0 0
// LEN13-NEXT: 0 0 0 0
// LEN13-NOT:  {{.}}

// LEN5:      arg #6 (out, f32, 16x4):
// LEN5-NEXT: 40 40 40 40
// LEN5-NEXT: 41 41 41 41
// LEN5-NEXT: 42 42 42 42
// LEN5-NEXT: 43 43 43 43
// LEN5-NEXT: 44 44 44 44
// LEN5-COUNT-11: 0 0 0 0
// LEN5-NOT:  {{.}}

// Token 8 needs block-table entry 1, which the one-entry table lacks.
// TABLE: paged-load-seed-block-table.mlir:[[@LINE+27]]:8: error: 'tile.paged_load' op out-of-bounds access: block-table entry 1 (page 1 holds tokens below seq_len 9) reads 4 bytes at 0x20000000004, 0 bytes past the end of buffer 1 (argument #1, 4 bytes), in program (0, 0, 0)

// Tokens 14..29 are all past seq_len 9, but page 1 (tokens 8..15) holds
// token 8: a lowering may read its entry, so it must exist.
// BEFORE: error: 'tile.paged_load' op out-of-bounds access: block-table entry 1 (page 1 holds tokens below seq_len 9)

// Tokens 16..31 lie in pages 2 and 3, which hold no valid token: nothing is
// read and the tile is zero.
// PAST:          arg #6 (out, f32, 16x4):
// PAST-COUNT-16: 0 0 0 0
// PAST-NOT:      {{.}}

func.func @seed(%cache: !tile.ptr<f32>, %table: !tile.ptr<i32>, %first: i32,
                %len: i32, %page_stride: i64, %token_stride: i64,
                %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %r = tile.range 0, 16 : tensor<16xi32>
  %c4 = arith.constant dense<4> : tensor<16xi32>
  %roff = arith.muli %r, %c4 : tensor<16xi32>
  %roff2 = tile.expand_dims %roff {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<16x1xi32> -> tensor<16x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c2 : tensor<1x4xi32> -> tensor<16x4xi32>
  %offs = arith.addi %roffb, %cb : tensor<16x4xi32>

  %t = tile.paged_load %cache[%table, %first, %c0] {page_size = 8 : i32}
         strides(%page_stride, %token_stride, %c0_i64)
         bound %len : tensor<16x4xf32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<16x4x!tile.ptr<f32>>
  %ptrs = tile.addptr %outs, %offs : tensor<16x4x!tile.ptr<f32>>, tensor<16x4xi32>
  tile.store %ptrs, %t : tensor<16x4x!tile.ptr<f32>>
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
