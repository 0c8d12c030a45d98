// A persistent row softmax whose column range and mask are built once,
// outside the row loop (loop-strength-reduction.mlir): with and without
// LLVM's loop strength reduction ptxas fits it in 32 registers, the same
// CTAs per SM, so `auto` keeps the default form.
module attributes {tile.num_warps = 4 : i32} {
func.func @softmax_rows_hoisted(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                %in: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                %in_stride: i32 {tile.divisibility = 16 : i32},
                                %out_stride: i32 {tile.divisibility = 16 : i32},
                                %rows: i32, %cols: i32) attributes {tile.kernel} {
  %pid = tile.program_id x
  %step = tile.num_programs x
  %r = tile.range 0, 512 : tensor<512xi32>
  %n = tile.splat %cols : i32 -> tensor<512xi32>
  %mask = arith.cmpi slt, %r, %n : tensor<512xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<512xf32>
  scf.for %row = %pid to %rows step %step : i32 {
    %o = arith.muli %row, %in_stride : i32
    %p = tile.addptr %in, %o : !tile.ptr<f32>, i32
    %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
    %pr = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
    %x = tile.load %pr, %mask, %ninf : tensor<512x!tile.ptr<f32>>
    %m = tile.reduce max %x {axis = 0 : i32} : tensor<512xf32> -> f32
    %ms = tile.splat %m : f32 -> tensor<512xf32>
    %d = arith.subf %x, %ms : tensor<512xf32>
    %e = math.exp %d : tensor<512xf32>
    %s = tile.reduce sum %e {axis = 0 : i32} : tensor<512xf32> -> f32
    %ss = tile.splat %s : f32 -> tensor<512xf32>
    %y = arith.divf %e, %ss fastmath<arcp> : tensor<512xf32>
    %oo = arith.muli %row, %out_stride : i32
    %q = tile.addptr %out, %oo : !tile.ptr<f32>, i32
    %qs = tile.splat %q : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
    %qr = tile.addptr %qs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
    tile.store %qr, %y, %mask : tensor<512x!tile.ptr<f32>>
  }
  return
}
}
