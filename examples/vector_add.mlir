// Vector add: out[i] = x[i] + y[i] for i < n.
// One program per 1024 elements; launch with grid = (ceil(n / 1024), 1, 1).
func.func @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %n: i32) attributes {tile.kernel} {
  %pid = tile.program_id x
  %block = arith.constant 1024 : i32
  %start = arith.muli %pid, %block : i32
  %range = tile.range 0, 1024 : tensor<1024xi32>
  %starts = tile.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>

  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  %b = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>
  %sum = arith.addf %a, %b : tensor<1024xf32>

  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %sum, %mask : tensor<1024x!tile.ptr<f32>>
  return
}
