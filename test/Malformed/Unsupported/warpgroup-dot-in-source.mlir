// tile.warpgroup_dot is made by quire-async-copies (sm_90) from a laid-out
// dot whose B operand it stages, not written in a kernel.
#mma = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @k(%c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %s: i32) attributes {tile.kernel} {
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %d = tile.warpgroup_dot a_stage %s b_stage %s acc %acc {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, stages = 2 : i32, k = 32 : i64, operand_type = f16} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
  %r = tile.reduce sum %d {axis = 1 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #mma}>>
  %t = tile.reduce sum %r {axis = 0 : i32} : tensor<64xf32, #tile.slice<{dim = 1, parent = #mma}>> -> f32
  tile.store %c, %t : !tile.ptr<f32>
  return
}
