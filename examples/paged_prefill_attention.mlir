// Paged prefill attention (vLLM's prefix prefill / chunked prefill): a block
// of 64 query tokens of one sequence and one query head attends over
//   1. the sequence's cached context, read through the block table, and
//   2. the chunk's own new tokens, causally (query i sees new tokens j <= i).
// head_dim 128, 64 keys per iteration, page size 16, GQA by head / group.
//
// Layouts (vLLM's):
//   q, out        f16 [num_tokens, num_q_heads, 128]  (a batch's chunks back to back)
//   k_new, v_new  f16 [num_tokens, num_kv_heads, 128]  the chunks' own keys/values
//   k/v_cache     f16 [num_blocks, 16, num_kv_heads, 128], strides in elements
//                 (multiples of 16; the last dimension is dense)
//   block_tables  i32 [num_seqs, max_pages]
//   query_start   i32 [num_seqs + 1]  chunk of sequence s: tokens
//                                     query_start[s] .. query_start[s+1]-1
//   ctx_lens      i32 [num_seqs]      tokens of sequence s already in the cache
// out[t, h, :] = softmax(scale * q[t, h] . [K_ctx; K_new[:i+1]]^T) [V_ctx; V_new[:i+1]]
//
// Grid: (num_seqs, num_q_heads, ceil(max_chunk_len / 64)); programs past
// their chunk's end do nothing. Both dots run on tensor cores (mma.sync):
// S = Q K^T, then P V with P kept in registers; online softmax in base 2.
func.func @paged_prefill_attention(
    %out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k_new: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %v_new: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %v_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %block_tables: !tile.ptr<i32> {tile.divisibility = 16 : i32},
    %query_start: !tile.ptr<i32>,
    %ctx_lens: !tile.ptr<i32>,
    %scale: f32, %num_q_heads: i32, %num_kv_heads: i32, %max_pages: i32,
    %page_stride: i64 {tile.divisibility = 16 : i32},
    %token_stride: i64 {tile.divisibility = 16 : i32},
    %head_stride: i64 {tile.divisibility = 16 : i32})
    attributes {tile.kernel} {
  %seq = tile.program_id x
  %head = tile.program_id y
  %mblk = tile.program_id z
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %group = arith.divui %num_q_heads, %num_kv_heads : i32
  %kv_head = arith.divui %head, %group : i32

  // This program's chunk rows and the sequence's context.
  %qs_ptr = tile.addptr %query_start, %seq : !tile.ptr<i32>, i32
  %q_begin = tile.load %qs_ptr : !tile.ptr<i32>
  %qe_ptr = tile.addptr %qs_ptr, %c1 : !tile.ptr<i32>, i32
  %q_end = tile.load %qe_ptr : !tile.ptr<i32>
  %q_len = arith.subi %q_end, %q_begin : i32
  %cl_ptr = tile.addptr %ctx_lens, %seq : !tile.ptr<i32>, i32
  %ctx_len = tile.load %cl_ptr : !tile.ptr<i32>
  %m0 = arith.muli %mblk, %c64 : i32
  %active = arith.cmpi slt, %m0, %q_len : i32
  %bt_off = arith.muli %seq, %max_pages : i32
  %bt_row = tile.addptr %block_tables, %bt_off : !tile.ptr<i32>, i32

  // Query rows i = m0 + r of the chunk (r < 64), valid while i < q_len.
  %r = tile.range 0, 64 : tensor<64xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<64xi32>
  %rows = arith.addi %r, %m0s : tensor<64xi32>
  %q_lens = tile.splat %q_len : i32 -> tensor<64xi32>
  %row_ok = arith.cmpi slt, %rows, %q_lens : tensor<64xi32>
  %row_ok2 = tile.expand_dims %row_ok {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
  %row_okb = tile.broadcast %row_ok2 : tensor<64x1xi1> -> tensor<64x128xi1>
  // q offsets ((q_begin + i) * num_q_heads + head) * 128 + d.
  %qb = tile.splat %q_begin : i32 -> tensor<64xi32>
  %qtok = arith.addi %qb, %rows : tensor<64xi32>
  %nqh = tile.splat %num_q_heads : i32 -> tensor<64xi32>
  %qrow = arith.muli %qtok, %nqh : tensor<64xi32>
  %heads = tile.splat %head : i32 -> tensor<64xi32>
  %qrow2 = arith.addi %qrow, %heads : tensor<64xi32>
  %c128v = arith.constant dense<128> : tensor<64xi32>
  %qrow3 = arith.muli %qrow2, %c128v : tensor<64xi32>
  %qrow4 = tile.expand_dims %qrow3 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %qrowb = tile.broadcast %qrow4 : tensor<64x1xi32> -> tensor<64x128xi32>
  %d = tile.range 0, 128 : tensor<128xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %db = tile.broadcast %d2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %q_offs = arith.addi %qrowb, %db : tensor<64x128xi32>
  %qsp = tile.splat %q : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %q_ptrs = tile.addptr %qsp, %q_offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  %zq = arith.constant dense<0.0> : tensor<64x128xf16>
  %qv = tile.load %q_ptrs, %row_okb, %zq : tensor<64x128x!tile.ptr<f16>>

  // Scores in base 2: s = (q . k) * scale * log2(e).
  %log2e = arith.constant 1.44269504088896340736 : f32
  %sl2 = arith.mulf %scale, %log2e : f32
  %scales = tile.splat %sl2 : f32 -> tensor<64x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32>
  %zero_l = arith.constant dense<0.0> : tensor<64xf32>
  %zero_acc = arith.constant dense<0.0> : tensor<64x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<64x64xf32>
  %ninf_s = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %cols = tile.range 0, 64 : tensor<64xi32>

  // 1. The cached context: every query row sees every context token.
  %ctx_end = arith.select %active, %ctx_len, %c0 : i32
  %ctx_lens_v = tile.splat %ctx_len : i32 -> tensor<64xi32>
  %ctx:3 = scf.for %start = %c0 to %ctx_end step %c64
      iter_args(%m = %ninf, %l = %zero_l, %acc = %zero_acc)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>) : i32 {
    %k = tile.paged_load %k_cache[%bt_row, %start, %kv_head] {page_size = 16 : i32}
           strides(%page_stride, %token_stride, %head_stride)
           bound %ctx_len : tensor<64x128xf16>
    %kt = tile.trans %k : tensor<64x128xf16> -> tensor<128x64xf16>
    %qk = tile.dot %qv, %kt, %zero_s : tensor<64x128xf16> * tensor<128x64xf16> -> tensor<64x64xf32>
    %s0 = arith.mulf %qk, %scales : tensor<64x64xf32>
    %starts = tile.splat %start : i32 -> tensor<64xi32>
    %toks = arith.addi %starts, %cols : tensor<64xi32>
    %tok_ok = arith.cmpi slt, %toks, %ctx_lens_v : tensor<64xi32>
    %tok_ok2 = tile.expand_dims %tok_ok {axis = 0 : i32} : tensor<64xi1> -> tensor<1x64xi1>
    %tok_okb = tile.broadcast %tok_ok2 : tensor<1x64xi1> -> tensor<64x64xi1>
    %s = arith.select %tok_okb, %s0, %ninf_s : tensor<64x64xi1>, tensor<64x64xf32>

    %tile_max = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
    %m_new = arith.maximumf %m, %tile_max : tensor<64xf32>
    %m_new2 = tile.expand_dims %m_new {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %m_newb = tile.broadcast %m_new2 : tensor<64x1xf32> -> tensor<64x64xf32>
    %sd = arith.subf %s, %m_newb : tensor<64x64xf32>
    %p = math.exp2 %sd : tensor<64x64xf32>
    %md = arith.subf %m, %m_new : tensor<64xf32>
    %alpha = math.exp2 %md : tensor<64xf32>
    %psum = tile.reduce sum %p {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
    %la = arith.mulf %l, %alpha : tensor<64xf32>
    %l_new = arith.addf %la, %psum : tensor<64xf32>

    %v = tile.paged_load %v_cache[%bt_row, %start, %kv_head] {page_size = 16 : i32}
           strides(%page_stride, %token_stride, %head_stride)
           bound %ctx_len : tensor<64x128xf16>
    %p16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %alphab = tile.broadcast %alpha2 : tensor<64x1xf32> -> tensor<64x128xf32>
    %acc_scaled = arith.mulf %acc, %alphab : tensor<64x128xf32>
    %acc_new = tile.dot %p16, %v, %acc_scaled : tensor<64x64xf16> * tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
  }

  // 2. The chunk's own tokens j < min(m0 + 64, q_len), causal: j <= i.
  %m_end = arith.addi %m0, %c64 : i32
  %new_end0 = arith.minsi %m_end, %q_len : i32
  %new_end = arith.select %active, %new_end0, %c0 : i32
  %nkv = tile.splat %num_kv_heads : i32 -> tensor<64xi32>
  %kvh = tile.splat %kv_head : i32 -> tensor<64xi32>
  %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rowsb = tile.broadcast %rows2 : tensor<64x1xi32> -> tensor<64x64xi32>
  %zkv = arith.constant dense<0.0> : tensor<64x128xf16>
  %knp = tile.splat %k_new : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %vnp = tile.splat %v_new : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %res:3 = scf.for %start = %c0 to %new_end step %c64
      iter_args(%m = %ctx#0, %l = %ctx#1, %acc = %ctx#2)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>) : i32 {
    %starts = tile.splat %start : i32 -> tensor<64xi32>
    %j = arith.addi %starts, %cols : tensor<64xi32>
    %j_ok = arith.cmpi slt, %j, %q_lens : tensor<64xi32>
    // kv offsets ((q_begin + j) * num_kv_heads + kv_head) * 128 + d.
    %jt = arith.addi %qb, %j : tensor<64xi32>
    %jrow = arith.muli %jt, %nkv : tensor<64xi32>
    %jrow2 = arith.addi %jrow, %kvh : tensor<64xi32>
    %jrow3 = arith.muli %jrow2, %c128v : tensor<64xi32>
    %jrow4 = tile.expand_dims %jrow3 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %jrowb = tile.broadcast %jrow4 : tensor<64x1xi32> -> tensor<64x128xi32>
    %kv_offs = arith.addi %jrowb, %db : tensor<64x128xi32>
    %j_ok2 = tile.expand_dims %j_ok {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
    %j_okb = tile.broadcast %j_ok2 : tensor<64x1xi1> -> tensor<64x128xi1>
    %k_ptrs = tile.addptr %knp, %kv_offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %k = tile.load %k_ptrs, %j_okb, %zkv : tensor<64x128x!tile.ptr<f16>>
    %kt = tile.trans %k : tensor<64x128xf16> -> tensor<128x64xf16>
    %qk = tile.dot %qv, %kt, %zero_s : tensor<64x128xf16> * tensor<128x64xf16> -> tensor<64x64xf32>
    %s0 = arith.mulf %qk, %scales : tensor<64x64xf32>
    %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %jb = tile.broadcast %j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %causal = arith.cmpi sle, %jb, %rowsb : tensor<64x64xi32>
    %s = arith.select %causal, %s0, %ninf_s : tensor<64x64xi1>, tensor<64x64xf32>

    %tile_max = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
    %m_new = arith.maximumf %m, %tile_max : tensor<64xf32>
    %m_new2 = tile.expand_dims %m_new {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %m_newb = tile.broadcast %m_new2 : tensor<64x1xf32> -> tensor<64x64xf32>
    %sd = arith.subf %s, %m_newb : tensor<64x64xf32>
    %p = math.exp2 %sd : tensor<64x64xf32>
    %md = arith.subf %m, %m_new : tensor<64xf32>
    %alpha = math.exp2 %md : tensor<64xf32>
    %psum = tile.reduce sum %p {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
    %la = arith.mulf %l, %alpha : tensor<64xf32>
    %l_new = arith.addf %la, %psum : tensor<64xf32>

    %v_ptrs = tile.addptr %vnp, %kv_offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %v = tile.load %v_ptrs, %j_okb, %zkv : tensor<64x128x!tile.ptr<f16>>
    %p16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %alphab = tile.broadcast %alpha2 : tensor<64x1xf32> -> tensor<64x128xf32>
    %acc_scaled = arith.mulf %acc, %alphab : tensor<64x128xf32>
    %acc_new = tile.dot %p16, %v, %acc_scaled : tensor<64x64xf16> * tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
  }

  // out = acc / l for the valid rows (every valid row saw at least itself).
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %has = arith.cmpf ogt, %res#1, %zero_l : tensor<64xf32>
  %l_safe = arith.select %has, %res#1, %one : tensor<64xi1>, tensor<64xf32>
  %l2 = tile.expand_dims %l_safe {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %lb = tile.broadcast %l2 : tensor<64x1xf32> -> tensor<64x128xf32>
  %o = arith.divf %res#2, %lb : tensor<64x128xf32>
  %o16 = arith.truncf %o : tensor<64x128xf32> to tensor<64x128xf16>
  %osp = tile.splat %out : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %o_ptrs = tile.addptr %osp, %q_offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  tile.store %o_ptrs, %o16, %row_okb : tensor<64x128x!tile.ptr<f16>>
  return
}
