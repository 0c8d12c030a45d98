// tile.paged_load against a NumPy gather for page sizes 8, 16 and 64: a
// 32-token tile spans four pages, two pages, or half of one. Ragged seq_lens
// (0, 1, lengths around 8/32/64), block tables in random order, padded pages
// (page_stride > page_size * token_stride). Unused block-table entries point
// far past the cache, so reading one for a row past seq_len would fail the
// run.
// RUN: %python %S/Inputs/differential.py paged_load --quire-run quire-run \
// RUN:   --source %s --tmp %t | FileCheck %s

// CHECK: paged_load page_size=8: exact ok
// CHECK-NEXT: paged_load page_size=16: exact ok
// CHECK-NEXT: paged_load page_size=64: exact ok

// Program (s, tile, h) gathers rows tile*32 .. tile*32+31 of sequence s, head
// h, with page size 8, and stores them to out[s, row, h, :]
// (out is [num_seqs, num_tiles * 32, num_heads, 16]).
func.func @paged_load_p8(%out: !tile.ptr<f16>, %cache: !tile.ptr<f16>,
                         %tables: !tile.ptr<i32>, %lens: !tile.ptr<i32>,
                         %max_pages: i32, %page_stride: i64,
                         %token_stride: i64, %head_stride: i64)
    attributes {tile.kernel} {
  %s = tile.program_id x
  %tile = tile.program_id y
  %h = tile.program_id z
  %num_tiles = tile.num_programs y
  %num_heads = tile.num_programs z
  %c32 = arith.constant 32 : i32
  %first = arith.muli %tile, %c32 : i32
  %len_ptr = tile.addptr %lens, %s : !tile.ptr<i32>, i32
  %len = tile.load %len_ptr : !tile.ptr<i32>
  %row_off = arith.muli %s, %max_pages : i32
  %table = tile.addptr %tables, %row_off : !tile.ptr<i32>, i32
  %t = tile.paged_load %cache[%table, %first, %h] {page_size = 8 : i32}
         strides(%page_stride, %token_stride, %head_stride)
         bound %len : tensor<32x16xf16>

  // out offset ((s * num_tiles * 32 + first + r) * num_heads + h) * 16 + c
  %rows_per_seq = arith.muli %num_tiles, %c32 : i32
  %seq_row = arith.muli %s, %rows_per_seq : i32
  %row0 = arith.addi %seq_row, %first : i32
  %r = tile.range 0, 32 : tensor<32xi32>
  %row0s = tile.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %r : tensor<32xi32>
  %heads = tile.splat %num_heads : i32 -> tensor<32xi32>
  %rh = arith.muli %rows, %heads : tensor<32xi32>
  %hs = tile.splat %h : i32 -> tensor<32xi32>
  %rhh = arith.addi %rh, %hs : tensor<32xi32>
  %c16 = arith.constant dense<16> : tensor<32xi32>
  %roff = arith.muli %rhh, %c16 : tensor<32xi32>
  %roff2 = tile.expand_dims %roff {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<32x1xi32> -> tensor<32x16xi32>
  %c = tile.range 0, 16 : tensor<16xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cb = tile.broadcast %c2 : tensor<1x16xi32> -> tensor<32x16xi32>
  %offs = arith.addi %roffb, %cb : tensor<32x16xi32>
  %outs = tile.splat %out : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
  %ptrs = tile.addptr %outs, %offs : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
  tile.store %ptrs, %t : tensor<32x16x!tile.ptr<f16>>
  return
}

// Program (s, tile, h) gathers rows tile*32 .. tile*32+31 of sequence s, head
// h, with page size 16, and stores them to out[s, row, h, :]
// (out is [num_seqs, num_tiles * 32, num_heads, 16]).
func.func @paged_load_p16(%out: !tile.ptr<f16>, %cache: !tile.ptr<f16>,
                         %tables: !tile.ptr<i32>, %lens: !tile.ptr<i32>,
                         %max_pages: i32, %page_stride: i64,
                         %token_stride: i64, %head_stride: i64)
    attributes {tile.kernel} {
  %s = tile.program_id x
  %tile = tile.program_id y
  %h = tile.program_id z
  %num_tiles = tile.num_programs y
  %num_heads = tile.num_programs z
  %c32 = arith.constant 32 : i32
  %first = arith.muli %tile, %c32 : i32
  %len_ptr = tile.addptr %lens, %s : !tile.ptr<i32>, i32
  %len = tile.load %len_ptr : !tile.ptr<i32>
  %row_off = arith.muli %s, %max_pages : i32
  %table = tile.addptr %tables, %row_off : !tile.ptr<i32>, i32
  %t = tile.paged_load %cache[%table, %first, %h] {page_size = 16 : i32}
         strides(%page_stride, %token_stride, %head_stride)
         bound %len : tensor<32x16xf16>

  // out offset ((s * num_tiles * 32 + first + r) * num_heads + h) * 16 + c
  %rows_per_seq = arith.muli %num_tiles, %c32 : i32
  %seq_row = arith.muli %s, %rows_per_seq : i32
  %row0 = arith.addi %seq_row, %first : i32
  %r = tile.range 0, 32 : tensor<32xi32>
  %row0s = tile.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %r : tensor<32xi32>
  %heads = tile.splat %num_heads : i32 -> tensor<32xi32>
  %rh = arith.muli %rows, %heads : tensor<32xi32>
  %hs = tile.splat %h : i32 -> tensor<32xi32>
  %rhh = arith.addi %rh, %hs : tensor<32xi32>
  %c16 = arith.constant dense<16> : tensor<32xi32>
  %roff = arith.muli %rhh, %c16 : tensor<32xi32>
  %roff2 = tile.expand_dims %roff {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<32x1xi32> -> tensor<32x16xi32>
  %c = tile.range 0, 16 : tensor<16xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cb = tile.broadcast %c2 : tensor<1x16xi32> -> tensor<32x16xi32>
  %offs = arith.addi %roffb, %cb : tensor<32x16xi32>
  %outs = tile.splat %out : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
  %ptrs = tile.addptr %outs, %offs : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
  tile.store %ptrs, %t : tensor<32x16x!tile.ptr<f16>>
  return
}

// Program (s, tile, h) gathers rows tile*32 .. tile*32+31 of sequence s, head
// h, with page size 64, and stores them to out[s, row, h, :]
// (out is [num_seqs, num_tiles * 32, num_heads, 16]).
func.func @paged_load_p64(%out: !tile.ptr<f16>, %cache: !tile.ptr<f16>,
                         %tables: !tile.ptr<i32>, %lens: !tile.ptr<i32>,
                         %max_pages: i32, %page_stride: i64,
                         %token_stride: i64, %head_stride: i64)
    attributes {tile.kernel} {
  %s = tile.program_id x
  %tile = tile.program_id y
  %h = tile.program_id z
  %num_tiles = tile.num_programs y
  %num_heads = tile.num_programs z
  %c32 = arith.constant 32 : i32
  %first = arith.muli %tile, %c32 : i32
  %len_ptr = tile.addptr %lens, %s : !tile.ptr<i32>, i32
  %len = tile.load %len_ptr : !tile.ptr<i32>
  %row_off = arith.muli %s, %max_pages : i32
  %table = tile.addptr %tables, %row_off : !tile.ptr<i32>, i32
  %t = tile.paged_load %cache[%table, %first, %h] {page_size = 64 : i32}
         strides(%page_stride, %token_stride, %head_stride)
         bound %len : tensor<32x16xf16>

  // out offset ((s * num_tiles * 32 + first + r) * num_heads + h) * 16 + c
  %rows_per_seq = arith.muli %num_tiles, %c32 : i32
  %seq_row = arith.muli %s, %rows_per_seq : i32
  %row0 = arith.addi %seq_row, %first : i32
  %r = tile.range 0, 32 : tensor<32xi32>
  %row0s = tile.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %r : tensor<32xi32>
  %heads = tile.splat %num_heads : i32 -> tensor<32xi32>
  %rh = arith.muli %rows, %heads : tensor<32xi32>
  %hs = tile.splat %h : i32 -> tensor<32xi32>
  %rhh = arith.addi %rh, %hs : tensor<32xi32>
  %c16 = arith.constant dense<16> : tensor<32xi32>
  %roff = arith.muli %rhh, %c16 : tensor<32xi32>
  %roff2 = tile.expand_dims %roff {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<32x1xi32> -> tensor<32x16xi32>
  %c = tile.range 0, 16 : tensor<16xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cb = tile.broadcast %c2 : tensor<1x16xi32> -> tensor<32x16xi32>
  %offs = arith.addi %roffb, %cb : tensor<32x16xi32>
  %outs = tile.splat %out : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
  %ptrs = tile.addptr %outs, %offs : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
  tile.store %ptrs, %t : tensor<32x16x!tile.ptr<f16>>
  return
}
