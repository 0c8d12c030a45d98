// Integer semantics of arith and math on i8 tensors: wrapping add/sub/mul,
// signed and unsigned division and remainder (truncating, floor, ceil),
// shifts, min/max, bit counts, comparisons, extensions and truncation. One
// row of the i32 output per op; the expected values were computed with
// Python integers, not with the interpreter.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --arg out:%t/o.npy:i32:31x6 --print | FileCheck %s

// CHECK: arg #0 (out, i32, 31x6):
// addi wraps
// CHECK-NEXT: -128 -125 -5 5 0 127
// subi wraps
// CHECK-NEXT: 126 125 -9 9 -4 73
// muli wraps
// CHECK-NEXT: 127 -128 -14 -14 -4 -116
// divsi truncates
// CHECK-NEXT: 127 -42 -3 -3 -1 3
// divui
// CHECK-NEXT: 127 42 124 0 127 3
// remsi
// CHECK-NEXT: 0 -2 -1 1 0 19
// remui
// CHECK-NEXT: 0 2 1 7 0 19
// floordivsi
// CHECK-NEXT: 127 -43 -4 -4 -1 3
// ceildivsi
// CHECK-NEXT: 127 -42 -3 -3 -1 4
// ceildivui
// CHECK-NEXT: 127 43 125 1 127 4
// andi
// CHECK-NEXT: 1 0 0 6 2 0
// ori
// CHECK-NEXT: 127 -125 -5 -1 -2 127
// xori
// CHECK-NEXT: 126 -125 -5 -7 -4 127
// shli
// CHECK-NEXT: -2 0 -28 -128 -4 100
// shrsi
// CHECK-NEXT: 63 -16 -2 0 -1 100
// shrui
// CHECK-NEXT: 63 16 62 0 127 100
// maxsi
// CHECK-NEXT: 127 3 2 7 2 100
// minsi
// CHECK-NEXT: 1 -128 -7 -2 -2 27
// maxui
// CHECK-NEXT: 127 -128 -7 -2 -2 100
// minui
// CHECK-NEXT: 1 3 2 7 2 27
// math.absi wraps
// CHECK-NEXT: 127 -128 7 7 2 100
// math.ctlz
// CHECK-NEXT: 1 0 0 5 0 1
// math.cttz
// CHECK-NEXT: 0 7 0 0 1 2
// math.ctpop
// CHECK-NEXT: 7 1 6 3 7 3
// select(slt)
// CHECK-NEXT: 1 -128 -7 -2 -2 27
// cmpi ult, extui
// CHECK-NEXT: 0 0 0 1 0 0
// cmpi slt, extsi
// CHECK-NEXT: 0 -1 -1 0 -1 0
// extui i8
// CHECK-NEXT: 127 128 249 7 254 100
// trunci i32 -> i8
// CHECK-NEXT: 44 127 -1 0 -1 -24
// i64 -> index -> i32 (index_cast)
// CHECK-NEXT: 2147483647 -2147483648 5 -5 3 -3
// index_castui i32 -> index, >> 16, -> i32
// CHECK-NEXT: 0 65535 0 0 65535 0
// CHECK-NOT: {{.}}

func.func @int_ops(%out: !tile.ptr<i32>) attributes {tile.kernel} {
  %a = arith.constant dense<[127, -128, -7, 7, -2, 100]> : tensor<6xi8>
  %b = arith.constant dense<[1, 3, 2, -2, 2, 27]> : tensor<6xi8>
  %s = arith.constant dense<[1, 3, 2, 7, 1, 0]> : tensor<6xi8>
  %t = arith.constant dense<[300, -129, 255, 256, -1, 1000]> : tensor<6xi32>
  %big = arith.constant dense<[2147483647, -2147483648, 5, -5, 1099511627779, -1099511627779]> : tensor<6xi64>
  %bigidx = arith.index_cast %big : tensor<6xi64> to tensor<6xindex>
  %tidxu = arith.index_castui %t : tensor<6xi32> to tensor<6xindex>
  %c16_idx = arith.constant dense<16> : tensor<6xindex>
  %tidxu_hi = arith.shrui %tidxu, %c16_idx : tensor<6xindex>
  %slt = arith.cmpi slt, %a, %b : tensor<6xi8>
  %ult = arith.cmpi ult, %a, %b : tensor<6xi8>
  %outs = tile.splat %out : !tile.ptr<i32> -> tensor<6x!tile.ptr<i32>>
  %cols = tile.range 0, 6 : tensor<6xi32>
  %row0 = tile.addptr %outs, %cols : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  // addi wraps
  %v0 = arith.addi %a, %b : tensor<6xi8>
  %w0 = arith.extsi %v0 : tensor<6xi8> to tensor<6xi32>
  %off0 = arith.constant dense<0> : tensor<6xi32>
  %p0 = tile.addptr %row0, %off0 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p0, %w0 : tensor<6x!tile.ptr<i32>>
  // subi wraps
  %v1 = arith.subi %a, %b : tensor<6xi8>
  %w1 = arith.extsi %v1 : tensor<6xi8> to tensor<6xi32>
  %off1 = arith.constant dense<6> : tensor<6xi32>
  %p1 = tile.addptr %row0, %off1 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p1, %w1 : tensor<6x!tile.ptr<i32>>
  // muli wraps
  %v2 = arith.muli %a, %b : tensor<6xi8>
  %w2 = arith.extsi %v2 : tensor<6xi8> to tensor<6xi32>
  %off2 = arith.constant dense<12> : tensor<6xi32>
  %p2 = tile.addptr %row0, %off2 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p2, %w2 : tensor<6x!tile.ptr<i32>>
  // divsi truncates
  %v3 = arith.divsi %a, %b : tensor<6xi8>
  %w3 = arith.extsi %v3 : tensor<6xi8> to tensor<6xi32>
  %off3 = arith.constant dense<18> : tensor<6xi32>
  %p3 = tile.addptr %row0, %off3 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p3, %w3 : tensor<6x!tile.ptr<i32>>
  // divui
  %v4 = arith.divui %a, %b : tensor<6xi8>
  %w4 = arith.extsi %v4 : tensor<6xi8> to tensor<6xi32>
  %off4 = arith.constant dense<24> : tensor<6xi32>
  %p4 = tile.addptr %row0, %off4 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p4, %w4 : tensor<6x!tile.ptr<i32>>
  // remsi
  %v5 = arith.remsi %a, %b : tensor<6xi8>
  %w5 = arith.extsi %v5 : tensor<6xi8> to tensor<6xi32>
  %off5 = arith.constant dense<30> : tensor<6xi32>
  %p5 = tile.addptr %row0, %off5 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p5, %w5 : tensor<6x!tile.ptr<i32>>
  // remui
  %v6 = arith.remui %a, %b : tensor<6xi8>
  %w6 = arith.extsi %v6 : tensor<6xi8> to tensor<6xi32>
  %off6 = arith.constant dense<36> : tensor<6xi32>
  %p6 = tile.addptr %row0, %off6 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p6, %w6 : tensor<6x!tile.ptr<i32>>
  // floordivsi
  %v7 = arith.floordivsi %a, %b : tensor<6xi8>
  %w7 = arith.extsi %v7 : tensor<6xi8> to tensor<6xi32>
  %off7 = arith.constant dense<42> : tensor<6xi32>
  %p7 = tile.addptr %row0, %off7 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p7, %w7 : tensor<6x!tile.ptr<i32>>
  // ceildivsi
  %v8 = arith.ceildivsi %a, %b : tensor<6xi8>
  %w8 = arith.extsi %v8 : tensor<6xi8> to tensor<6xi32>
  %off8 = arith.constant dense<48> : tensor<6xi32>
  %p8 = tile.addptr %row0, %off8 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p8, %w8 : tensor<6x!tile.ptr<i32>>
  // ceildivui
  %v9 = arith.ceildivui %a, %b : tensor<6xi8>
  %w9 = arith.extsi %v9 : tensor<6xi8> to tensor<6xi32>
  %off9 = arith.constant dense<54> : tensor<6xi32>
  %p9 = tile.addptr %row0, %off9 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p9, %w9 : tensor<6x!tile.ptr<i32>>
  // andi
  %v10 = arith.andi %a, %b : tensor<6xi8>
  %w10 = arith.extsi %v10 : tensor<6xi8> to tensor<6xi32>
  %off10 = arith.constant dense<60> : tensor<6xi32>
  %p10 = tile.addptr %row0, %off10 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p10, %w10 : tensor<6x!tile.ptr<i32>>
  // ori
  %v11 = arith.ori %a, %b : tensor<6xi8>
  %w11 = arith.extsi %v11 : tensor<6xi8> to tensor<6xi32>
  %off11 = arith.constant dense<66> : tensor<6xi32>
  %p11 = tile.addptr %row0, %off11 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p11, %w11 : tensor<6x!tile.ptr<i32>>
  // xori
  %v12 = arith.xori %a, %b : tensor<6xi8>
  %w12 = arith.extsi %v12 : tensor<6xi8> to tensor<6xi32>
  %off12 = arith.constant dense<72> : tensor<6xi32>
  %p12 = tile.addptr %row0, %off12 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p12, %w12 : tensor<6x!tile.ptr<i32>>
  // shli
  %v13 = arith.shli %a, %s : tensor<6xi8>
  %w13 = arith.extsi %v13 : tensor<6xi8> to tensor<6xi32>
  %off13 = arith.constant dense<78> : tensor<6xi32>
  %p13 = tile.addptr %row0, %off13 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p13, %w13 : tensor<6x!tile.ptr<i32>>
  // shrsi
  %v14 = arith.shrsi %a, %s : tensor<6xi8>
  %w14 = arith.extsi %v14 : tensor<6xi8> to tensor<6xi32>
  %off14 = arith.constant dense<84> : tensor<6xi32>
  %p14 = tile.addptr %row0, %off14 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p14, %w14 : tensor<6x!tile.ptr<i32>>
  // shrui
  %v15 = arith.shrui %a, %s : tensor<6xi8>
  %w15 = arith.extsi %v15 : tensor<6xi8> to tensor<6xi32>
  %off15 = arith.constant dense<90> : tensor<6xi32>
  %p15 = tile.addptr %row0, %off15 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p15, %w15 : tensor<6x!tile.ptr<i32>>
  // maxsi
  %v16 = arith.maxsi %a, %b : tensor<6xi8>
  %w16 = arith.extsi %v16 : tensor<6xi8> to tensor<6xi32>
  %off16 = arith.constant dense<96> : tensor<6xi32>
  %p16 = tile.addptr %row0, %off16 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p16, %w16 : tensor<6x!tile.ptr<i32>>
  // minsi
  %v17 = arith.minsi %a, %b : tensor<6xi8>
  %w17 = arith.extsi %v17 : tensor<6xi8> to tensor<6xi32>
  %off17 = arith.constant dense<102> : tensor<6xi32>
  %p17 = tile.addptr %row0, %off17 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p17, %w17 : tensor<6x!tile.ptr<i32>>
  // maxui
  %v18 = arith.maxui %a, %b : tensor<6xi8>
  %w18 = arith.extsi %v18 : tensor<6xi8> to tensor<6xi32>
  %off18 = arith.constant dense<108> : tensor<6xi32>
  %p18 = tile.addptr %row0, %off18 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p18, %w18 : tensor<6x!tile.ptr<i32>>
  // minui
  %v19 = arith.minui %a, %b : tensor<6xi8>
  %w19 = arith.extsi %v19 : tensor<6xi8> to tensor<6xi32>
  %off19 = arith.constant dense<114> : tensor<6xi32>
  %p19 = tile.addptr %row0, %off19 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p19, %w19 : tensor<6x!tile.ptr<i32>>
  // math.absi wraps
  %v20 = math.absi %a : tensor<6xi8>
  %w20 = arith.extsi %v20 : tensor<6xi8> to tensor<6xi32>
  %off20 = arith.constant dense<120> : tensor<6xi32>
  %p20 = tile.addptr %row0, %off20 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p20, %w20 : tensor<6x!tile.ptr<i32>>
  // math.ctlz
  %v21 = math.ctlz %a : tensor<6xi8>
  %w21 = arith.extsi %v21 : tensor<6xi8> to tensor<6xi32>
  %off21 = arith.constant dense<126> : tensor<6xi32>
  %p21 = tile.addptr %row0, %off21 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p21, %w21 : tensor<6x!tile.ptr<i32>>
  // math.cttz
  %v22 = math.cttz %a : tensor<6xi8>
  %w22 = arith.extsi %v22 : tensor<6xi8> to tensor<6xi32>
  %off22 = arith.constant dense<132> : tensor<6xi32>
  %p22 = tile.addptr %row0, %off22 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p22, %w22 : tensor<6x!tile.ptr<i32>>
  // math.ctpop
  %v23 = math.ctpop %a : tensor<6xi8>
  %w23 = arith.extsi %v23 : tensor<6xi8> to tensor<6xi32>
  %off23 = arith.constant dense<138> : tensor<6xi32>
  %p23 = tile.addptr %row0, %off23 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p23, %w23 : tensor<6x!tile.ptr<i32>>
  // select(slt)
  %v24 = arith.select %slt, %a, %b : tensor<6xi1>, tensor<6xi8>
  %w24 = arith.extsi %v24 : tensor<6xi8> to tensor<6xi32>
  %off24 = arith.constant dense<144> : tensor<6xi32>
  %p24 = tile.addptr %row0, %off24 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p24, %w24 : tensor<6x!tile.ptr<i32>>
  // cmpi ult, extui
  %v25 = arith.extui %ult : tensor<6xi1> to tensor<6xi32>
  %off25 = arith.constant dense<150> : tensor<6xi32>
  %p25 = tile.addptr %row0, %off25 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p25, %v25 : tensor<6x!tile.ptr<i32>>
  // cmpi slt, extsi
  %v26 = arith.extsi %slt : tensor<6xi1> to tensor<6xi32>
  %off26 = arith.constant dense<156> : tensor<6xi32>
  %p26 = tile.addptr %row0, %off26 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p26, %v26 : tensor<6x!tile.ptr<i32>>
  // extui i8
  %v27 = arith.extui %a : tensor<6xi8> to tensor<6xi32>
  %off27 = arith.constant dense<162> : tensor<6xi32>
  %p27 = tile.addptr %row0, %off27 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p27, %v27 : tensor<6x!tile.ptr<i32>>
  // trunci i32 -> i8
  %v28 = arith.trunci %t : tensor<6xi32> to tensor<6xi8>
  %w28 = arith.extsi %v28 : tensor<6xi8> to tensor<6xi32>
  %off28 = arith.constant dense<168> : tensor<6xi32>
  %p28 = tile.addptr %row0, %off28 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p28, %w28 : tensor<6x!tile.ptr<i32>>
  // i64 -> index -> i32 (index_cast)
  %v29 = arith.index_cast %bigidx : tensor<6xindex> to tensor<6xi32>
  %off29 = arith.constant dense<174> : tensor<6xi32>
  %p29 = tile.addptr %row0, %off29 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p29, %v29 : tensor<6x!tile.ptr<i32>>
  // index_castui i32 -> index, >> 16, -> i32
  %v30 = arith.index_cast %tidxu_hi : tensor<6xindex> to tensor<6xi32>
  %off30 = arith.constant dense<180> : tensor<6xi32>
  %p30 = tile.addptr %row0, %off30 : tensor<6x!tile.ptr<i32>>, tensor<6xi32>
  tile.store %p30, %v30 : tensor<6x!tile.ptr<i32>>
  return
}
