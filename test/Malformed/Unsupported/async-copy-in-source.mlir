// tile.async_copy / async_wait / async_local_load are made by
// quire-async-copies from laid-out loads, not written in a kernel.
func.func @k(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %s: i32) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  tile.async_copy %ps into stage %s {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<16x64x!tile.ptr<f16>>
  tile.async_wait {pending = 0 : i32}
  %x = tile.async_local_load %s {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<16x64xf16>
  return
}
