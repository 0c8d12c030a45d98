// RUN: quire-opt %s --split-input-file --verify-diagnostics
// One case per verifier message of the tile dialect.

// expected-error @+1 {{!tile.ptr pointee must be a signless integer or float scalar, got 'tensor<4xf32>'}}
func.func @ptr_pointee(%p: !tile.ptr<tensor<4xf32>>) { return }

// -----

// expected-error @+1 {{'tile.kernel' must be a unit attribute}}
func.func @kernel_not_unit() attributes {tile.kernel = 1 : i32} { return }

// -----

func.func @kernel_not_func() {
  // expected-error @+1 {{'tile.kernel' may only be placed on a func.func}}
  %0 = arith.constant {tile.kernel} 0 : i32
  return
}

// -----

// expected-error @+1 {{kernel must not return values}}
func.func @kernel_returns() -> i32 attributes {tile.kernel} {
  %0 = arith.constant 0 : i32
  return %0 : i32
}

// -----

// expected-error @+1 {{kernel argument #1 must be a !tile.ptr, !tile.tensormap, i1/i8/i16/i32/i64 or f16/bf16/f32/f64, got 'tensor<4xf32>'}}
func.func @kernel_tensor_arg(%p: !tile.ptr<f32>, %t: tensor<4xf32>) attributes {tile.kernel} { return }

// -----

// An i0 argument would make the NVPTX backend abort (a quire-fuzz finding).
// expected-error @+1 {{kernel argument #0 must be a !tile.ptr, !tile.tensormap, i1/i8/i16/i32/i64 or f16/bf16/f32/f64, got 'i0'}}
func.func @kernel_i0_arg(%a: i0) attributes {tile.kernel} { return }

// -----

// expected-error @+1 {{kernel argument #0 must be a !tile.ptr, !tile.tensormap, i1/i8/i16/i32/i64 or f16/bf16/f32/f64, got 'i7'}}
func.func @kernel_i7_arg(%a: i7) attributes {tile.kernel} { return }

// -----

// On an op, tile.divisibility and tile.contiguity are hints for its first
// result.
// expected-error @+1 {{'tile.divisibility' is a hint for an op's first result; this op has none}}
func.func @divisibility_on_op() attributes {tile.divisibility = 16 : i32} { return }

// -----

func.func @hint_rank(%x: tensor<64xi32>, %y: tensor<64xi32>) {
  // expected-error @+1 {{'tile.contiguity' must be an i32 or an array<i32> of one value per dimension of the result (1), got array<i32: 64, 1>}}
  %r = arith.addi %x, %y {tile.contiguity = array<i32: 64, 1>} : tensor<64xi32>
  return
}

// -----

func.func @hint_type(%a: i32, %b: i32) {
  // expected-error @+1 {{'tile.divisibility' must be an i32 or an array<i32> of one value per dimension of the result (0), got 16 : i64}}
  %o = arith.muli %a, %b {tile.divisibility = 16 : i64} : i32
  return
}

// -----

func.func @hint_positive(%x: tensor<4x8xi32>, %y: tensor<4x8xi32>) {
  // expected-error @+1 {{'tile.divisibility' values must be positive, got array<i32: 16, 0>}}
  %r = arith.addi %x, %y {tile.divisibility = array<i32: 16, 0>} : tensor<4x8xi32>
  return
}

// -----

func.func @hint_on_float(%x: f32, %y: f32) {
  // expected-error @+1 {{'tile.divisibility' needs an integer or pointer result, got 'f32'}}
  %r = arith.addf %x, %y {tile.divisibility = 16 : i32} : f32
  return
}

// -----

// expected-error @+1 {{unknown tile dialect attribute 'tile.kernal'}}
func.func @unknown_attr() attributes {tile.kernal} { return }

// -----

// expected-error @+1 {{unknown tile dialect argument attribute 'tile.divisible'}}
func.func @unknown_arg_attr(%p: !tile.ptr<f32> {tile.divisible = 16 : i32}) { return }

// -----

// expected-error @+1 {{'tile.divisibility' of argument #0 must be a positive power-of-two integer}}
func.func @divisibility_not_pow2(%p: !tile.ptr<f32> {tile.divisibility = 12 : i32}) { return }

// -----

// expected-error @+1 {{'tile.divisibility' of argument #0 needs a pointer or integer argument, got 'f32'}}
func.func @divisibility_on_float(%x: f32 {tile.divisibility = 16 : i32}) { return }

// -----

func.func @range_empty() {
  // expected-error @+1 {{end (4) must be greater than start (4)}}
  %r = tile.range 4, 4 : tensor<1xi32>
  return
}

// -----

func.func @range_rank() {
  // expected-error @+1 {{result must be a 1-D tensor, got rank 2}}
  %r = tile.range 0, 64 : tensor<8x8xi32>
  return
}

// -----

func.func @range_size() {
  // expected-error @+1 {{result has 32 elements but the range 0..64 has 64}}
  %r = tile.range 0, 64 : tensor<32xi32>
  return
}

// -----

func.func @range_type() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer values}}
  %r = tile.range 0, 64 : tensor<64xi64>
  return
}

// -----

func.func @splat_type(%x: f32) {
  // expected-error @+1 {{result element type 'f16' does not match source type 'f32'}}
  %s = tile.splat %x : f32 -> tensor<64xf16>
  return
}

// -----

func.func @splat_tensor(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be}}
  %s = tile.splat %x : tensor<4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_type(%x: tensor<1x64xf32>) {
  // expected-error @+1 {{result element type 'f16' does not match source element type 'f32'}}
  %b = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<64xf32>) {
  // expected-error @+1 {{source rank 1 does not match result rank 2 (use tile.expand_dims to add dimensions)}}
  %b = tile.broadcast %x : tensor<64xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{cannot broadcast dimension 0 of size 2 to 32 (only size-1 dimensions broadcast)}}
  %b = tile.broadcast %x : tensor<2x64xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @expand_axis(%x: tensor<64xf32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 1]}}
  %e = tile.expand_dims %x {axis = 2 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

func.func @expand_result(%x: tensor<64xf32>) {
  // expected-error @+1 {{result type 'tensor<1x64xf32>' does not match 'tensor<64x1xf32>' (source with a size-1 dimension at axis 1)}}
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  return
}

// -----

func.func @trans_order_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order has 3 entries but the source has rank 2}}
  %t = tile.trans %x {order = array<i32: 0, 1, 2>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @trans_order_perm(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order must be a permutation of 0..1}}
  %t = tile.trans %x {order = array<i32: 1, 1>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @trans_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result type 'tensor<4x8xf32>' does not match 'tensor<8x4xf32>' (source permuted by the order)}}
  %t = tile.trans %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @addptr_mixed(%p: !tile.ptr<f32>, %o: tensor<4xi32>) {
  // expected-error @+1 {{ptr and offset must both be scalars or both be tensors, got '!tile.ptr<f32>' and 'tensor<4xi32>'}}
  %a = tile.addptr %p, %o : !tile.ptr<f32>, tensor<4xi32>
  return
}

// -----

func.func @addptr_shape(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error @+1 {{offset shape 8 does not match ptr shape 4}}
  %a = tile.addptr %p, %o : tensor<4x!tile.ptr<f32>>, tensor<8xi32>
  return
}

// -----

func.func @addptr_offset_type(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{operand #1 must be}}
  %a = tile.addptr %p, %o : !tile.ptr<f32>, f32
  return
}

// -----

func.func @addptr_result(%p: !tile.ptr<f32>, %o: i32) {
  // expected-error @+1 {{failed to verify that result type matches ptr type}}
  %a = "tile.addptr"(%p, %o) : (!tile.ptr<f32>, i32) -> !tile.ptr<f16>
  return
}

// -----

func.func @load_other_without_mask(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{'other' requires a 'mask'}}
  %l = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @load_result(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{failed to verify that result type matches the pointee type of ptr}}
  %l = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!tile.ptr<f32>>) -> tensor<4xf16>
  return
}

// -----

func.func @load_mask(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{failed to verify that mask is i1 of the same shape as ptr}}
  %l = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!tile.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @load_other(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that other type matches the result type}}
  %l = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xi1>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @load_mask_custom(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi32>) {
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<4xi1>' vs 'tensor<4xi32>'}}
  %l = tile.load %p, %m : tensor<4x!tile.ptr<f32>>
  return
}

// -----

func.func @load_not_ptr(%p: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be}}
  %l = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @store_value(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that value type matches the pointee type of ptr}}
  "tile.store"(%p, %v) : (tensor<4x!tile.ptr<f32>>, tensor<4xf16>) -> ()
  return
}

// -----

func.func @store_mask(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<2xi1>) {
  // expected-error @+1 {{failed to verify that mask is i1 of the same shape as ptr}}
  "tile.store"(%p, %v, %m) : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>, tensor<2xi1>) -> ()
  return
}

// -----

func.func @dot_rank(%a: tensor<4x8x2xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{operands must be 2-D tensors, got ranks 3, 2 and 2}}
  %d = tile.dot %a, %b, %c : tensor<4x8x2xf16> * tensor<8x4xf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{contraction sizes differ: a is 16x32 and b is 16x16}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{accumulator shape 16x16 must be 16x8}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x8xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_elt(%a: tensor<16x32xf16>, %b: tensor<32x8xbf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{a and b element types differ: 'f16' vs 'bf16'}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x8xbf16> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_f64(%a: tensor<16x32xf64>, %b: tensor<32x8xf64>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{operand element type must be f16, bf16 or f32}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf64> * tensor<32x8xf64> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_fp8(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{operand element type must be f16, bf16 or f32, got 'f8E4M3FN' (convert fp8 operands with arith.extf first)}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf8E4M3FN> * tensor<32x8xf8E4M3FN> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_acc_type(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf16>) {
  // expected-error @+1 {{accumulator element type must be f32, got 'f16'}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x8xf16> -> tensor<16x8xf16>
  return
}

// -----

func.func @dot_result(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{failed to verify that result type matches accumulator type}}
  %d = "tile.dot"(%a, %b, %c) : (tensor<16x32xf16>, tensor<32x8xf16>, tensor<16x8xf32>) -> tensor<16x16xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 1]}}
  %r = tile.reduce sum %x {axis = 2 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_xor_float(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{xor reduces integers, got 'tensor<16x64xf32>'}}
  %r = tile.reduce xor %x {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  return
}

// -----

func.func @warp_any_not_a_mask(%x: tensor<16xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %a = tile.warp_any %x : tensor<16xi32>
  return
}

// -----

func.func @reduce_result(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{result type 'tensor<64xf32>' must be 'tensor<16xf32>' (the source without dimension 1)}}
  %r = tile.reduce sum %x {axis = 1 : i32} : tensor<16x64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @reduce_kind(%x: tensor<64xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, xor]}}
  %r = tile.reduce prod %x {axis = 0 : i32} : tensor<64xf32> -> f32
  return
}

// -----

func.func @program_id_axis() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]}}
  %p = tile.program_id w
  return
}

// -----

func.func @paged_page_size(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{page_size must be positive, got 0}}
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 0 : i32} strides(%s, %s, %s) bound %n : tensor<64x128xf16>
  return
}

// -----

func.func @paged_rank(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{result must be a 2-D tile (tokens x head_dim), got rank 1}}
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 16 : i32} strides(%s, %s, %s) bound %n : tensor<64xf16>
  return
}

// -----

func.func @paged_cols_zero(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{cols must be in [1, 128] (the tile width), got 0}}
  %k = tile.paged_load %c[%bt, %t, %h] {cols = 0 : i32, page_size = 16 : i32} strides(%s, %s, %s) bound %n : tensor<64x128xf16>
  return
}

// -----

func.func @paged_cols_wider_than_tile(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{cols must be in [1, 128] (the tile width), got 129}}
  %k = tile.paged_load %c[%bt, %t, %h] {cols = 129 : i32, page_size = 16 : i32} strides(%s, %s, %s) bound %n : tensor<64x128xf16>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @paged_cache_type(%c: !tile.ptr<f32>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{use of value '%c' expects different type than prior uses: '!tile.ptr<f16>' vs '!tile.ptr<f32>'}}
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 16 : i32} strides(%s, %s, %s) bound %n : tensor<64x128xf16>
  return
}

// -----

func.func @paged_cache_generic(%c: !tile.ptr<f32>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{failed to verify that cache is a pointer to the result element type}}
  %k = "tile.paged_load"(%c, %bt, %t, %h, %s, %s, %s, %n) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>, page_size = 16 : i32}> : (!tile.ptr<f32>, !tile.ptr<i32>, i32, i32, i64, i64, i64, i32) -> tensor<64x128xf16>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @paged_stride_type(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i32, %n: i32) {
  // expected-error @+1 {{use of value '%s' expects different type than prior uses: 'i64' vs 'i32'}}
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 16 : i32} strides(%s, %s, %s) bound %n : tensor<64x128xf16>
  return
}

// -----

func.func @paged_stride_generic(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i32, %n: i32) {
  // expected-error @+1 {{operand #4 must be 64-bit signless integer, but got 'i32'}}
  %k = "tile.paged_load"(%c, %bt, %t, %h, %s, %s, %s, %n) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>, page_size = 16 : i32}> : (!tile.ptr<f16>, !tile.ptr<i32>, i32, i32, i32, i32, i32, i32) -> tensor<64x128xf16>
  return
}

// -----

func.func @paged_block_table(%c: !tile.ptr<f16>, %bt: !tile.ptr<i64>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{operand #1 must be pointer to i32, but got '!tile.ptr<i64>'}}
  %k = "tile.paged_load"(%c, %bt, %t, %h, %s, %s, %s, %n) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>, page_size = 16 : i32}> : (!tile.ptr<f16>, !tile.ptr<i64>, i32, i32, i64, i64, i64, i32) -> tensor<64x128xf16>
  return
}

// -----

func.func @paged_missing_page_size(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{requires attribute 'page_size'}}
  %k = tile.paged_load %c[%bt, %t, %h] strides(%s, %s, %s) bound %n : tensor<64x128xf16>
  return
}

// -----

func.func @paged_negative_page_size(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32) {
  // expected-error @+1 {{page_size must be positive, got -16}}
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = -16 : i32} strides(%s, %s, %s) bound %n : tensor<64x128xf16>
  return
}

// -----

func.func @expand_negative_axis(%x: tensor<64xf32>) {
  // expected-error @+1 {{axis -1 is out of range [0, 1]}}
  %e = tile.expand_dims %x {axis = -1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

// expected-error @+1 {{kernel must have a body}}
func.func private @kernel_declaration(%p: !tile.ptr<f32>) attributes {tile.kernel}

// -----

// The kernel's name is the PTX entry's: LLVM aborted on "a b", and "1abc"
// made PTX that ptxas rejects.
// expected-error @+1 {{kernel name "a b" is not a PTX identifier ([A-Za-z][A-Za-z0-9_$]* or [_$%][A-Za-z0-9_$]+): it names the PTX entry}}
func.func @"a b"() attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel name "1abc" is not a PTX identifier}}
func.func @"1abc"() attributes {tile.kernel} {
  return
}

// -----

// Helpers are not entries: their names are LLVM's to mangle.
func.func @"a helper"() {
  return
}
func.func @_k$1() attributes {tile.kernel} {
  func.call @"a helper"() : () -> ()
  return
}

// -----

// Tile tensors live in registers: every tensor a tile op takes or makes has
// a static shape without zero-size dimensions.
func.func @range_dynamic() {
  // expected-error @+1 {{'tile.range' op result #0 must have a static shape, got 'tensor<?xi32>'}}
  %r = tile.range 0, 64 : tensor<?xi32>
  return
}

// -----

func.func @trans_dynamic(%x: tensor<?x16xf16>) {
  // expected-error @+1 {{'tile.trans' op operand #0 must have a static shape, got 'tensor<?x16xf16>'}}
  %t = tile.trans %x : tensor<?x16xf16> -> tensor<16x?xf16>
  return
}

// -----

func.func @trans_zero_size(%x: tensor<0x16xf16>) {
  // expected-error @+1 {{'tile.trans' op operand #0 must not have a zero-size dimension, got 'tensor<0x16xf16>'}}
  %t = tile.trans %x : tensor<0x16xf16> -> tensor<16x0xf16>
  return
}

// -----

func.func @splat_zero_size(%p: !tile.ptr<f16>) {
  // expected-error @+1 {{'tile.splat' op result #0 must not have a zero-size dimension, got 'tensor<0x16x!tile.ptr<f16>>'}}
  %s = tile.splat %p : !tile.ptr<f16> -> tensor<0x16x!tile.ptr<f16>>
  return
}

// -----

func.func @load_dynamic(%p: tensor<?x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op operand #0 must have a static shape, got 'tensor<?x!tile.ptr<f32>>'}}
  %x = tile.load %p : tensor<?x!tile.ptr<f32>>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @paged_num_blocks_type(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32, %s: i64, %n: i32, %nb: i64) {
  // expected-error @+1 {{use of value '%nb' expects different type than prior uses: 'i32' vs 'i64'}}
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 16 : i32} strides(%s, %s, %s) bound %n num_blocks %nb : tensor<64x128xf16>
  return
}

// -----

func.func @print_hex_float(%x: tensor<64xf32>) {
  // expected-error @+1 {{hex prints integers; operand #0 is 'tensor<64xf32>'}}
  tile.print "x" hex, %x : tensor<64xf32>
  return
}

// -----

func.func @print_fp8(%x: tensor<64xf8E4M3FN>) {
  // expected-error @+1 {{operand #0 must be an integer (up to 64 bits) or f16, bf16, f32 or f64 scalar or tensor, got 'tensor<64xf8E4M3FN>'}}
  tile.print "x", %x : tensor<64xf8E4M3FN>
  return
}

// -----

func.func @print_pointer(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{operand #0 must be an integer (up to 64 bits) or f16, bf16, f32 or f64 scalar or tensor, got '!tile.ptr<f32>'}}
  tile.print "p", %p : !tile.ptr<f32>
  return
}

// -----

func.func @assert_directive(%ok: tensor<64xi1>, %x: tensor<64xi32>) {
  // expected-error @+1 {{message may only use %d and %%, got '%s' at offset 6}}
  tile.assert %ok, "entry %s", %x : tensor<64xi1>, tensor<64xi32>
  return
}

// -----

func.func @assert_count(%ok: tensor<64xi1>, %x: tensor<64xi32>) {
  // expected-error @+1 {{message has 2 %d directive(s) but 1 argument(s) were given}}
  tile.assert %ok, "entry %d page %d", %x : tensor<64xi1>, tensor<64xi32>
  return
}

// -----

func.func @assert_shape(%ok: tensor<64xi1>, %x: tensor<32xi32>) {
  // expected-error @+1 {{argument #0 must be i32 shaped like cond ('tensor<64xi1>'), got 'tensor<32xi32>'}}
  tile.assert %ok, "entry %d", %x : tensor<64xi1>, tensor<32xi32>
  return
}

// -----

func.func @assert_scalar_cond(%ok: i1, %x: tensor<64xi32>) {
  // expected-error @+1 {{argument #0 must be i32 shaped like cond ('i1'), got 'tensor<64xi32>'}}
  tile.assert %ok, "entry %d", %x : i1, tensor<64xi32>
  return
}

// -----

func.func @assert_arg_type(%ok: tensor<64xi1>, %x: tensor<64xi64>) {
  // expected-error @+1 {{operand #1 must be variadic of 32-bit signless integer or ranked tensor of 32-bit signless integer values, but got 'tensor<64xi64>'}}
  tile.assert %ok, "entry %d", %x : tensor<64xi1>, tensor<64xi64>
  return
}

// -----

func.func @async_copy_rank(%p: tensor<64x!tile.ptr<f16>>, %s: i32) {
  // expected-error @+1 {{stages 2-D tiles, got rank 1}}
  tile.async_copy %p into stage %s {buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32} : tensor<64x!tile.ptr<f16>>
  return
}

// -----

func.func @async_copy_buffer(%p: tensor<16x64x!tile.ptr<f16>>, %s: i32) {
  // expected-error @+1 {{buffer must be >= 0, got -1}}
  tile.async_copy %p into stage %s {buffer = -1 : i32, contig = 0 : i32, stages = 2 : i32} : tensor<16x64x!tile.ptr<f16>>
  return
}

// -----

func.func @async_copy_contig(%p: tensor<16x64x!tile.ptr<f16>>, %s: i32) {
  // expected-error @+1 {{contig must be 0 or 1, got 2}}
  tile.async_copy %p into stage %s {buffer = 0 : i32, contig = 2 : i32, stages = 2 : i32} : tensor<16x64x!tile.ptr<f16>>
  return
}

// -----

func.func @async_copy_stages(%p: tensor<16x64x!tile.ptr<f16>>, %s: i32) {
  // expected-error @+1 {{stages must be >= 1, got 0}}
  tile.async_copy %p into stage %s {buffer = 0 : i32, contig = 1 : i32, stages = 0 : i32} : tensor<16x64x!tile.ptr<f16>>
  return
}

// -----

func.func @async_copy_mask(%p: tensor<16x64x!tile.ptr<f16>>, %m: tensor<64x16xi1>, %s: i32) {
  // expected-error @+1 {{mask type 'tensor<64x16xi1>' must have the shape and layout of ptrs 'tensor<16x64x!tile.ptr<f16>>'}}
  tile.async_copy %p mask %m into stage %s {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<16x64x!tile.ptr<f16>>, tensor<64x16xi1>
  return
}

// -----

func.func @async_wait_pending() {
  // expected-error @+1 {{pending must be >= 0, got -1}}
  tile.async_wait {pending = -1 : i32}
  return
}

// -----

func.func @async_local_load_rank(%s: i32) {
  // expected-error @+1 {{stages 2-D tiles, got rank 1}}
  %x = tile.async_local_load %s {buffer = 0 : i32, contig = 0 : i32, stages = 2 : i32} : tensor<64xf16>
  return
}

// -----

func.func @async_copy_nvmma_elt(%p: tensor<16x64x!tile.ptr<f32>>, %s: i32) {
  // expected-error @+1 {{nvmma staging needs 16-bit elements, got 'f32'}}
  tile.async_copy %p into stage %s {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32, nvmma} : tensor<16x64x!tile.ptr<f32>>
  return
}

// -----

func.func @async_copy_nvmma_shape(%p: tensor<64x8x!tile.ptr<f16>>, %s: i32) {
  // expected-error @+1 {{nvmma staging needs at least 16 elements along the contiguous dimension and 8 along the other, got 64x8}}
  tile.async_copy %p into stage %s {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32, nvmma} : tensor<64x8x!tile.ptr<f16>>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
#a4 = #tile.dot_op<{opIdx = 0, parent = #mma4}>
func.func @warpgroup_dot_result(%a: tensor<64x32xf16, #a4>, %c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{result type 'tensor<64x64xf32>' must be the accumulator's 'tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>'}}
  %d = "tile.warpgroup_dot"(%a, %s, %c) {operandSegmentSizes = array<i32: 1, 0, 1, 1>, b_buffer = 0 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : (tensor<64x32xf16, #a4>, i32, tensor<64x64xf32, #mma4>) -> tensor<64x64xf32>
  return
}

// -----

#mma22 = #tile.mma<{warpsPerCTA = [2, 2]}>
func.func @warpgroup_dot_layout(%c: tensor<64x64xf32, #mma22>, %s: i32) {
  // expected-error @+1 {{accumulator layout must be #tile.mma with warpsPerCTA [4k, 1] (no kWidth or nWidth), got #tile.mma<{warpsPerCTA = [2, 2]}>}}
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : tensor<64x64xf32, #mma22> -> tensor<64x64xf32, #mma22>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_dot_type(%c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{operand type must be f16 or bf16, got 'f32'}}
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f32} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_dot_shape(%c: tensor<32x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{shape 32x64x24 not supported: M a multiple of 64, N a multiple of 8 up to 256, K of 16}}
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 24 : i64, operand_type = f16} : tensor<32x64xf32, #mma4> -> tensor<32x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
#a4 = #tile.dot_op<{opIdx = 0, parent = #mma4}>
func.func @warpgroup_dot_both_a(%a: tensor<64x32xf16, #a4>, %c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{needs exactly one of a (registers) and a_stage}}
  %d = tile.warpgroup_dot a(%a : tensor<64x32xf16, #a4>) a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
#a4 = #tile.dot_op<{opIdx = 0, parent = #mma4}>
func.func @warpgroup_dot_a_stages_registers(%a: tensor<64x32xf16, #a4>, %c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{a_stages is for a staged A, not registers}}
  %d = tile.warpgroup_dot a(%a : tensor<64x32xf16, #a4>) b_stage %s acc %c {a_stages = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_dot_a_stages(%c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{a_stages must be >= 1, got 0}}
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, a_stages = 0 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
#a4 = #tile.dot_op<{opIdx = 0, parent = #mma4}>
func.func @warpgroup_dot_a_type(%a: tensor<64x16xf16, #a4>, %c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{a must be 'tensor<64x32xf16>' in the opIdx 0 #tile.dot_op layout of the accumulator's, got 'tensor<64x16xf16, #tile.dot_op<{opIdx = 0, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>>'}}
  %d = tile.warpgroup_dot a(%a : tensor<64x16xf16, #a4>) b_stage %s acc %c {b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_dot_async_read(%c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{result of an async dot is in flight: only 'tile.warpgroup_wait' may use it, not 'arith.addf'}}
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 3 : i32, k = 32 : i64, operand_type = f16, async} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  %e = arith.addf %d, %c : tensor<64x64xf32, #mma4>
  return
}

// -----

func.func @warpgroup_wait_empty() {
  // expected-error @+1 {{needs at least one accumulator}}
  "tile.warpgroup_wait"() <{operandSegmentSizes = array<i32: 0, 0>, pending = 0 : i32}> : () -> ()
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_wait_pending(%c: tensor<64x64xf32, #mma4>) {
  // expected-error @+1 {{pending must be >= 0, got -1}}
  %r = tile.warpgroup_wait %c {pending = -1 : i32} : tensor<64x64xf32, #mma4>
  return
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @warpgroup_wait_operand(%c: tensor<64x64xf32, #blocked>) {
  // expected-error @+1 {{operands must be wgmma accumulators (2-D f32 tensors in a #tile.mma layout), got 'tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>'}}
  %r = tile.warpgroup_wait %c {pending = 0 : i32} : tensor<64x64xf32, #blocked>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_wait_read_in_flight(%c: tensor<64x64xf32, #mma4>, %s: i32) {
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 3 : i32, k = 32 : i64, operand_type = f16, async} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  // expected-error @+1 {{with pending 1 its results may still be written: only scf.yield, a wait or an async dot's acc may use them, not 'arith.mulf'}}
  %r = tile.warpgroup_wait %d {pending = 1 : i32} : tensor<64x64xf32, #mma4>
  %e = arith.mulf %r, %r : tensor<64x64xf32, #mma4>
  return
}

// -----

// With `older` the operands are groups committed before the pending ones:
// retired, their results are read (no diagnostic).
#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_wait_older(%c: tensor<64x64xf32, #mma4>, %s: i32) {
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 3 : i32, k = 32 : i64, operand_type = f16, async} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  %n = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 3 : i32, k = 32 : i64, operand_type = f16, async} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  %r = tile.warpgroup_wait %d {older, pending = 1 : i32} : tensor<64x64xf32, #mma4>
  %e = arith.mulf %r, %r : tensor<64x64xf32, #mma4>
  %f = tile.warpgroup_wait %n {pending = 0 : i32} : tensor<64x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_dot_a_buffer(%c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{a staged A needs a_buffer and a_contig}}
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_dot_b_staging(%c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{contig must be 0 or 1, got 3}}
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 3 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_dot_negative_k(%c: tensor<64x64xf32, #mma4>, %s: i32) {
  // expected-error @+1 {{shape 64x64x-16 not supported: M a multiple of 64, N a multiple of 8 up to 256, K of 16}}
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = -16 : i64, operand_type = f16} : tensor<64x64xf32, #mma4> -> tensor<64x64xf32, #mma4>
  return
}

// -----

func.func @atomic_element_type(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{element type 'f16' is not supported: atomics take 32- or 64-bit integers and f32/f64}}
  %o = tile.atomic_rmw add, %p, %v : !tile.ptr<f16>
  return
}

// -----

func.func @atomic_bitwise_float(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{xor takes integers, got 'f32'}}
  %o = tile.atomic_rmw xor, %p, %v : !tile.ptr<f32>
  return
}

// -----

func.func @atomic_unsigned_float(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{umax takes integers, got 'f32'}}
  %o = tile.atomic_rmw umax, %p, %v : !tile.ptr<f32>
  return
}

// -----

func.func @atomic_max_f64(%p: !tile.ptr<f64>, %v: f64) {
  // expected-error @+1 {{max of floats takes f32, got 'f64'}}
  %o = tile.atomic_rmw max, %p, %v : !tile.ptr<f64>
  return
}

// -----

func.func @atomic_cas_element_type(%p: !tile.ptr<i16>, %v: i16) {
  // expected-error @+1 {{element type 'i16' is not supported: atomics take 32- or 64-bit integers and f32/f64}}
  %o = tile.atomic_cas %p, %v, %v : !tile.ptr<i16>
  return
}

// -----

func.func @atomic_value_type(%p: !tile.ptr<i32>, %v: i64) {
  // expected-error @+1 {{value type matches the pointee type of ptr}}
  %o = "tile.atomic_rmw"(%p, %v) {kind = 0 : i32} : (!tile.ptr<i32>, i64) -> i32
  return
}

// -----

// expected-error @+1 {{!tile.tensordesc block must have 1 to 5 dimensions, each a power of two, and no layout; got 'tensor<64x24xf16>'}}
func.func @tensordesc_block(%d: !tile.tensordesc<tensor<64x24xf16>>) { return }

// -----

// expected-error @+1 {{!tile.tensordesc elements must be integers or floats of 8 bits or more, got 'i1'}}
func.func @tensordesc_element(%d: !tile.tensordesc<tensor<64xi1>>) { return }

// -----

func.func @make_descriptor_rank(%p: !tile.ptr<f16>, %s: i32, %t: i64) {
  // expected-error @+1 {{needs one shape and one stride per dimension of 'tensor<64x32xf16>', got 1 and 2}}
  %d = tile.make_descriptor %p, shape [%s], strides [%t, %t] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  return
}

// -----

func.func @make_descriptor_pointee(%p: !tile.ptr<f32>, %s: i32, %t: i64) {
  // expected-error @+1 {{base points to 'f32', the block holds 'f16'}}
  %d = tile.make_descriptor %p, shape [%s], strides [%t] : !tile.ptr<f32> -> !tile.tensordesc<tensor<64xf16>>
  return
}

// -----

func.func @descriptor_load_offsets(%p: !tile.ptr<f16>, %s: i32, %t: i64) {
  %d = tile.make_descriptor %p, shape [%s, %s], strides [%t, %t] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  // expected-error @+1 {{needs 2 offsets, one per dimension, got 1}}
  %x = tile.descriptor_load %d[%s] : !tile.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
  return
}

// -----

func.func @descriptor_load_type(%p: !tile.ptr<f16>, %s: i32, %t: i64) {
  %d = tile.make_descriptor %p, shape [%s], strides [%t] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64xf16>>
  // expected-error @+1 {{result type 'tensor<32xf16>' must be the descriptor's block 'tensor<64xf16>'}}
  %x = tile.descriptor_load %d[%s] : !tile.tensordesc<tensor<64xf16>> -> tensor<32xf16>
  return
}

// -----

func.func @descriptor_argument(%d: !tile.tensordesc<tensor<64xf16>>, %s: i32) {
  // expected-error @+1 {{descriptor must be made by 'tile.make_descriptor' in this kernel}}
  %x = tile.descriptor_load %d[%s] : !tile.tensordesc<tensor<64xf16>> -> tensor<64xf16>
  return
}

// -----

func.func @descriptor_store_type(%p: !tile.ptr<f16>, %s: i32, %t: i64, %v: tensor<64xf32>) {
  %d = tile.make_descriptor %p, shape [%s], strides [%t] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64xf16>>
  // expected-error @+1 {{value type 'tensor<64xf32>' must be the descriptor's block 'tensor<64xf16>'}}
  tile.descriptor_store %d[%s], %v : !tile.tensordesc<tensor<64xf16>>, tensor<64xf32>
  return
}

// -----

func.func @num_stages_range(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'tile.num_stages' must be an i32 in [0, 8] on an scf.for}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.num_stages = 9 : i32}
  return
}

// -----

func.func @pingpong_op(%x: i32) -> i32 {
  // expected-error @+1 {{'tile.pingpong' must be a unit attribute on an scf.for}}
  %y = arith.addi %x, %x {tile.pingpong} : i32
  return %y : i32
}

// -----

func.func @pingpong_value(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'tile.pingpong' must be a unit attribute on an scf.for}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.pingpong = 1 : i32}
  return
}

// -----

func.func @num_stages_op(%x: i32) -> i32 {
  // expected-error @+1 {{'tile.num_stages' must be an i32 in [0, 8] on an scf.for}}
  %y = arith.addi %x, %x {tile.num_stages = 3 : i32} : i32
  return %y : i32
}

// -----

func.func @local_store_contig(%v: tensor<64x32xf16>, %s: i32) {
  // expected-error @+1 {{contig must be 0 or 1, got 2}}
  tile.local_store %v into stage %s {buffer = 0 : i32, contig = 2 : i32, stages = 1 : i32} : tensor<64x32xf16>
  return
}

// -----

func.func @local_store_nvmma_type(%v: tensor<64x32xf32>, %s: i32) {
  // expected-error @+1 {{nvmma staging needs 16-bit elements, got 'f32'}}
  tile.local_store %v into stage %s {buffer = 0 : i32, contig = 1 : i32, stages = 1 : i32, nvmma} : tensor<64x32xf32>
  return
}

// -----

func.func @local_store_nvmma_shape(%v: tensor<64x4xf16>, %s: i32) {
  // expected-error @+1 {{nvmma staging needs at least 16 elements along the contiguous dimension and 8 along the other, got 4x64}}
  tile.local_store %v into stage %s {buffer = 0 : i32, contig = 1 : i32, stages = 1 : i32, transposed, nvmma} : tensor<64x4xf16>
  return
}

// -----

func.func @descriptor_tensormap_block(%p: !tile.ptr<f16>, %m: i32, %s: i64, %tm: !tile.tensormap) {
  // expected-error @+1 {{a tensor map needs a block of 16-bit elements, its rows along one dimension before the last (at most 256) and at least 16 columns, got 'tensor<64x8xf16>'}}
  %d = tile.make_descriptor %p, shape [%m, %m], strides [%s, %s], tensormap %tm : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x8xf16>>
  return
}

// -----

func.func @descriptor_tensormap_f32(%p: !tile.ptr<f32>, %m: i32, %s: i64, %tm: !tile.tensormap) {
  // expected-error @+1 {{a tensor map needs a block of 16-bit elements, its rows along one dimension before the last (at most 256) and at least 16 columns, got 'tensor<64x32xf32>'}}
  %d = tile.make_descriptor %p, shape [%m, %m], strides [%s, %s], tensormap %tm : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x32xf32>>
  return
}

// -----

func.func @descriptor_tensormap_nan(%p: !tile.ptr<f16>, %m: i32, %s: i64, %tm: !tile.tensormap) {
  // expected-error @+1 {{a tensor map reads zero padding, not NaN}}
  %d = tile.make_descriptor %p, shape [%m, %m], strides [%s, %s], tensormap %tm {nan_padding} : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  return
}

// -----

func.func @tensormap_block_rank(%p: tensor<64x!tile.ptr<f16>>, %tm: !tile.tensormap, %o: i32) {
  // expected-error @+1 {{needs a 2-D block and 2 offsets, got 'tensor<64x!tile.ptr<f16>>' and 1 offsets}}
  %q = tile.tensormap_block %p, %tm[%o] : tensor<64x!tile.ptr<f16>>
  return
}

// -----

func.func @tma_init_stages() {
  // expected-error @+1 {{stages must be >= 1, got 0}}
  tile.tma_init {buffer = 0 : i32, stages = 0 : i32}
  return
}

// -----

func.func @tma_inval_buffer() {
  // expected-error @+1 {{buffer must be >= 0, got -1}}
  tile.tma_inval {buffer = -1 : i32, stages = 2 : i32}
  return
}

// -----

func.func @tma_wait_stages(%s: i32) {
  // expected-error @+1 {{stages must be >= 1, got 0}}
  tile.tma_wait stage %s phase %s {buffer = 0 : i32, stages = 0 : i32}
  return
}

// -----

func.func @tma_copy_block(%tm: !tile.tensormap, %o: i32, %s: i32, %p: i1) {
  // expected-error @+1 {{block must be a 2-D tensor type, got 'tensor<64xf16>'}}
  tile.tma_copy %tm[%o, %o] into stage %s if %p {block = tensor<64xf16>, buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
  return
}

// -----

func.func @tma_copy_offsets(%tm: !tile.tensormap, %o: i32, %s: i32, %p: i1) {
  // expected-error @+1 {{needs 2 offsets, got 1}}
  tile.tma_copy %tm[%o] into stage %s if %p {block = tensor<64x64xf16>, buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
  return
}

// -----

func.func @tma_copy_contig(%tm: !tile.tensormap, %o: i32, %s: i32, %p: i1) {
  // expected-error @+1 {{contig must be 0 (the block's last dimension, transposed), got 1}}
  tile.tma_copy %tm[%o, %o] into stage %s if %p {block = tensor<64x64xf16>, buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32, transposed}
  return
}

// -----

func.func @tma_copy_rows(%tm: !tile.tensormap, %o: i32, %s: i32, %p: i1) {
  // expected-error @+1 {{a TMA box has at most 256 rows, got 512}}
  tile.tma_copy %tm[%o, %o] into stage %s if %p {block = tensor<512x64xf16>, buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
  return
}

// -----

func.func @tma_copy_elements(%tm: !tile.tensormap, %o: i32, %s: i32, %p: i1) {
  // expected-error @+1 {{nvmma staging needs 16-bit elements, got 'f32'}}
  tile.tma_copy %tm[%o, %o] into stage %s if %p {block = tensor<64x64xf32>, buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
  return
}

// -----

func.func @tma_release_buffer(%s: i32, %p: i1) {
  // expected-error @+1 {{buffer must be >= 0, got -2}}
  tile.tma_release stage %s if %p {buffer = -2 : i32, stages = 2 : i32}
  return
}

// -----

#mma4 = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_wait_after(%c: tensor<64x64xf32, #mma4>, %l: tensor<64xi32>) {
  // expected-error @+1 {{'after' must be an f32 value or a tensor of f32, got 'tensor<64xi32>'}}
  %r = tile.warpgroup_wait %c after(%l : tensor<64xi32>) {pending = 0 : i32} : tensor<64x64xf32, #mma4>
  return
}

// -----

func.func @tma_acquire_stages(%s: i32) {
  // expected-error @+1 {{stages must be >= 1, got 0}}
  tile.tma_acquire stage %s phase %s {buffer = 0 : i32, stages = 0 : i32}
  return
}

// -----

func.func @setmaxnreg_count() {
  // expected-error @+1 {{count must be a multiple of 8 in [24, 256], got 20}}
  tile.setmaxnreg dec {count = 20 : i32}
  return
}

// -----

func.func @setmaxnreg_count_multiple() {
  // expected-error @+1 {{count must be a multiple of 8 in [24, 256], got 236}}
  tile.setmaxnreg inc {count = 236 : i32}
  return
}

// -----

// expected-error @+1 {{'tile.producer_warps' must be 1, 2, 4, 8 or 16 on a kernel}}
func.func @producer_warps_three() attributes {tile.kernel, tile.producer_warps = 3 : i32} {
  return
}

// -----

func.func @tma_init_arrivals() {
  // expected-error @+1 {{arrivals must be in [1, 1024], got 0}}
  tile.tma_init {arrivals = 0 : i32, buffer = 0 : i32, stages = 2 : i32}
  return
}

// -----

func.func @async_arrive_stages(%s: i32) {
  // expected-error @+1 {{stages must be >= 1, got 0}}
  tile.async_arrive stage %s {buffer = 0 : i32, stages = 0 : i32}
  return
}

// -----

func.func @thread_offset_not_a_warpgroup(%a: i32) -> i32 {
  // expected-error @+1 {{'tile.thread_offset' must be a positive i32 multiple of 128}}
  %b = arith.addi %a, %a {tile.thread_offset = 64 : i32} : i32
  return %b : i32
}

// -----

func.func @descriptor_tensormap_two_row_dims(%p: !tile.ptr<f16>, %m: i32, %s: i64, %tm: !tile.tensormap) {
  // expected-error @+1 {{a tensor map needs a block of 16-bit elements, its rows along one dimension before the last (at most 256) and at least 16 columns, got 'tensor<2x16x64xf16>'}}
  %d = tile.make_descriptor %p, shape [%m, %m, %m], strides [%s, %s, %s], tensormap %tm : !tile.ptr<f16> -> !tile.tensordesc<tensor<2x16x64xf16>>
  return
}

// -----

func.func @tensormap_pages_rank(%p: tensor<128x!tile.ptr<f16>>, %tm: !tile.tensormap, %bt: !tile.ptr<i32>, %t: i32) {
  // expected-error @+1 {{needs a 2-D tile (tokens x head_dim), got 'tensor<128x!tile.ptr<f16>>'}}
  %q = tile.tensormap_pages %p, %tm[%bt, %t, %t] bound %t {page_size = 16 : i32} : tensor<128x!tile.ptr<f16>>
  return
}

// -----

func.func @tensormap_pages_box(%p: tensor<128x64x!tile.ptr<f16>>, %tm: !tile.tensormap, %bt: !tile.ptr<i32>, %t: i32) {
  // expected-error @+1 {{the tile's 128 rows and page_size 24 must be multiples of the box, min of the two}}
  %q = tile.tensormap_pages %p, %tm[%bt, %t, %t] bound %t {page_size = 24 : i32} : tensor<128x64x!tile.ptr<f16>>
  return
}

// -----

func.func @tma_copy_pages_swizzle(%tm: !tile.tensormap, %bt: !tile.ptr<i32>, %t: i32, %p: i1) {
  // expected-error @+1 {{a box of 4 rows must fill whole 1024-byte swizzle periods of the staged tile}}
  tile.tma_copy_pages %tm[%bt, %t, %t] bound %t into stage %t if %p {block = tensor<128x64xf16>, buffer = 0 : i32, contig = 1 : i32, page_size = 4 : i32, stages = 2 : i32}
  return
}

// -----

func.func @tma_copy_pages_contig(%tm: !tile.tensormap, %bt: !tile.ptr<i32>, %t: i32, %p: i1) {
  // expected-error @+1 {{contig must be 1 (the block's last dimension), got 0}}
  tile.tma_copy_pages %tm[%bt, %t, %t] bound %t into stage %t if %p {block = tensor<128x64xf16>, buffer = 0 : i32, contig = 0 : i32, page_size = 16 : i32, stages = 2 : i32}
  return
}

// -----

func.func @tma_zero_rows_block(%t: i32) {
  // expected-error @+1 {{block must be a 2-D tensor type, got 'tensor<128xf16>'}}
  tile.tma_zero_rows stage %t from %t {block = tensor<128xf16>, buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
  return
}
