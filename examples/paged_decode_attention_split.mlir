// Split-KV paged decode attention on tensor cores: one specialization of
// python/quire/kernels/paged_decode_split.mlir.in (the kernels behind
// quire.ops.paged_decode_attention), generated with
//   quire.ops.paged_decode_source("f16", group=4, head_dim=128,
//                                 page_size=16, block_n=16)
// f16, GQA group 4 (padded to the 16 rows of an mma.sync tile), head dim
// 128, page size 16, 16 tokens per step; quire.ops launches the split kernel
// with 1 warp.
//
// Layouts (vLLM's): q [num_seqs, num_q_heads, 128]; k/v caches [num_blocks,
// 16, num_kv_heads, 128], strides in elements (multiples of 16);
// block_tables i32 [num_seqs, max_pages]; seq_lens i32 [num_seqs]. Partials
// part_o f32 [num_seqs, num_q_heads, num_splits, 128] and part_ml f32
// [num_seqs, num_q_heads, num_splits, 2] (running max in base 2, sum).
//
// 1. @paged_decode_split, grid (num_seqs, num_kv_heads, num_splits): program
//    (s, kvh, j) runs the online softmax over tokens [j * tokens_per_split,
//    (j + 1) * tokens_per_split) of sequence s for the 4 query heads of KV
//    head kvh (the last split also takes any tokens beyond) and writes its
//    partials.
// 2. @paged_decode_combine, grid (num_seqs, num_q_heads, 1): merges the
//    splits with a log-sum-exp weighting into out.
// Neither grid depends on the sequence lengths (CUDA-graph safe). On sm_80+
// the K and V tiles are staged through shared memory with cp.async, the
// next tile's copy in flight while the current one is computed
// (quire-async-copies).
func.func @paged_decode_split(
    %part_o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %part_ml: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %v_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %block_tables: !tile.ptr<i32> {tile.divisibility = 16 : i32},
    %seq_lens: !tile.ptr<i32>,
    %scale: f32,
    %tokens_per_split: i32 {tile.divisibility = 16 : i32},
    %q_seq_stride: i64 {tile.divisibility = 16 : i32}, %q_head_stride: i32 {tile.divisibility = 16 : i32},
    %bt_stride: i64,
    %k_page_stride: i64 {tile.divisibility = 16 : i32}, %k_token_stride: i64 {tile.divisibility = 16 : i32},
    %k_head_stride: i64 {tile.divisibility = 16 : i32},
    %v_page_stride: i64 {tile.divisibility = 16 : i32}, %v_token_stride: i64 {tile.divisibility = 16 : i32},
    %v_head_stride: i64 {tile.divisibility = 16 : i32}
    )
    attributes {tile.kernel} {
  %seq = tile.program_id x
  %kv_head = tile.program_id y
  %split = tile.program_id z
  %num_kv_heads = tile.num_programs y
  %num_splits = tile.num_programs z
  %cblock = arith.constant 16 : i32
  %cgroup = arith.constant 4 : i32

  // This split's tokens [start0, end) of the sequence, and its block-table row.
  %len_ptr = tile.addptr %seq_lens, %seq : !tile.ptr<i32>, i32
  %seq_len = tile.load %len_ptr : !tile.ptr<i32>
  // The last split also takes any tokens past num_splits * tokens_per_split,
  // so an understated max_seq_len costs time, never tokens.
  %start0 = arith.muli %split, %tokens_per_split : i32
  %end0 = arith.addi %start0, %tokens_per_split : i32
  %c1 = arith.constant 1 : i32
  %last_split = arith.subi %num_splits, %c1 : i32
  %is_last = arith.cmpi eq, %split, %last_split : i32
  %end1 = arith.select %is_last, %seq_len, %end0 : i32
  %end = arith.minsi %end1, %seq_len : i32
  %seq64 = arith.extsi %seq : i32 to i64
  %bt_off = arith.muli %seq64, %bt_stride : i64
  %bt_row = tile.addptr %block_tables, %bt_off : !tile.ptr<i32>, i64

  // The group's query rows g < GROUP (heads kv_head * GROUP + g), columns
  // d < D; padded rows and columns are zero.
  %head0 = arith.muli %kv_head, %cgroup : i32
  %head0_64 = arith.extsi %head0 : i32 to i64
  %g = tile.range 0, 16 : tensor<16xi32>
  %g2 = tile.expand_dims %g {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cgroups = arith.constant dense<4> : tensor<16x1xi32>
  %g_ok = arith.cmpi slt, %g2, %cgroups : tensor<16x1xi32>
  %g_okb = tile.broadcast %g_ok : tensor<16x1xi1> -> tensor<16x128xi1>
  %d = tile.range 0, 128 : tensor<128xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %d_offb = tile.broadcast %d2 : tensor<1x128xi32> -> tensor<16x128xi32>
  %cd = arith.constant dense<128> : tensor<1x128xi32>
  %d_ok = arith.cmpi slt, %d2, %cd : tensor<1x128xi32>
  %d_okb = tile.broadcast %d_ok : tensor<1x128xi1> -> tensor<16x128xi1>
  %q_mask = arith.andi %g_okb, %d_okb : tensor<16x128xi1>

  %q_seq_off = arith.muli %seq64, %q_seq_stride : i64
  %q_head_stride64 = arith.extsi %q_head_stride : i32 to i64
  %q_head_off = arith.muli %head0_64, %q_head_stride64 : i64
  %q_off = arith.addi %q_seq_off, %q_head_off : i64
  %q_base = tile.addptr %q, %q_off : !tile.ptr<f16>, i64
  %q_hs = tile.splat %q_head_stride : i32 -> tensor<16x1xi32>
  %q_goff = arith.muli %g2, %q_hs : tensor<16x1xi32>
  %q_goffb = tile.broadcast %q_goff : tensor<16x1xi32> -> tensor<16x128xi32>
  %q_offs = arith.addi %q_goffb, %d_offb : tensor<16x128xi32>
  %qs = tile.splat %q_base : !tile.ptr<f16> -> tensor<16x128x!tile.ptr<f16>>
  %q_ptrs = tile.addptr %qs, %q_offs : tensor<16x128x!tile.ptr<f16>>, tensor<16x128xi32>
  %zq = arith.constant dense<0.0> : tensor<16x128xf16>
  %qv = tile.load %q_ptrs, %q_mask, %zq : tensor<16x128x!tile.ptr<f16>>

  // Scores in base 2: s = (q . k) * scale * log2(e).
  %log2e = arith.constant 1.44269504088896340736 : f32
  %sl2 = arith.mulf %scale, %log2e : f32
  %scales = tile.splat %sl2 : f32 -> tensor<16x16xf32>
  %ninf_g = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zero_g = arith.constant dense<0.0> : tensor<16xf32>
  %zero_acc = arith.constant dense<0.0> : tensor<16x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<16x16xf32>
  %ninf_s = arith.constant dense<0xFF800000> : tensor<16x16xf32>
  %toks0 = tile.range 0, 16 : tensor<16xi32>
  %ends = tile.splat %end : i32 -> tensor<16xi32>

  %res:3 = scf.for %start = %start0 to %end step %cblock
      iter_args(%m = %ninf_g, %l = %zero_g, %acc = %zero_acc)
      -> (tensor<16xf32>, tensor<16xf32>, tensor<16x128xf32>) : i32 {
    %k = tile.paged_load %k_cache[%bt_row, %start, %kv_head] {page_size = 16 : i32}
           strides(%k_page_stride, %k_token_stride, %k_head_stride)
           bound %end : tensor<16x128xf16>
    %kt = tile.trans %k : tensor<16x128xf16> -> tensor<128x16xf16>
    %qk = tile.dot %qv, %kt, %zero_s : tensor<16x128xf16> * tensor<128x16xf16> -> tensor<16x16xf32>
    %s0 = arith.mulf %qk, %scales : tensor<16x16xf32>
    %starts = tile.splat %start : i32 -> tensor<16xi32>
    %toks = arith.addi %starts, %toks0 : tensor<16xi32>
    %valid = arith.cmpi slt, %toks, %ends : tensor<16xi32>
    %valid2 = tile.expand_dims %valid {axis = 0 : i32} : tensor<16xi1> -> tensor<1x16xi1>
    %validb = tile.broadcast %valid2 : tensor<1x16xi1> -> tensor<16x16xi1>
    %s = arith.select %validb, %s0, %ninf_s : tensor<16x16xi1>, tensor<16x16xf32>

    // Online softmax update.
    %tile_max = tile.reduce max %s {axis = 1 : i32} : tensor<16x16xf32> -> tensor<16xf32>
    %m_new = arith.maximumf %m, %tile_max : tensor<16xf32>
    %m_new2 = tile.expand_dims %m_new {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %m_newb = tile.broadcast %m_new2 : tensor<16x1xf32> -> tensor<16x16xf32>
    %sd = arith.subf %s, %m_newb : tensor<16x16xf32>
    %p = math.exp2 %sd : tensor<16x16xf32>
    %md = arith.subf %m, %m_new : tensor<16xf32>
    %alpha = math.exp2 %md : tensor<16xf32>
    %psum = tile.reduce sum %p {axis = 1 : i32} : tensor<16x16xf32> -> tensor<16xf32>
    %la = arith.mulf %l, %alpha : tensor<16xf32>
    %l_new = arith.addf %la, %psum : tensor<16xf32>

    %v = tile.paged_load %v_cache[%bt_row, %start, %kv_head] {page_size = 16 : i32}
           strides(%v_page_stride, %v_token_stride, %v_head_stride)
           bound %end : tensor<16x128xf16>
    %pc = arith.truncf %p : tensor<16x16xf32> to tensor<16x16xf16>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %alphab = tile.broadcast %alpha2 : tensor<16x1xf32> -> tensor<16x128xf32>
    %acc_scaled = arith.mulf %acc, %alphab : tensor<16x128xf32>
    %acc_new = tile.dot %pc, %v, %acc_scaled : tensor<16x16xf16> * tensor<16x128xf16> -> tensor<16x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<16xf32>, tensor<16xf32>, tensor<16x128xf32>
  }

  // Partials of the group's heads: row (seq * num_q_heads + head0 + g) *
  // num_splits + split of part_o (DP floats) and part_ml (m, l).
  %hq = arith.muli %num_kv_heads, %cgroup : i32
  %hq64 = arith.extsi %hq : i32 to i64
  %ns64 = arith.extsi %num_splits : i32 to i64
  %split64 = arith.extsi %split : i32 to i64
  %r0a = arith.muli %seq64, %hq64 : i64
  %r0b = arith.addi %r0a, %head0_64 : i64
  %r0c = arith.muli %r0b, %ns64 : i64
  %row0 = arith.addi %r0c, %split64 : i64
  %cdp64 = arith.constant 128 : i64
  %po_off = arith.muli %row0, %cdp64 : i64
  %po_base = tile.addptr %part_o, %po_off : !tile.ptr<f32>, i64
  %c2_64 = arith.constant 2 : i64
  %pml_off = arith.muli %row0, %c2_64 : i64
  %pml_base = tile.addptr %part_ml, %pml_off : !tile.ptr<f32>, i64
  %nss = tile.splat %num_splits : i32 -> tensor<16xi32>
  %g_rows = arith.muli %g, %nss : tensor<16xi32>
  %g_rows2 = tile.expand_dims %g_rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cdp = arith.constant dense<128> : tensor<16x1xi32>
  %orow = arith.muli %g_rows2, %cdp : tensor<16x1xi32>
  %orowb = tile.broadcast %orow : tensor<16x1xi32> -> tensor<16x128xi32>
  %ooffs = arith.addi %orowb, %d_offb : tensor<16x128xi32>
  %pos = tile.splat %po_base : !tile.ptr<f32> -> tensor<16x128x!tile.ptr<f32>>
  %po_ptrs = tile.addptr %pos, %ooffs : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xi32>
  tile.store %po_ptrs, %res#2, %g_okb : tensor<16x128x!tile.ptr<f32>>
  %cgroup1 = arith.constant dense<4> : tensor<16xi32>
  %g_in = arith.cmpi slt, %g, %cgroup1 : tensor<16xi32>
  %c2 = arith.constant dense<2> : tensor<16xi32>
  %moff = arith.muli %g_rows, %c2 : tensor<16xi32>
  %one = arith.constant dense<1> : tensor<16xi32>
  %loff = arith.addi %moff, %one : tensor<16xi32>
  %pms = tile.splat %pml_base : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %pm_ptrs = tile.addptr %pms, %moff : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %pm_ptrs, %res#0, %g_in : tensor<16x!tile.ptr<f32>>
  %pl_ptrs = tile.addptr %pms, %loff : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %pl_ptrs, %res#1, %g_in : tensor<16x!tile.ptr<f32>>
  return
}


// out[s, h, :] = sum_j w_j * part_o[s, h, j, :] / sum_j w_j * l_j with
// w_j = exp2(m_j - max_j m_j) (m in base 2); splits that saw no token
// (m = -inf) weigh 0, and a head with no token at all (every l = 0) gets 0.
func.func @paged_decode_combine(
    %out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %part_o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %part_ml: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %out_seq_stride: i64 {tile.divisibility = 16 : i32}, %out_head_stride: i64 {tile.divisibility = 16 : i32},
    %num_splits: i32) attributes {tile.kernel} {
  %seq = tile.program_id x
  %head = tile.program_id y
  %num_q_heads = tile.num_programs y
  %seq64 = arith.extsi %seq : i32 to i64
  %head64 = arith.extsi %head : i32 to i64
  %hq64 = arith.extsi %num_q_heads : i32 to i64
  %ns64 = arith.extsi %num_splits : i32 to i64
  %r0 = arith.muli %seq64, %hq64 : i64
  %r1 = arith.addi %r0, %head64 : i64
  %row0 = arith.muli %r1, %ns64 : i64

  %j = tile.range 0, 32 : tensor<32xi32>
  %ns = tile.splat %num_splits : i32 -> tensor<32xi32>
  %jmask = arith.cmpi slt, %j, %ns : tensor<32xi32>
  %c2_64 = arith.constant 2 : i64
  %ml_off = arith.muli %row0, %c2_64 : i64
  %ml_base = tile.addptr %part_ml, %ml_off : !tile.ptr<f32>, i64
  %c2 = arith.constant dense<2> : tensor<32xi32>
  %moff = arith.muli %j, %c2 : tensor<32xi32>
  %one = arith.constant dense<1> : tensor<32xi32>
  %loff = arith.addi %moff, %one : tensor<32xi32>
  %mls = tile.splat %ml_base : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %mp = tile.addptr %mls, %moff : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  %lp = tile.addptr %mls, %loff : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<32xf32>
  %zero = arith.constant dense<0.0> : tensor<32xf32>
  %m = tile.load %mp, %jmask, %ninf : tensor<32x!tile.ptr<f32>>
  %l = tile.load %lp, %jmask, %zero : tensor<32x!tile.ptr<f32>>
  %m_all = tile.reduce max %m {axis = 0 : i32} : tensor<32xf32> -> f32
  %m_alls = tile.splat %m_all : f32 -> tensor<32xf32>
  %seen = arith.cmpf ogt, %m, %ninf : tensor<32xf32>
  %md = arith.subf %m, %m_alls : tensor<32xf32>
  %e = math.exp2 %md : tensor<32xf32>
  %w = arith.select %seen, %e, %zero : tensor<32xi1>, tensor<32xf32>
  %wl = arith.mulf %w, %l : tensor<32xf32>
  %denom = tile.reduce sum %wl {axis = 0 : i32} : tensor<32xf32> -> f32

  %cdp64 = arith.constant 128 : i64
  %o_off = arith.muli %row0, %cdp64 : i64
  %o_base = tile.addptr %part_o, %o_off : !tile.ptr<f32>, i64
  %d = tile.range 0, 128 : tensor<128xi32>
  %j2 = tile.expand_dims %j {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %cdp = arith.constant dense<128> : tensor<32x1xi32>
  %jrow = arith.muli %j2, %cdp : tensor<32x1xi32>
  %jrowb = tile.broadcast %jrow : tensor<32x1xi32> -> tensor<32x128xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %db = tile.broadcast %d2 : tensor<1x128xi32> -> tensor<32x128xi32>
  %offs = arith.addi %jrowb, %db : tensor<32x128xi32>
  %ops = tile.splat %o_base : !tile.ptr<f32> -> tensor<32x128x!tile.ptr<f32>>
  %op = tile.addptr %ops, %offs : tensor<32x128x!tile.ptr<f32>>, tensor<32x128xi32>
  %jm2 = tile.expand_dims %jmask {axis = 1 : i32} : tensor<32xi1> -> tensor<32x1xi1>
  %jmb = tile.broadcast %jm2 : tensor<32x1xi1> -> tensor<32x128xi1>
  %zo = arith.constant dense<0.0> : tensor<32x128xf32>
  %o = tile.load %op, %jmb, %zo : tensor<32x128x!tile.ptr<f32>>
  %w2 = tile.expand_dims %w {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %wb = tile.broadcast %w2 : tensor<32x1xf32> -> tensor<32x128xf32>
  %ow = arith.mulf %o, %wb : tensor<32x128xf32>
  %osum = tile.reduce sum %ow {axis = 0 : i32} : tensor<32x128xf32> -> tensor<128xf32>
  %zf = arith.constant 0.0 : f32
  %onef = arith.constant 1.0 : f32
  %has = arith.cmpf ogt, %denom, %zf : f32
  %den = arith.select %has, %denom, %onef : f32
  %dens = tile.splat %den : f32 -> tensor<128xf32>
  %res = arith.divf %osum, %dens fastmath<arcp> : tensor<128xf32>
  %rc = arith.truncf %res : tensor<128xf32> to tensor<128xf16>

  %out_s = arith.muli %seq64, %out_seq_stride : i64
  %out_h = arith.muli %head64, %out_head_stride : i64
  %out_off = arith.addi %out_s, %out_h : i64
  %out_base = tile.addptr %out, %out_off : !tile.ptr<f16>, i64
  %cd = arith.constant dense<128> : tensor<128xi32>
  %d_ok = arith.cmpi slt, %d, %cd : tensor<128xi32>
  %outs = tile.splat %out_base : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  %optr = tile.addptr %outs, %d : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  tile.store %optr, %rc, %d_ok : tensor<128x!tile.ptr<f16>>
  return
}
