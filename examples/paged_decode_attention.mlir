// Paged decode attention (one query token per sequence), GQA group of 4
// query heads per KV head, head_dim 128, 64 tokens per iteration, page size 16.
//
// Layouts (vLLM's):
//   q, out        f16 [num_seqs, num_q_heads, 128]   (contiguous)
//   k/v_cache     f16 [num_blocks, 16, num_kv_heads, 128], strides in elements
//                 page_stride, token_stride, head_stride (the last dim is dense;
//                 the strides are multiples of 16 elements, as vLLM's are)
//   block_tables  i32 [num_seqs, max_pages]
//   seq_lens      i32 [num_seqs]                      (0 is allowed: out = 0)
// out[s, h, :] = softmax(scale * q[s, h, :] . K[s, h/4]^T) V[s, h/4]
//
// One program per (sequence, KV head); launch with grid = (num_seqs, num_kv_heads, 1),
// num_q_heads = 4 * num_kv_heads. Online softmax over token tiles: running
// max %m, running sum %l and accumulator %acc per query head.
func.func @paged_decode_attention(
    %out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %v_cache: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %block_tables: !tile.ptr<i32> {tile.divisibility = 16 : i32},
    %seq_lens: !tile.ptr<i32>,
    %scale: f32, %num_q_heads: i32, %max_pages: i32,
    %page_stride: i64 {tile.divisibility = 16 : i32},
    %token_stride: i64 {tile.divisibility = 16 : i32},
    %head_stride: i64 {tile.divisibility = 16 : i32})
    attributes {tile.kernel} {
  %seq = tile.program_id x
  %kv_head = tile.program_id y
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32

  // This sequence's length and block-table row.
  %len_ptr = tile.addptr %seq_lens, %seq : !tile.ptr<i32>, i32
  %seq_len = tile.load %len_ptr : !tile.ptr<i32>
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
  %lens = tile.splat %seq_len : i32 -> tensor<64xi32>

  %res:3 = scf.for %start = %c0 to %seq_len step %c64
      iter_args(%m = %ninf4, %l = %zero4, %acc = %zero_acc)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<4x128xf32>) : i32 {
    // Scores of this tile of 64 tokens: scale * q . k^T; tokens past seq_len -> -inf.
    %k = tile.paged_load %k_cache[%bt_row, %start, %kv_head] {page_size = 16 : i32}
           strides(%page_stride, %token_stride, %head_stride)
           bound %seq_len : tensor<64x128xf16>
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
           bound %seq_len : tensor<64x128xf16>
    %p16 = arith.truncf %p : tensor<4x64xf32> to tensor<4x64xf16>
    %pv = tile.dot %p16, %v, %zero_acc : tensor<4x64xf16> * tensor<64x128xf16> -> tensor<4x128xf32>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %alphab = tile.broadcast %alpha2 : tensor<4x1xf32> -> tensor<4x128xf32>
    %acc_scaled = arith.mulf %acc, %alphab : tensor<4x128xf32>
    %acc_new = arith.addf %acc_scaled, %pv : tensor<4x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<4xf32>, tensor<4xf32>, tensor<4x128xf32>
  }

  // out = acc / l; an empty sequence (l = 0, acc = 0) writes zeros.
  %zero4b = arith.constant dense<0.0> : tensor<4xf32>
  %one4 = arith.constant dense<1.0> : tensor<4xf32>
  %has = arith.cmpf ogt, %res#1, %zero4b : tensor<4xf32>
  %l_safe = arith.select %has, %res#1, %one4 : tensor<4xi1>, tensor<4xf32>
  %l2 = tile.expand_dims %l_safe {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %lb = tile.broadcast %l2 : tensor<4x1xf32> -> tensor<4x128xf32>
  %o = arith.divf %res#2, %lb fastmath<arcp> : tensor<4x128xf32>
  %o16 = arith.truncf %o : tensor<4x128xf32> to tensor<4x128xf16>
  %os = tile.splat %out : !tile.ptr<f16> -> tensor<4x128x!tile.ptr<f16>>
  %o_ptrs = tile.addptr %os, %q_offs : tensor<4x128x!tile.ptr<f16>>, tensor<4x128xi32>
  tile.store %o_ptrs, %o16 : tensor<4x128x!tile.ptr<f16>>
  return
}
