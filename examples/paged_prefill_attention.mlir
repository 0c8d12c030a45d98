// Paged prefill attention (vLLM's prefix prefill / chunked prefill) on tensor
// cores: the kernel behind quire.ops.paged_prefill_attention
// (examples/paged_prefill_attention.mlir is one specialization of this file).
//
// A program takes BLOCK_M query tokens of one sequence's chunk and one query
// head; they attend over
//   1. the sequence's cached context (its first ctx_s tokens), read through the
//      block table with tile.paged_load, K transposed for Q K^T, and
//   2. the chunk's own tokens, causally (query token i sees new tokens
//      j <= i), read from k_new/v_new (SEPARATE) or from the cache, where
//      they are tokens ctx_s + j of the sequence (not SEPARATE: vLLM
//      writes the chunk's K/V into the cache before attention).
// Online softmax in base 2 over tiles of BLOCK_N keys; P stays in registers
// (the S accumulator becomes the A operand of P V).
//
// Placeholders (python/quire/ops.py fills them in; each distinct set is one
// compiled specialization, cached in memory and on disk):
//   ${DTYPE}       f16 or bf16: q, out, the caches and k_new/v_new
//   ${GROUP}       query heads per KV head (GQA group)
//   ${D}           head dimension
//   ${DP}          D padded to a power of two >= 16: the tile width
//   ${COLS}        `cols = D : i32, ` when DP > D (the paged loads read no
//                  column >= D), else empty
//   ${PAGE_SIZE}   tokens per cache block
//   ${BLOCK_M}     query tokens per program, a power of two >= 16
//   ${BLOCK_N}     keys per loop iteration, a power of two >= 16
//   ${PTR_DIV}     ` {tile.divisibility = 16 : i32}` when every data pointer
//                  is 16-byte aligned, else empty
//   ${STRIDE_DIV}  the same when every stride marked with it is a multiple
//                  of 16 elements, else empty
// and one switch, SEPARATE (lines between `// IF SEPARATE` and `// ELSE`
// when on, between `// ELSE` and `// ENDIF` when off).
//
// Layouts (strides in elements; the last dimension of each is dense):
//   q, out        [num_tokens, num_q_heads, D]   the batch's chunks back to back
//   k_new, v_new  [num_tokens, num_kv_heads, D]  (SEPARATE)
//   k/v_cache     [num_blocks, PAGE_SIZE, num_kv_heads, D]
//   block_tables  i32 [num_seqs, max_blocks]
//   query_start   i32 [num_seqs + 1]  chunk of sequence s: tokens
//                                     query_start[s] .. query_start[s+1]-1
//   seq_lens      i32 [num_seqs]      tokens of sequence s with its chunk:
//                                     context ctx_s = seq_lens[s] - chunk
//                                     length (clamped at 0)
// out[t, h, :] = softmax(scale * q[t, h] . [K_ctx; K_new[:i+1]]^T) [V_ctx; V_new[:i+1]]
//
// Grid: (num_seqs, num_q_heads, ceil(max_chunk_len / BLOCK_M)); programs past
// their chunk's end do nothing. The grid depends on shapes and the longest
// chunk only. The contract with ops.py: query_start is non-decreasing from 0
// to num_tokens and seq_lens[s] <= max_blocks * PAGE_SIZE (the cache holds
// the context, and the chunk too when it is read from there); in-tile offsets (BLOCK_M rows of q/out, BLOCK_N of k_new/v_new)
// fit 32 bits.
func.func @paged_prefill_attention(
    %out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k_new: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %v_new: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %v_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %block_tables: !tile.ptr<i32> {tile.divisibility = 16 : i32},
    %query_start: !tile.ptr<i32>,
    %seq_lens: !tile.ptr<i32>,
    %scale: f32,
    %bt_stride: i64,
    %q_token_stride: i32 {tile.divisibility = 16 : i32}, %q_head_stride: i64 {tile.divisibility = 16 : i32},
    %out_token_stride: i32 {tile.divisibility = 16 : i32}, %out_head_stride: i64 {tile.divisibility = 16 : i32},
    %kn_token_stride: i32 {tile.divisibility = 16 : i32}, %kn_head_stride: i64 {tile.divisibility = 16 : i32},
    %vn_token_stride: i32 {tile.divisibility = 16 : i32}, %vn_head_stride: i64 {tile.divisibility = 16 : i32},
    %k_page_stride: i64 {tile.divisibility = 16 : i32}, %k_token_stride: i64 {tile.divisibility = 16 : i32},
    %k_head_stride: i64 {tile.divisibility = 16 : i32},
    %v_page_stride: i64 {tile.divisibility = 16 : i32}, %v_token_stride: i64 {tile.divisibility = 16 : i32},
    %v_head_stride: i64 {tile.divisibility = 16 : i32})
    attributes {tile.kernel} {
  %seq = tile.program_id x
  %head = tile.program_id y
  %mblk = tile.program_id z
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cbm = arith.constant 64 : i32
  %cbn = arith.constant 64 : i32
  %cgroup = arith.constant 4 : i32
  %kv_head = arith.divui %head, %cgroup : i32

  // This program's chunk rows and the sequence's context.
  %qs_ptr = tile.addptr %query_start, %seq : !tile.ptr<i32>, i32
  %q_begin = tile.load %qs_ptr : !tile.ptr<i32>
  %qe_ptr = tile.addptr %qs_ptr, %c1 : !tile.ptr<i32>, i32
  %q_end = tile.load %qe_ptr : !tile.ptr<i32>
  %q_len = arith.subi %q_end, %q_begin : i32
  %sl_ptr = tile.addptr %seq_lens, %seq : !tile.ptr<i32>, i32
  %seq_len = tile.load %sl_ptr : !tile.ptr<i32>
  %ctx0 = arith.subi %seq_len, %q_len : i32
  %ctx_len = arith.maxsi %ctx0, %c0 : i32
  %m0 = arith.muli %mblk, %cbm : i32
  %active = arith.cmpi slt, %m0, %q_len : i32
  %seq64 = arith.extsi %seq : i32 to i64
  %bt_off = arith.muli %seq64, %bt_stride : i64
  %bt_row = tile.addptr %block_tables, %bt_off : !tile.ptr<i32>, i64
  %head64 = arith.extsi %head : i32 to i64
  %kv_head64 = arith.extsi %kv_head : i32 to i64
  %tok0 = arith.addi %q_begin, %m0 : i32
  %tok0_64 = arith.extsi %tok0 : i32 to i64

  // Query rows i = m0 + r of the chunk (r < BLOCK_M), valid while i < q_len;
  // columns d < D.
  %r = tile.range 0, 64 : tensor<64xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<64xi32>
  %rows = arith.addi %r, %m0s : tensor<64xi32>
  %q_lens = tile.splat %q_len : i32 -> tensor<64xi32>
  %row_ok = arith.cmpi slt, %rows, %q_lens : tensor<64xi32>
  %row_ok2 = tile.expand_dims %row_ok {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
  %row_okb = tile.broadcast %row_ok2 : tensor<64x1xi1> -> tensor<64x128xi1>
  %d = tile.range 0, 128 : tensor<128xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %db = tile.broadcast %d2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %cd = arith.constant dense<128> : tensor<1x128xi32>
  %d_ok = arith.cmpi slt, %d2, %cd : tensor<1x128xi32>
  %d_okb = tile.broadcast %d_ok : tensor<1x128xi1> -> tensor<64x128xi1>
  %q_mask = arith.andi %row_okb, %d_okb : tensor<64x128xi1>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>

  // q rows: base (q_begin + m0) * q_token_stride + head * q_head_stride (64
  // bits), in-tile offsets r * q_token_stride + d.
  %q_ts64 = arith.extsi %q_token_stride : i32 to i64
  %q_tok_off = arith.muli %tok0_64, %q_ts64 : i64
  %q_head_off = arith.muli %head64, %q_head_stride : i64
  %q_off = arith.addi %q_tok_off, %q_head_off : i64
  %q_base = tile.addptr %q, %q_off : !tile.ptr<f16>, i64
  %q_ts = tile.splat %q_token_stride : i32 -> tensor<64x1xi32>
  %q_roff = arith.muli %r2, %q_ts : tensor<64x1xi32>
  %q_roffb = tile.broadcast %q_roff : tensor<64x1xi32> -> tensor<64x128xi32>
  %q_offs = arith.addi %q_roffb, %db : tensor<64x128xi32>
  %qsp = tile.splat %q_base : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %q_ptrs = tile.addptr %qsp, %q_offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  %zq = arith.constant dense<0.0> : tensor<64x128xf16>
  %qv = tile.load %q_ptrs, %q_mask, %zq : tensor<64x128x!tile.ptr<f16>>

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
  %ctx:3 = scf.for %start = %c0 to %ctx_end step %cbn
      iter_args(%m = %ninf, %l = %zero_l, %acc = %zero_acc)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>) : i32 {
    %k = tile.paged_load %k_cache[%bt_row, %start, %kv_head] {page_size = 16 : i32}
           strides(%k_page_stride, %k_token_stride, %k_head_stride)
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
           strides(%v_page_stride, %v_token_stride, %v_head_stride)
           bound %ctx_len : tensor<64x128xf16>
    %pc = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %alphab = tile.broadcast %alpha2 : tensor<64x1xf32> -> tensor<64x128xf32>
    %acc_scaled = arith.mulf %acc, %alphab : tensor<64x128xf32>
    %acc_new = tile.dot %pc, %v, %acc_scaled : tensor<64x64xf16> * tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
  }

  // 2. The chunk's own tokens j < min(m0 + BLOCK_M, q_len), causal: j <= i.
  %m_end = arith.addi %m0, %cbm : i32
  %new_end0 = arith.minsi %m_end, %q_len : i32
  %new_end = arith.select %active, %new_end0, %c0 : i32
  %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rowsb = tile.broadcast %rows2 : tensor<64x1xi32> -> tensor<64x64xi32>
  // k_new/v_new rows: base q_begin * token_stride + kv_head * head_stride
  // (64 bits), in-tile offsets (j - start) * token_stride + d.
  %q_begin64 = arith.extsi %q_begin : i32 to i64
  %kn_ts64 = arith.extsi %kn_token_stride : i32 to i64
  %kn_b0 = arith.muli %q_begin64, %kn_ts64 : i64
  %kn_b1 = arith.muli %kv_head64, %kn_head_stride : i64
  %kn_off = arith.addi %kn_b0, %kn_b1 : i64
  %kn_base = tile.addptr %k_new, %kn_off : !tile.ptr<f16>, i64
  %vn_ts64 = arith.extsi %vn_token_stride : i32 to i64
  %vn_b0 = arith.muli %q_begin64, %vn_ts64 : i64
  %vn_b1 = arith.muli %kv_head64, %vn_head_stride : i64
  %vn_off = arith.addi %vn_b0, %vn_b1 : i64
  %vn_base = tile.addptr %v_new, %vn_off : !tile.ptr<f16>, i64
  %c2 = tile.expand_dims %cols {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %kn_ts = tile.splat %kn_token_stride : i32 -> tensor<64x1xi32>
  %kn_roff = arith.muli %c2, %kn_ts : tensor<64x1xi32>
  %kn_roffb = tile.broadcast %kn_roff : tensor<64x1xi32> -> tensor<64x128xi32>
  %dn = tile.broadcast %d2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %kn_offs = arith.addi %kn_roffb, %dn : tensor<64x128xi32>
  %vn_ts = tile.splat %vn_token_stride : i32 -> tensor<64x1xi32>
  %vn_roff = arith.muli %c2, %vn_ts : tensor<64x1xi32>
  %vn_roffb = tile.broadcast %vn_roff : tensor<64x1xi32> -> tensor<64x128xi32>
  %vn_offs = arith.addi %vn_roffb, %dn : tensor<64x128xi32>
  %d_okn = tile.broadcast %d_ok : tensor<1x128xi1> -> tensor<64x128xi1>
  %q_lens_n = tile.splat %q_len : i32 -> tensor<64xi32>
  %zkv = arith.constant dense<0.0> : tensor<64x128xf16>
  %res:3 = scf.for %start = %c0 to %new_end step %cbn
      iter_args(%m = %ctx#0, %l = %ctx#1, %acc = %ctx#2)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>) : i32 {
    %starts = tile.splat %start : i32 -> tensor<64xi32>
    %j = arith.addi %starts, %cols : tensor<64xi32>
    %j_ok = arith.cmpi slt, %j, %q_lens_n : tensor<64xi32>
    %j_ok2 = tile.expand_dims %j_ok {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
    %j_okb = tile.broadcast %j_ok2 : tensor<64x1xi1> -> tensor<64x128xi1>
    %kv_mask = arith.andi %j_okb, %d_okn : tensor<64x128xi1>
    %kn_step = arith.muli %start, %kn_token_stride : i32
    %kn_at = tile.addptr %kn_base, %kn_step : !tile.ptr<f16>, i32
    %knp = tile.splat %kn_at : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
    %k_ptrs = tile.addptr %knp, %kn_offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %k = tile.load %k_ptrs, %kv_mask, %zkv : tensor<64x128x!tile.ptr<f16>>
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

    %vn_step = arith.muli %start, %vn_token_stride : i32
    %vn_at = tile.addptr %vn_base, %vn_step : !tile.ptr<f16>, i32
    %vnp = tile.splat %vn_at : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
    %v_ptrs = tile.addptr %vnp, %vn_offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %v = tile.load %v_ptrs, %kv_mask, %zkv : tensor<64x128x!tile.ptr<f16>>
    %pc = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %alphab = tile.broadcast %alpha2 : tensor<64x1xf32> -> tensor<64x128xf32>
    %acc_scaled = arith.mulf %acc, %alphab : tensor<64x128xf32>
    %acc_new = tile.dot %pc, %v, %acc_scaled : tensor<64x64xf16> * tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
  }

  // out = acc / l for the valid rows (every valid row saw at least itself).
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %has = arith.cmpf ogt, %res#1, %zero_l : tensor<64xf32>
  %l_safe = arith.select %has, %res#1, %one : tensor<64xi1>, tensor<64xf32>
  %l2 = tile.expand_dims %l_safe {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %lb = tile.broadcast %l2 : tensor<64x1xf32> -> tensor<64x128xf32>
  %o = arith.divf %res#2, %lb fastmath<arcp> : tensor<64x128xf32>
  %oc = arith.truncf %o : tensor<64x128xf32> to tensor<64x128xf16>
  %o_ts64 = arith.extsi %out_token_stride : i32 to i64
  %o_tok_off = arith.muli %tok0_64, %o_ts64 : i64
  %o_head_off = arith.muli %head64, %out_head_stride : i64
  %o_off = arith.addi %o_tok_off, %o_head_off : i64
  %o_base = tile.addptr %out, %o_off : !tile.ptr<f16>, i64
  %o_ts = tile.splat %out_token_stride : i32 -> tensor<64x1xi32>
  %o_roff = arith.muli %r2, %o_ts : tensor<64x1xi32>
  %o_roffb = tile.broadcast %o_roff : tensor<64x1xi32> -> tensor<64x128xi32>
  %o_offs = arith.addi %o_roffb, %db : tensor<64x128xi32>
  %osp = tile.splat %o_base : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %o_ptrs = tile.addptr %osp, %o_offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  tile.store %o_ptrs, %oc, %q_mask : tensor<64x128x!tile.ptr<f16>>
  return
}
