// RUN: quire-opt %s --split-input-file --quire-assign-layouts --verify-diagnostics
// One case per diagnostic of quire-assign-layouts about its input.

func.func @paged(%cache: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %tok: i32, %head: i32,
                 %ps: i64, %ts: i64, %hs: i64, %len: i32) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.paged_load' op must be lowered before layouts are assigned (run quire-lower-paged-loads)}}
  %k = tile.paged_load %cache[%bt, %tok, %head] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %len : tensor<64x128xf16>
  return
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @converted() attributes {tile.kernel} {
  %x = tile.range 0, 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.convert_layout' op layouts are already assigned}}
  %y = tile.convert_layout %x : tensor<128xi32> -> tensor<128xi32, #blocked>
  return
}

// -----

func.func @staged() attributes {tile.kernel} {
  %v = arith.constant dense<0.0> : tensor<64x16xf16>
  %s = arith.constant 0 : i32
  // expected-error @+1 {{'tile.local_store' op not supported in a kernel's source: quire-async-copies makes these ops}}
  tile.local_store %v into stage %s {buffer = 1 : i32, contig = 1 : i32, stages = 1 : i32, nvmma} : tensor<64x16xf16>
  return
}

// -----

// Tensors hold at most 2^20 elements: past it LLVM's time on the unrolled
// registers grows faster than their count (2^22 elements took minutes).
func.func @too_large(%p: !tile.ptr<i32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.range' op result #0 has 2097152 elements; tensors hold at most 1048576 (2^20, as Triton's)}}
  %r = tile.range 0, 2097152 : tensor<2097152xi32>
  %s = tile.splat %p : !tile.ptr<i32> -> tensor<2097152x!tile.ptr<i32>>
  %a = tile.addptr %s, %r : tensor<2097152x!tile.ptr<i32>>, tensor<2097152xi32>
  tile.store %a, %r : tensor<2097152x!tile.ptr<i32>>
  return
}
