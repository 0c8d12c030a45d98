// Row softmax: out[r, :] = softmax(x[r, :]) over rows of n <= 1024 columns.
// Row r starts at element r * row_stride in both x and out.
// One program per row; launch with grid = (num_rows, 1, 1).
func.func @softmax(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %row_stride: i32, %n: i32) attributes {tile.kernel} {
  %row = tile.program_id x
  %row_start = arith.muli %row, %row_stride : i32
  %cols = tile.range 0, 1024 : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %ns : tensor<1024xi32>
  %starts = tile.splat %row_start : i32 -> tensor<1024xi32>
  %offs = arith.addi %starts, %cols : tensor<1024xi32>

  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  %v = tile.load %xp, %mask, %ninf : tensor<1024x!tile.ptr<f32>>

  %max = tile.reduce max %v {axis = 0 : i32} : tensor<1024xf32> -> f32
  %maxs = tile.splat %max : f32 -> tensor<1024xf32>
  %shifted = arith.subf %v, %maxs : tensor<1024xf32>
  %e = math.exp %shifted : tensor<1024xf32>
  %sum = tile.reduce sum %e {axis = 0 : i32} : tensor<1024xf32> -> f32
  %sums = tile.splat %sum : f32 -> tensor<1024xf32>
  %y = arith.divf %e, %sums fastmath<arcp> : tensor<1024xf32>

  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %y, %mask : tensor<1024x!tile.ptr<f32>>
  return
}
