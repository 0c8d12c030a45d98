// RUN: quire-opt %s --quire-lower-paged-loads=checked --split-input-file --verify-diagnostics
// Checked mode needs the cache's page count on every paged load; each load
// without it is reported at its location, and nothing is rewritten.

func.func @missing(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %first: i32, %head: i32,
                   %ps: i64, %ts: i64, %hs: i64, %len: i32, %nb: i32) {
  // expected-error @+1 {{checked mode needs num_blocks on tile.paged_load (`bound %seq_len num_blocks %n`)}}
  %k = tile.paged_load %cache[%bt, %first, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
  %v = tile.paged_load %cache[%bt, %first, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len num_blocks %nb : tensor<64x128xf16>
  return
}

// -----

func.func @missing_in_a_loop(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %head: i32,
                             %ps: i64, %ts: i64, %hs: i64, %len: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  scf.for %t = %c0 to %len step %c16 : i32 {
    // expected-error @+1 {{checked mode needs num_blocks on tile.paged_load}}
    %k = tile.paged_load %cache[%bt, %t, %head] {page_size = 16 : i32}
           strides(%ps, %ts, %hs) bound %len : tensor<16x128xf16>
    // expected-error @+1 {{checked mode needs num_blocks on tile.paged_load}}
    %v = tile.paged_load %cache[%bt, %t, %head] {page_size = 16 : i32}
           strides(%ps, %ts, %hs) bound %len : tensor<16x128xf16>
  }
  return
}
