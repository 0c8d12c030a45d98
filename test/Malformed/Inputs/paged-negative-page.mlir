func.func @f(%c: !tile.ptr<f16>, %bt: !tile.ptr<i32>, %t: i32, %s: i64) { %0 = tile.paged_load %c[%bt, %t, %t] {page_size = -16 : i32} strides(%s, %s, %s) bound %t : tensor<16x64xf16> return }
