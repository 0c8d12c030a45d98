// The result element type must be the cache's pointee type.
func.func @k(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %h: i32,
             %ps: i64, %ts: i64, %hs: i64, %n: i32) attributes {tile.kernel} {
  %k = tile.paged_load %c[%bt, %t, %h] {page_size = 16 : i32}
         strides(%ps, %ts, %hs) bound %n : tensor<64x128xf32>
  return
}
