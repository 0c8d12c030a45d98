// Split-KV paged decode attention (flash-decoding): the sequence is cut into
// splits of `tokens_per_split` tokens (a multiple of 64); program
// (seq, kv_head, split) runs the online softmax over its split and writes
// partial results, and @paged_decode_combine merges the splits of each query
// head with a log-sum-exp weighting. More programs than sequences x heads
// keep the GPU full when batches are small and contexts long; the grid does
// not depend on the sequence lengths, so launches can be captured in a CUDA
// graph. GQA group of 4 query heads per KV head, head_dim 128, page size 16.
//
// Layouts (vLLM's): q, out f16 [num_seqs, num_q_heads, 128]; k/v caches f16
// [num_blocks, 16, num_kv_heads, 128] with strides in elements (multiples of
// 16); block_tables i32 [num_seqs, max_pages]; seq_lens i32 [num_seqs].
// Partials: part_o f32 [num_seqs, num_q_heads, num_splits, 128], part_ml f32
// [num_seqs, num_q_heads, num_splits, 2] (running max, running sum).
//
// Launch @paged_decode_split with grid (num_seqs, num_kv_heads, num_splits),
// then @paged_decode_combine with grid (num_seqs * num_q_heads, 1, 1);
// num_splits <= 16.
func.func @paged_decode_split(
    %part_o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %part_ml: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %v_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %block_tables: !tile.ptr<i32> {tile.divisibility = 16 : i32},
    %seq_lens: !tile.ptr<i32>,
    %scale: f32, %num_q_heads: i32, %max_pages: i32,
    %page_stride: i64 {tile.divisibility = 16 : i32},
    %token_stride: i64 {tile.divisibility = 16 : i32},
    %head_stride: i64 {tile.divisibility = 16 : i32},
    %tokens_per_split: i32 {tile.divisibility = 64 : i32}, %num_splits: i32)
    attributes {tile.kernel} {
  %seq = tile.program_id x
  %kv_head = tile.program_id y
  %split = tile.program_id z
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32

  // This sequence's length and block-table row.
  %len_ptr = tile.addptr %seq_lens, %seq : !tile.ptr<i32>, i32
  %seq_len = tile.load %len_ptr : !tile.ptr<i32>
  // This split's tokens: [start, end).
  %start0 = arith.muli %split, %tokens_per_split : i32
  %end0 = arith.addi %start0, %tokens_per_split : i32
  %end = arith.minsi %end0, %seq_len : i32
  %bt_off = arith.muli %seq, %max_pages : i32
  %bt_row = tile.addptr %block_tables, %bt_off : !tile.ptr<i32>, i32

  // Offsets of the group's 4 query rows: (seq * num_q_heads + kv_head * 4 + g) * 128 + d.
  %row0a = arith.muli %seq, %num_q_heads : i32
  %row0b = arith.muli %kv_head, %c4 : i32
  %row0 = arith.addi %row0a, %row0b : i32
  %base = arith.muli %row0, %c128 : i32
  %g = tile.range 0, 4 : tensor<4xi32>
  %g2 = tile.expand_dims %g {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %c128s = arith.constant dense<128> : tensor<4x1xi32>
  %g_off = arith.muli %g2, %c128s : tensor<4x1xi32>
  %g_offb = tile.broadcast %g_off : tensor<4x1xi32> -> tensor<4x128xi32>
  %d = tile.range 0, 128 : tensor<128xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %d_offb = tile.broadcast %d2 : tensor<1x128xi32> -> tensor<4x128xi32>
  %bases = tile.splat %base : i32 -> tensor<4x128xi32>
  %qo1 = arith.addi %bases, %g_offb : tensor<4x128xi32>
  %q_offs = arith.addi %qo1, %d_offb : tensor<4x128xi32>
  %qs = tile.splat %q : !tile.ptr<f16> -> tensor<4x128x!tile.ptr<f16>>
  %q_ptrs = tile.addptr %qs, %q_offs : tensor<4x128x!tile.ptr<f16>>, tensor<4x128xi32>
  %qv = tile.load %q_ptrs : tensor<4x128x!tile.ptr<f16>>

  %ninf4 = arith.constant dense<0xFF800000> : tensor<4xf32>
  %zero4 = arith.constant dense<0.0> : tensor<4xf32>
  %zero_acc = arith.constant dense<0.0> : tensor<4x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<4x64xf32>
  %ninf_s = arith.constant dense<0xFF800000> : tensor<4x64xf32>
  %scales = tile.splat %scale : f32 -> tensor<4x64xf32>
  %toks0 = tile.range 0, 64 : tensor<64xi32>
  %lens = tile.splat %end : i32 -> tensor<64xi32>

  %res:3 = scf.for %start = %start0 to %end step %c64
      iter_args(%m = %ninf4, %l = %zero4, %acc = %zero_acc)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<4x128xf32>) : i32 {
    // Scores of this tile of 64 tokens: scale * q . k^T; tokens past seq_len -> -inf.
    %k = tile.paged_load %k_cache[%bt_row, %start, %kv_head] {page_size = 16 : i32}
           strides(%page_stride, %token_stride, %head_stride)
           bound %end : tensor<64x128xf16>
    %kt = tile.trans %k : tensor<64x128xf16> -> tensor<128x64xf16>
    %qk = tile.dot %qv, %kt, %zero_s : tensor<4x128xf16> * tensor<128x64xf16> -> tensor<4x64xf32>
    %s0 = arith.mulf %qk, %scales : tensor<4x64xf32>
    %starts = tile.splat %start : i32 -> tensor<64xi32>
    %toks = arith.addi %starts, %toks0 : tensor<64xi32>
    %valid = arith.cmpi slt, %toks, %lens : tensor<64xi32>
    %valid2 = tile.expand_dims %valid {axis = 0 : i32} : tensor<64xi1> -> tensor<1x64xi1>
    %validb = tile.broadcast %valid2 : tensor<1x64xi1> -> tensor<4x64xi1>
    %s = arith.select %validb, %s0, %ninf_s : tensor<4x64xi1>, tensor<4x64xf32>

    // Online softmax update.
    %tile_max = tile.reduce max %s {axis = 1 : i32} : tensor<4x64xf32> -> tensor<4xf32>
    %m_new = arith.maximumf %m, %tile_max : tensor<4xf32>
    %m_new2 = tile.expand_dims %m_new {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %m_newb = tile.broadcast %m_new2 : tensor<4x1xf32> -> tensor<4x64xf32>
    %sd = arith.subf %s, %m_newb : tensor<4x64xf32>
    %p = math.exp %sd : tensor<4x64xf32>
    %md = arith.subf %m, %m_new : tensor<4xf32>
    %alpha = math.exp %md : tensor<4xf32>
    %psum = tile.reduce sum %p {axis = 1 : i32} : tensor<4x64xf32> -> tensor<4xf32>
    %la = arith.mulf %l, %alpha : tensor<4xf32>
    %l_new = arith.addf %la, %psum : tensor<4xf32>

    %v = tile.paged_load %v_cache[%bt_row, %start, %kv_head] {page_size = 16 : i32}
           strides(%page_stride, %token_stride, %head_stride)
           bound %end : tensor<64x128xf16>
    %p16 = arith.truncf %p : tensor<4x64xf32> to tensor<4x64xf16>
    %pv = tile.dot %p16, %v, %zero_acc : tensor<4x64xf16> * tensor<64x128xf16> -> tensor<4x128xf32>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %alphab = tile.broadcast %alpha2 : tensor<4x1xf32> -> tensor<4x128xf32>
    %acc_scaled = arith.mulf %acc, %alphab : tensor<4x128xf32>
    %acc_new = arith.addf %acc_scaled, %pv : tensor<4x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<4xf32>, tensor<4xf32>, tensor<4x128xf32>
  }

  // Partials of this split: acc (unnormalized), m and l per query head.
  // Row of (seq, head, split): (seq * num_q_heads + kv_head * 4 + g) * num_splits + split.
  %r0 = arith.muli %row0, %num_splits : i32
  %rs = tile.splat %r0 : i32 -> tensor<4xi32>
  %nss = tile.splat %num_splits : i32 -> tensor<4xi32>
  %g_rows = arith.muli %g, %nss : tensor<4xi32>
  %splits4 = tile.splat %split : i32 -> tensor<4xi32>
  %rows1 = arith.addi %rs, %g_rows : tensor<4xi32>
  %rows = arith.addi %rows1, %splits4 : tensor<4xi32>
  %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %c128r = arith.constant dense<128> : tensor<4x1xi32>
  %orow = arith.muli %rows2, %c128r : tensor<4x1xi32>
  %orowb = tile.broadcast %orow : tensor<4x1xi32> -> tensor<4x128xi32>
  %ooffs = arith.addi %orowb, %d_offb : tensor<4x128xi32>
  %pos = tile.splat %part_o : !tile.ptr<f32> -> tensor<4x128x!tile.ptr<f32>>
  %po_ptrs = tile.addptr %pos, %ooffs : tensor<4x128x!tile.ptr<f32>>, tensor<4x128xi32>
  tile.store %po_ptrs, %res#2 : tensor<4x128x!tile.ptr<f32>>
  %c2 = arith.constant dense<2> : tensor<4xi32>
  %mloff = arith.muli %rows, %c2 : tensor<4xi32>
  %one4i = arith.constant dense<1> : tensor<4xi32>
  %lloff = arith.addi %mloff, %one4i : tensor<4xi32>
  %pms = tile.splat %part_ml : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  %pm_ptrs = tile.addptr %pms, %mloff : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %pm_ptrs, %res#0 : tensor<4x!tile.ptr<f32>>
  %pl_ptrs = tile.addptr %pms, %lloff : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %pl_ptrs, %res#1 : tensor<4x!tile.ptr<f32>>
  return
}

// out[row, :] = sum_s w_s * part_o[row, s, :] / sum_s w_s * l_s with
// w_s = exp(m_s - max_s m_s); splits that saw no token (m = -inf) weigh 0 and
// a row with no token at all (every l = 0) is 0. One program per (seq, head).
func.func @paged_decode_combine(
    %out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %part_o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %part_ml: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %num_splits: i32) attributes {tile.kernel} {
  %row = tile.program_id x
  %s = tile.range 0, 16 : tensor<16xi32>
  %ns = tile.splat %num_splits : i32 -> tensor<16xi32>
  %smask = arith.cmpi slt, %s, %ns : tensor<16xi32>
  %base = arith.muli %row, %num_splits : i32
  %bases = tile.splat %base : i32 -> tensor<16xi32>
  %srow = arith.addi %bases, %s : tensor<16xi32>
  %c2 = arith.constant dense<2> : tensor<16xi32>
  %moff = arith.muli %srow, %c2 : tensor<16xi32>
  %one = arith.constant dense<1> : tensor<16xi32>
  %loff = arith.addi %moff, %one : tensor<16xi32>
  %mls = tile.splat %part_ml : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %mp = tile.addptr %mls, %moff : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %lp = tile.addptr %mls, %loff : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %m = tile.load %mp, %smask, %ninf : tensor<16x!tile.ptr<f32>>
  %l = tile.load %lp, %smask, %zero : tensor<16x!tile.ptr<f32>>
  %m_all = tile.reduce max %m {axis = 0 : i32} : tensor<16xf32> -> f32
  %m_alls = tile.splat %m_all : f32 -> tensor<16xf32>
  %seen = arith.cmpf ogt, %m, %ninf : tensor<16xf32>
  %md = arith.subf %m, %m_alls : tensor<16xf32>
  %e = math.exp %md : tensor<16xf32>
  %w = arith.select %seen, %e, %zero : tensor<16xi1>, tensor<16xf32>
  %wl = arith.mulf %w, %l : tensor<16xf32>
  %denom = tile.reduce sum %wl {axis = 0 : i32} : tensor<16xf32> -> f32
  %d = tile.range 0, 128 : tensor<128xi32>
  %srow2 = tile.expand_dims %srow {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c128 = arith.constant dense<128> : tensor<16x1xi32>
  %orow = arith.muli %srow2, %c128 : tensor<16x1xi32>
  %orowb = tile.broadcast %orow : tensor<16x1xi32> -> tensor<16x128xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %db = tile.broadcast %d2 : tensor<1x128xi32> -> tensor<16x128xi32>
  %offs = arith.addi %orowb, %db : tensor<16x128xi32>
  %pos = tile.splat %part_o : !tile.ptr<f32> -> tensor<16x128x!tile.ptr<f32>>
  %op = tile.addptr %pos, %offs : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xi32>
  %sm2 = tile.expand_dims %smask {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %smb = tile.broadcast %sm2 : tensor<16x1xi1> -> tensor<16x128xi1>
  %zo = arith.constant dense<0.0> : tensor<16x128xf32>
  %o = tile.load %op, %smb, %zo : tensor<16x128x!tile.ptr<f32>>
  %w2 = tile.expand_dims %w {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %wb = tile.broadcast %w2 : tensor<16x1xf32> -> tensor<16x128xf32>
  %ow = arith.mulf %o, %wb : tensor<16x128xf32>
  %osum = tile.reduce sum %ow {axis = 0 : i32} : tensor<16x128xf32> -> tensor<128xf32>
  %zf = arith.constant 0.0 : f32
  %onef = arith.constant 1.0 : f32
  %has = arith.cmpf ogt, %denom, %zf : f32
  %den = arith.select %has, %denom, %onef : f32
  %dens = tile.splat %den : f32 -> tensor<128xf32>
  %res = arith.divf %osum, %dens : tensor<128xf32>
  %r16 = arith.truncf %res : tensor<128xf32> to tensor<128xf16>
  %c128s = arith.constant 128 : i32
  %ob = arith.muli %row, %c128s : i32
  %obs = tile.splat %ob : i32 -> tensor<128xi32>
  %oo = arith.addi %obs, %d : tensor<128xi32>
  %outs = tile.splat %out : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  %optr = tile.addptr %outs, %oo : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  tile.store %optr, %r16 : tensor<128x!tile.ptr<f16>>
  return
}
