// tile.range, splat, broadcast, expand_dims, trans (with and without order)
// and integer tile.reduce over each axis, one output buffer per result.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --arg out:%t/a.npy:i32:6 --arg out:%t/b.npy:i32:4x2x3 \
// RUN:   --arg out:%t/c.npy:i32:3x2 --arg out:%t/d.npy:i32:2x3 \
// RUN:   --arg out:%t/e.npy:i32:2x4 --arg out:%t/f.npy:i32:2x3 \
// RUN:   --arg out:%t/g.npy:i8:1 --arg out:%t/h.npy:i32:1 --print | FileCheck %s

// tile.range 2, 8
// CHECK:      arg #0 (out, i32, 6):
// CHECK-NEXT: 2 3 4 5 6 7
// trans {order = [2, 0, 1]} of s[j][k][i] = 12j + 4k + i: result[i][j][k]
// CHECK-NEXT: arg #1 (out, i32, 4x2x3):
// CHECK-NEXT: 0 4 8
// CHECK-NEXT: 12 16 20
// CHECK-NEXT: 1 5 9
// CHECK-NEXT: 13 17 21
// CHECK-NEXT: 2 6 10
// CHECK-NEXT: 14 18 22
// CHECK-NEXT: 3 7 11
// CHECK-NEXT: 15 19 23
// trans without order reverses the dimensions
// CHECK-NEXT: arg #2 (out, i32, 3x2):
// CHECK-NEXT: 1 4
// CHECK-NEXT: 2 5
// CHECK-NEXT: 3 6
// broadcast [1x3] + broadcast [2x1] (via expand_dims) to 2x3
// CHECK-NEXT: arg #3 (out, i32, 2x3):
// CHECK-NEXT: 110 120 130
// CHECK-NEXT: 210 220 230
// reduce max over axis 1 of the 2x3x4 tensor: 12j + 8 + i
// CHECK-NEXT: arg #4 (out, i32, 2x4):
// CHECK-NEXT: 8 9 10 11
// CHECK-NEXT: 20 21 22 23
// reduce min over axis 2: 12j + 4k
// CHECK-NEXT: arg #5 (out, i32, 2x3):
// CHECK-NEXT: 0 4 8
// CHECK-NEXT: 12 16 20
// i8 reduce sum wraps: 100 + 100 + 100 = 300 = 44 (mod 256)
// CHECK-NEXT: arg #6 (out, i8, 1):
// CHECK-NEXT: 44
// 1-D reduce gives a scalar: sum 2..7 = 27
// CHECK-NEXT: arg #7 (out, i32, 1):
// CHECK-NEXT: 27
// CHECK-NOT:  {{.}}

func.func @shapes(%a: !tile.ptr<i32>, %b: !tile.ptr<i32>, %c: !tile.ptr<i32>,
                  %d: !tile.ptr<i32>, %e: !tile.ptr<i32>, %f: !tile.ptr<i32>,
                  %g: !tile.ptr<i8>, %h: !tile.ptr<i32>)
    attributes {tile.kernel} {
  %r = tile.range 2, 8 : tensor<6xi32>
  %r0 = tile.range 0, 6 : tensor<6xi32>
  %as = tile.splat %a : !tile.ptr<i32> -> tensor<6x!tile.ptr<i32>>
  %ap = tile.addptr %as, %r0 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %ap, %r : tensor<6x!tile.ptr<i32>>

  %s = arith.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
                             [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]>
      : tensor<2x3x4xi32>
  %t = tile.trans %s {order = array<i32: 2, 0, 1>} : tensor<2x3x4xi32> -> tensor<4x2x3xi32>
  %offs24 = arith.constant dense<[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]],
                                  [[12, 13, 14], [15, 16, 17]], [[18, 19, 20], [21, 22, 23]]]>
      : tensor<4x2x3xi32>
  %bs = tile.splat %b : !tile.ptr<i32> -> tensor<4x2x3x!tile.ptr<i32>>
  %bp = tile.addptr %bs, %offs24 : tensor<4x2x3x!tile.ptr<i32>>, tensor<4x2x3xi32>
  tile.store %bp, %t : tensor<4x2x3x!tile.ptr<i32>>

  %m = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %mt = tile.trans %m : tensor<2x3xi32> -> tensor<3x2xi32>
  %offs32 = arith.constant dense<[[0, 1], [2, 3], [4, 5]]> : tensor<3x2xi32>
  %cs = tile.splat %c : !tile.ptr<i32> -> tensor<3x2x!tile.ptr<i32>>
  %cp = tile.addptr %cs, %offs32 : tensor<3x2x!tile.ptr<i32>>, tensor<3x2xi32>
  tile.store %cp, %mt : tensor<3x2x!tile.ptr<i32>>

  %cols = arith.constant dense<[[10, 20, 30]]> : tensor<1x3xi32>
  %rows = arith.constant dense<[100, 200]> : tensor<2xi32>
  %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %colsb = tile.broadcast %cols : tensor<1x3xi32> -> tensor<2x3xi32>
  %rowsb = tile.broadcast %rows2 : tensor<2x1xi32> -> tensor<2x3xi32>
  %sum = arith.addi %colsb, %rowsb : tensor<2x3xi32>
  %offs23 = arith.constant dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>
  %ds = tile.splat %d : !tile.ptr<i32> -> tensor<2x3x!tile.ptr<i32>>
  %dp = tile.addptr %ds, %offs23 : tensor<2x3x!tile.ptr<i32>>, tensor<2x3xi32>
  tile.store %dp, %sum : tensor<2x3x!tile.ptr<i32>>

  %mx = tile.reduce max %s {axis = 1 : i32} : tensor<2x3x4xi32> -> tensor<2x4xi32>
  %offs24b = arith.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi32>
  %es = tile.splat %e : !tile.ptr<i32> -> tensor<2x4x!tile.ptr<i32>>
  %ep = tile.addptr %es, %offs24b : tensor<2x4x!tile.ptr<i32>>, tensor<2x4xi32>
  tile.store %ep, %mx : tensor<2x4x!tile.ptr<i32>>

  %mn = tile.reduce min %s {axis = 2 : i32} : tensor<2x3x4xi32> -> tensor<2x3xi32>
  %fs = tile.splat %f : !tile.ptr<i32> -> tensor<2x3x!tile.ptr<i32>>
  %fp = tile.addptr %fs, %offs23 : tensor<2x3x!tile.ptr<i32>>, tensor<2x3xi32>
  tile.store %fp, %mn : tensor<2x3x!tile.ptr<i32>>

  %hundreds = arith.constant dense<100> : tensor<3xi8>
  %wrapped = tile.reduce sum %hundreds {axis = 0 : i32} : tensor<3xi8> -> i8
  tile.store %g, %wrapped : !tile.ptr<i8>

  %total = tile.reduce sum %r {axis = 0 : i32} : tensor<6xi32> -> i32
  tile.store %h, %total : !tile.ptr<i32>
  return
}
