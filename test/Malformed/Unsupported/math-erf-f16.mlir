// math.erf has no f16 lowering on the GPU.
func.func @k(%p: !tile.ptr<f16>) attributes {tile.kernel} {
  %a = arith.constant dense<1.0> : tensor<64xf16>
  %b = math.tanh %a : tensor<64xf16>
  %c = math.erf %b : tensor<64xf16>
  %d = math.log %c : tensor<64xf16>
  %e = math.powf %d, %d : tensor<64xf16>
  %f = math.sqrt %e : tensor<64xf16>
  %z = arith.constant dense<0> : tensor<64xi32>
  %s = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %q = tile.addptr %s, %z : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  tile.store %q, %f : tensor<64x!tile.ptr<f16>>
  return
}
