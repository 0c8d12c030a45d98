// Strides are 64-bit: KV caches exceed 4 GiB.
func.func @k(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32,
             %ps: i32, %ts: i32, %hs: i32, %n: i32) attributes {tile.kernel} {
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %n : tensor<64x128xf16>
  return
}
