// tile.warpgroup_wait is made by quire-async-copies (sm_90, async-wgmma)
// around the async wgmma dots it makes, not written in a kernel.
#mma = #tile.mma<{warpsPerCTA = [4, 1]}>
func.func @k(%c: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %acc = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
  %d = tile.warpgroup_wait %acc {pending = 0 : i32} : tensor<64x64xf32, #mma>
  %r = tile.reduce sum %d {axis = 1 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #mma}>>
  %t = tile.reduce sum %r {axis = 0 : i32} : tensor<64xf32, #tile.slice<{dim = 1, parent = #mma}>> -> f32
  tile.store %c, %t : !tile.ptr<f32>
  return
}
