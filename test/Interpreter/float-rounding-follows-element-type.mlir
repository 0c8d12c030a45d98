// Float results are rounded to their element type after every op: f16 and
// bf16 to nearest even (subnormals and overflow included), truncf in all five
// rounding modes, integer-to-float conversions rounded once, NaN and signed
// zero rules of maximumf/minimumf/maxnumf/minnumf, fma rounded once,
// tile.reduce in index order in the element type, tile.dot accumulating in
// f32 with exact f16 products, and the float casts, predicates and bitcasts.
// Results are widened to f64 (or i64) and printed one op per row; expected
// values come from NumPy float16/float32 arithmetic, not the interpreter.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --arg out:%t/f.npy:f64:31x4 --arg out:%t/i.npy:i64:15x4 \
// RUN:   --print | FileCheck %s

// CHECK: arg #0 (out, f64, 31x4):
// f16 addf rounds to nearest even, overflows to inf
// CHECK-NEXT: 1 1.001953125 inf 2048
// f16 mulf: subnormal ties to even, overflow
// CHECK-NEXT: 0 1.1920928955078125e-07 1.1920928955078125e-07 inf
// f16 divf
// CHECK-NEXT: 0.333251953125 0.66650390625 inf -inf
// bf16 addf rounds to 8 significant bits
// CHECK-NEXT: 1 1.015625 1.0078125 -1
// f32 addf
// CHECK-NEXT: 1 1.000000238418579 16777216 0.30000001192092896
// truncf f32 -> bf16
// CHECK-NEXT: 0.10009765625 3.00405527047391e+38 1 -1.015625
// truncf f32 -> f16, to_nearest_even
// CHECK-NEXT: 1 -1 inf 0
// truncf downward
// CHECK-NEXT: 1 -1.0009765625 65504 0
// truncf upward
// CHECK-NEXT: 1.0009765625 -1 inf 5.9604644775390625e-08
// truncf toward_zero
// CHECK-NEXT: 1 -1 65504 0
// truncf to_nearest_away
// CHECK-NEXT: 1.0009765625 -1.0009765625 inf 0
// sitofp i64 -> f32 rounds once (no double rounding via f64)
// CHECK-NEXT: 9007199254740992 1.1529216420458004e+18 -1.1529216420458004e+18 3
// sitofp i64 -> f64
// CHECK-NEXT: 9007199254740992 1.1529215733263237e+18 -3 9.223372036854776e+18
// uitofp i32 -> f32
// CHECK-NEXT: 4294967296 2147483648 16777216 5
// maximumf propagates NaN, +0 > -0
// CHECK-NEXT: nan 0 nan -0
// minimumf
// CHECK-NEXT: nan -0 nan -0
// maxnumf ignores NaN
// CHECK-NEXT: 1 0 1 -0
// minnumf
// CHECK-NEXT: 1 -0 1 -0
// math.exp f16
// CHECK-NEXT: 2.71875 1 0 inf
// math.sqrt f32
// CHECK-NEXT: 1.4142135381698608 nan 0.5 inf
// math.rsqrt f16
// CHECK-NEXT: 0.5 inf 0.5771484375 1
// math.roundeven
// CHECK-NEXT: -2 2 4 -0
// math.round (half away from zero)
// CHECK-NEXT: -3 3 4 -1
// math.fma f16 rounds once
// CHECK-NEXT: 9.5367431640625e-07 7 1 0
// math.fma f32 rounds once
// CHECK-NEXT: 1.4210854715202004e-14 7 1 1.4901161193847656e-08
// tile.reduce sum f16 adds in order, rounding each step
// CHECK-NEXT: 2048 15 inf -0
// tile.reduce max over axis 0 propagates NaN
// CHECK-NEXT: 2 nan 0 5
// tile.reduce min over axis 0 propagates NaN
// CHECK-NEXT: 0 nan -0 -inf
// tile.dot accumulates in f32, in k order
// CHECK-NEXT: 16777216 131008 1.75 -0
// tile.dot: f16 products are exact in f32
// CHECK-NEXT: 0.0019540786743164062 0.0009765625 1 5.001953125
// bitcast i16 -> f16
// CHECK-NEXT: inf 5.9604644775390625e-08 1.0009765625 -inf
// CHECK-NEXT: arg #1 (out, i64, 15x4):
// cmpf olt
// CHECK-NEXT: 0 0 0 0
// cmpf ult
// CHECK-NEXT: 1 0 0 1
// cmpf oeq
// CHECK-NEXT: 0 1 0 0
// cmpf une
// CHECK-NEXT: 1 0 1 1
// cmpf uno
// CHECK-NEXT: 1 0 0 1
// cmpf ord
// CHECK-NEXT: 0 1 1 0
// fptosi saturates, NaN -> 0
// CHECK-NEXT: 2147483647 -2147483648 0 -2
// fptoui saturates, NaN -> 0
// CHECK-NEXT: 0 3 4294967295 0
// bitcast f32 -> i32
// CHECK-NEXT: 1065353216 -2147483648 2139095040 1
// bitcast f16 -> i16
// CHECK-NEXT: 15360 49152 1 31743
// bitcast bf16 -> i16
// CHECK-NEXT: 16256 49152 15821 32639
// math.isnan in the f16 format
// CHECK-NEXT: 1 0 0 0
// math.isinf in the f16 format
// CHECK-NEXT: 0 1 0 0
// math.isfinite in the f16 format
// CHECK-NEXT: 0 0 1 1
// math.isnormal in the f16 format
// CHECK-NEXT: 0 0 1 0
// CHECK-NOT: {{.}}

func.func @float_ops(%fout: !tile.ptr<f64>, %iout: !tile.ptr<i64>) attributes {tile.kernel} {
  %cols = tile.range 0, 4 : tensor<4xi32>
  %fs = tile.splat %fout : !tile.ptr<f64> -> tensor<4x!tile.ptr<f64>>
  %f0 = tile.addptr %fs, %cols : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  %is = tile.splat %iout : !tile.ptr<i64> -> tensor<4x!tile.ptr<i64>>
  %i0 = tile.addptr %is, %cols : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  // f16 addf rounds to nearest even, overflows to inf
  %x1 = arith.constant dense<[1.0, 1.0, 65504.0, 2048.0]> : tensor<4xf16>
  %x2 = arith.constant dense<[0.00048828125, 0.00146484375, 16.0, 1.0]> : tensor<4xf16>
  %x3 = arith.addf %x1, %x2 : tensor<4xf16>
  %x4 = arith.extf %x3 : tensor<4xf16> to tensor<4xf64>
  %x168 = arith.constant dense<0> : tensor<4xi32>
  %x169 = tile.addptr %f0, %x168 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x169, %x4 : tensor<4x!tile.ptr<f64>>
  // f16 mulf: subnormal ties to even, overflow
  %x5 = arith.constant dense<[5.960464477539063e-08, 5.960464477539063e-08, 5.960464477539063e-08, 65504.0]> : tensor<4xf16>
  %x6 = arith.constant dense<[0.5, 1.5, 2.5, 2.0]> : tensor<4xf16>
  %x7 = arith.mulf %x5, %x6 : tensor<4xf16>
  %x8 = arith.extf %x7 : tensor<4xf16> to tensor<4xf64>
  %x170 = arith.constant dense<4> : tensor<4xi32>
  %x171 = tile.addptr %f0, %x170 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x171, %x8 : tensor<4x!tile.ptr<f64>>
  // f16 divf
  %x9 = arith.constant dense<[1.0, 2.0, 1.0, -1.0]> : tensor<4xf16>
  %x10 = arith.constant dense<[3.0, 3.0, 0.0, 0.0]> : tensor<4xf16>
  %x11 = arith.divf %x9, %x10 : tensor<4xf16>
  %x12 = arith.extf %x11 : tensor<4xf16> to tensor<4xf64>
  %x172 = arith.constant dense<8> : tensor<4xi32>
  %x173 = tile.addptr %f0, %x172 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x173, %x12 : tensor<4x!tile.ptr<f64>>
  // bf16 addf rounds to 8 significant bits
  %x13 = arith.constant dense<[1.0, 1.0, 1.0, -1.0]> : tensor<4xbf16>
  %x14 = arith.constant dense<[0.00390625, 0.01171875, 0.0078125, -0.00390625]> : tensor<4xbf16>
  %x15 = arith.addf %x13, %x14 : tensor<4xbf16>
  %x16 = arith.extf %x15 : tensor<4xbf16> to tensor<4xf64>
  %x174 = arith.constant dense<12> : tensor<4xi32>
  %x175 = tile.addptr %f0, %x174 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x175, %x16 : tensor<4x!tile.ptr<f64>>
  // f32 addf
  %x17 = arith.constant dense<[1.0, 1.0, 16777216.0, 0.1]> : tensor<4xf32>
  %x18 = arith.constant dense<[5.960464477539063e-08, 1.7881393432617188e-07, 1.0, 0.2]> : tensor<4xf32>
  %x19 = arith.addf %x17, %x18 : tensor<4xf32>
  %x20 = arith.extf %x19 : tensor<4xf32> to tensor<4xf64>
  %x176 = arith.constant dense<16> : tensor<4xi32>
  %x177 = tile.addptr %f0, %x176 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x177, %x20 : tensor<4x!tile.ptr<f64>>
  // truncf f32 -> bf16
  %x21 = arith.constant dense<[0.10000000149011612, 3.0e+38, 1.00390625, -1.01171875]> : tensor<4xf32>
  %x22 = arith.truncf %x21 : tensor<4xf32> to tensor<4xbf16>
  %x23 = arith.extf %x22 : tensor<4xbf16> to tensor<4xf64>
  %x178 = arith.constant dense<20> : tensor<4xi32>
  %x179 = tile.addptr %f0, %x178 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x179, %x23 : tensor<4x!tile.ptr<f64>>
  // truncf f32 -> f16, to_nearest_even
  %x24 = arith.constant dense<[1.00048828125, -1.00048828125, 65520.0, 1.0e-08]> : tensor<4xf32>
  %x25 = arith.truncf %x24 : tensor<4xf32> to tensor<4xf16>
  %x26 = arith.extf %x25 : tensor<4xf16> to tensor<4xf64>
  %x180 = arith.constant dense<24> : tensor<4xi32>
  %x181 = tile.addptr %f0, %x180 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x181, %x26 : tensor<4x!tile.ptr<f64>>
  // truncf downward
  %x27 = arith.constant dense<[1.00048828125, -1.00048828125, 65520.0, 1.0e-08]> : tensor<4xf32>
  %x28 = arith.truncf %x27 downward : tensor<4xf32> to tensor<4xf16>
  %x29 = arith.extf %x28 : tensor<4xf16> to tensor<4xf64>
  %x182 = arith.constant dense<28> : tensor<4xi32>
  %x183 = tile.addptr %f0, %x182 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x183, %x29 : tensor<4x!tile.ptr<f64>>
  // truncf upward
  %x30 = arith.constant dense<[1.00048828125, -1.00048828125, 65520.0, 1.0e-08]> : tensor<4xf32>
  %x31 = arith.truncf %x30 upward : tensor<4xf32> to tensor<4xf16>
  %x32 = arith.extf %x31 : tensor<4xf16> to tensor<4xf64>
  %x184 = arith.constant dense<32> : tensor<4xi32>
  %x185 = tile.addptr %f0, %x184 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x185, %x32 : tensor<4x!tile.ptr<f64>>
  // truncf toward_zero
  %x33 = arith.constant dense<[1.00048828125, -1.00048828125, 65520.0, 1.0e-08]> : tensor<4xf32>
  %x34 = arith.truncf %x33 toward_zero : tensor<4xf32> to tensor<4xf16>
  %x35 = arith.extf %x34 : tensor<4xf16> to tensor<4xf64>
  %x186 = arith.constant dense<36> : tensor<4xi32>
  %x187 = tile.addptr %f0, %x186 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x187, %x35 : tensor<4x!tile.ptr<f64>>
  // truncf to_nearest_away
  %x36 = arith.constant dense<[1.00048828125, -1.00048828125, 65520.0, 1.0e-08]> : tensor<4xf32>
  %x37 = arith.truncf %x36 to_nearest_away : tensor<4xf32> to tensor<4xf16>
  %x38 = arith.extf %x37 : tensor<4xf16> to tensor<4xf64>
  %x188 = arith.constant dense<40> : tensor<4xi32>
  %x189 = tile.addptr %f0, %x188 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x189, %x38 : tensor<4x!tile.ptr<f64>>
  // sitofp i64 -> f32 rounds once (no double rounding via f64)
  %x39 = arith.constant dense<[9007199254740993, 1152921573326323713, -1152921573326323713, 3]> : tensor<4xi64>
  %x40 = arith.sitofp %x39 : tensor<4xi64> to tensor<4xf32>
  %x41 = arith.extf %x40 : tensor<4xf32> to tensor<4xf64>
  %x190 = arith.constant dense<44> : tensor<4xi32>
  %x191 = tile.addptr %f0, %x190 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x191, %x41 : tensor<4x!tile.ptr<f64>>
  // sitofp i64 -> f64
  %x42 = arith.constant dense<[9007199254740993, 1152921573326323713, -3, 9223372036854775807]> : tensor<4xi64>
  %x43 = arith.sitofp %x42 : tensor<4xi64> to tensor<4xf64>
  %x192 = arith.constant dense<48> : tensor<4xi32>
  %x193 = tile.addptr %f0, %x192 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x193, %x43 : tensor<4x!tile.ptr<f64>>
  // uitofp i32 -> f32
  %x44 = arith.constant dense<[-1, -2147483648, 16777217, 5]> : tensor<4xi32>
  %x45 = arith.uitofp %x44 : tensor<4xi32> to tensor<4xf32>
  %x46 = arith.extf %x45 : tensor<4xf32> to tensor<4xf64>
  %x194 = arith.constant dense<52> : tensor<4xi32>
  %x195 = tile.addptr %f0, %x194 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x195, %x46 : tensor<4x!tile.ptr<f64>>
  // maximumf propagates NaN, +0 > -0
  %x47 = arith.constant dense<[0x7FC00000, -0.0, 1.0, -0.0]> : tensor<4xf32>
  %x48 = arith.constant dense<[1.0, 0.0, 0x7FC00000, -0.0]> : tensor<4xf32>
  %x49 = arith.maximumf %x47, %x48 : tensor<4xf32>
  %x50 = arith.extf %x49 : tensor<4xf32> to tensor<4xf64>
  %x196 = arith.constant dense<56> : tensor<4xi32>
  %x197 = tile.addptr %f0, %x196 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x197, %x50 : tensor<4x!tile.ptr<f64>>
  // minimumf
  %x51 = arith.constant dense<[0x7FC00000, -0.0, 1.0, -0.0]> : tensor<4xf32>
  %x52 = arith.constant dense<[1.0, 0.0, 0x7FC00000, -0.0]> : tensor<4xf32>
  %x53 = arith.minimumf %x51, %x52 : tensor<4xf32>
  %x54 = arith.extf %x53 : tensor<4xf32> to tensor<4xf64>
  %x198 = arith.constant dense<60> : tensor<4xi32>
  %x199 = tile.addptr %f0, %x198 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x199, %x54 : tensor<4x!tile.ptr<f64>>
  // maxnumf ignores NaN
  %x55 = arith.constant dense<[0x7FC00000, -0.0, 1.0, -0.0]> : tensor<4xf32>
  %x56 = arith.constant dense<[1.0, 0.0, 0x7FC00000, -0.0]> : tensor<4xf32>
  %x57 = arith.maxnumf %x55, %x56 : tensor<4xf32>
  %x58 = arith.extf %x57 : tensor<4xf32> to tensor<4xf64>
  %x200 = arith.constant dense<64> : tensor<4xi32>
  %x201 = tile.addptr %f0, %x200 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x201, %x58 : tensor<4x!tile.ptr<f64>>
  // minnumf
  %x59 = arith.constant dense<[0x7FC00000, -0.0, 1.0, -0.0]> : tensor<4xf32>
  %x60 = arith.constant dense<[1.0, 0.0, 0x7FC00000, -0.0]> : tensor<4xf32>
  %x61 = arith.minnumf %x59, %x60 : tensor<4xf32>
  %x62 = arith.extf %x61 : tensor<4xf32> to tensor<4xf64>
  %x202 = arith.constant dense<68> : tensor<4xi32>
  %x203 = tile.addptr %f0, %x202 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x203, %x62 : tensor<4x!tile.ptr<f64>>
  // math.exp f16
  %x63 = arith.constant dense<[1.0, 0.0, 0xFC00, 20.0]> : tensor<4xf16>
  %x64 = math.exp %x63 : tensor<4xf16>
  %x65 = arith.extf %x64 : tensor<4xf16> to tensor<4xf64>
  %x204 = arith.constant dense<72> : tensor<4xi32>
  %x205 = tile.addptr %f0, %x204 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x205, %x65 : tensor<4x!tile.ptr<f64>>
  // math.sqrt f32
  %x66 = arith.constant dense<[2.0, -1.0, 0.25, 0x7F800000]> : tensor<4xf32>
  %x67 = math.sqrt %x66 : tensor<4xf32>
  %x68 = arith.extf %x67 : tensor<4xf32> to tensor<4xf64>
  %x206 = arith.constant dense<76> : tensor<4xi32>
  %x207 = tile.addptr %f0, %x206 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x207, %x68 : tensor<4x!tile.ptr<f64>>
  // math.rsqrt f16
  %x69 = arith.constant dense<[4.0, 0.0, 3.0, 1.0]> : tensor<4xf16>
  %x70 = math.rsqrt %x69 : tensor<4xf16>
  %x71 = arith.extf %x70 : tensor<4xf16> to tensor<4xf64>
  %x208 = arith.constant dense<80> : tensor<4xi32>
  %x209 = tile.addptr %f0, %x208 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x209, %x71 : tensor<4x!tile.ptr<f64>>
  // math.roundeven
  %x72 = arith.constant dense<[-2.5, 2.5, 3.5, -0.5]> : tensor<4xf32>
  %x73 = math.roundeven %x72 : tensor<4xf32>
  %x74 = arith.extf %x73 : tensor<4xf32> to tensor<4xf64>
  %x210 = arith.constant dense<84> : tensor<4xi32>
  %x211 = tile.addptr %f0, %x210 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x211, %x74 : tensor<4x!tile.ptr<f64>>
  // math.round (half away from zero)
  %x75 = arith.constant dense<[-2.5, 2.5, 3.5, -0.5]> : tensor<4xf32>
  %x76 = math.round %x75 : tensor<4xf32>
  %x77 = arith.extf %x76 : tensor<4xf32> to tensor<4xf64>
  %x212 = arith.constant dense<88> : tensor<4xi32>
  %x213 = tile.addptr %f0, %x212 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x213, %x77 : tensor<4x!tile.ptr<f64>>
  // math.fma f16 rounds once
  %x78 = arith.constant dense<[1.0009765625, 2.0, 1.0, 1.0]> : tensor<4xf16>
  %x79 = arith.constant dense<[1.0009765625, 3.0, 1.0, 1.0]> : tensor<4xf16>
  %x80 = arith.constant dense<[-1.001953125, 1.0, 0.0, -1.0]> : tensor<4xf16>
  %x81 = math.fma %x78, %x79, %x80 : tensor<4xf16>
  %x82 = arith.extf %x81 : tensor<4xf16> to tensor<4xf64>
  %x214 = arith.constant dense<92> : tensor<4xi32>
  %x215 = tile.addptr %f0, %x214 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x215, %x82 : tensor<4x!tile.ptr<f64>>
  // math.fma f32 rounds once
  %x83 = arith.constant dense<[1.0000001192092896, 2.0, 1.0, 0.1]> : tensor<4xf32>
  %x84 = arith.constant dense<[1.0000001192092896, 3.0, 1.0, 10.0]> : tensor<4xf32>
  %x85 = arith.constant dense<[-1.000000238418579, 1.0, 0.0, -1.0]> : tensor<4xf32>
  %x86 = math.fma %x83, %x84, %x85 : tensor<4xf32>
  %x87 = arith.extf %x86 : tensor<4xf32> to tensor<4xf64>
  %x216 = arith.constant dense<96> : tensor<4xi32>
  %x217 = tile.addptr %f0, %x216 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x217, %x87 : tensor<4x!tile.ptr<f64>>
  // tile.reduce sum f16 adds in order, rounding each step
  %x88 = arith.constant dense<[[2048.0, 1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0], [65504.0, 65504.0, -65504.0, 0.0, 0.0], [-0.0, -0.0, -0.0, -0.0, -0.0]]> : tensor<4x5xf16>
  %x89 = tile.reduce sum %x88 {axis = 1 : i32} : tensor<4x5xf16> -> tensor<4xf16>
  %x90 = arith.extf %x89 : tensor<4xf16> to tensor<4xf64>
  %x218 = arith.constant dense<100> : tensor<4xi32>
  %x219 = tile.addptr %f0, %x218 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x219, %x90 : tensor<4x!tile.ptr<f64>>
  // tile.reduce max over axis 0 propagates NaN
  %x91 = arith.constant dense<[[1.0, 0x7FC00000, -0.0, 5.0], [2.0, 1.0, 0.0, 0xFF800000], [0.0, 2.0, -0.0, 3.0]]> : tensor<3x4xf32>
  %x92 = tile.reduce max %x91 {axis = 0 : i32} : tensor<3x4xf32> -> tensor<4xf32>
  %x93 = arith.extf %x92 : tensor<4xf32> to tensor<4xf64>
  %x220 = arith.constant dense<104> : tensor<4xi32>
  %x221 = tile.addptr %f0, %x220 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x221, %x93 : tensor<4x!tile.ptr<f64>>
  // tile.reduce min over axis 0 propagates NaN
  %x94 = arith.constant dense<[[1.0, 0x7FC00000, -0.0, 5.0], [2.0, 1.0, 0.0, 0xFF800000], [0.0, 2.0, -0.0, 3.0]]> : tensor<3x4xf32>
  %x95 = tile.reduce min %x94 {axis = 0 : i32} : tensor<3x4xf32> -> tensor<4xf32>
  %x96 = arith.extf %x95 : tensor<4xf32> to tensor<4xf64>
  %x222 = arith.constant dense<108> : tensor<4xi32>
  %x223 = tile.addptr %f0, %x222 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x223, %x96 : tensor<4x!tile.ptr<f64>>
  // tile.dot accumulates in f32, in k order
  %x97 = arith.constant dense<[[1.0, 1.0]]> : tensor<1x2xf16>
  %x98 = arith.constant dense<[[1.0, 65504.0, 0.5, -0.0], [1.0, 65504.0, 0.25, -0.0]]> : tensor<2x4xf16>
  %x99 = arith.constant dense<[[16777216.0, 0.0, 1.0, -0.0]]> : tensor<1x4xf32>
  %x100 = tile.dot %x97, %x98, %x99 : tensor<1x2xf16> * tensor<2x4xf16> -> tensor<1x4xf32>
  %x101 = tile.reduce sum %x100 {axis = 0 : i32} : tensor<1x4xf32> -> tensor<4xf32>
  %x102 = arith.extf %x101 : tensor<4xf32> to tensor<4xf64>
  %x224 = arith.constant dense<112> : tensor<4xi32>
  %x225 = tile.addptr %f0, %x224 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x225, %x102 : tensor<4x!tile.ptr<f64>>
  // tile.dot: f16 products are exact in f32
  %x103 = arith.constant dense<[[1.0009765625, 1.0]]> : tensor<1x2xf16>
  %x104 = arith.constant dense<[[1.0009765625, 1.0, 0.0, 2.0], [-1.0, -1.0, 1.0, 3.0]]> : tensor<2x4xf16>
  %x105 = arith.constant dense<[[0.0, 0.0, 0.0, 0.0]]> : tensor<1x4xf32>
  %x106 = tile.dot %x103, %x104, %x105 : tensor<1x2xf16> * tensor<2x4xf16> -> tensor<1x4xf32>
  %x107 = tile.reduce sum %x106 {axis = 0 : i32} : tensor<1x4xf32> -> tensor<4xf32>
  %x108 = arith.extf %x107 : tensor<4xf32> to tensor<4xf64>
  %x226 = arith.constant dense<116> : tensor<4xi32>
  %x227 = tile.addptr %f0, %x226 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x227, %x108 : tensor<4x!tile.ptr<f64>>
  // bitcast i16 -> f16
  %x153 = arith.constant dense<[31744, 1, 15361, -1024]> : tensor<4xi16>
  %x154 = arith.bitcast %x153 : tensor<4xi16> to tensor<4xf16>
  %x155 = arith.extf %x154 : tensor<4xf16> to tensor<4xf64>
  %x228 = arith.constant dense<120> : tensor<4xi32>
  %x229 = tile.addptr %f0, %x228 : tensor<4x!tile.ptr<f64>>, tensor<4xi32>
  tile.store %x229, %x155 : tensor<4x!tile.ptr<f64>>
  // cmpf olt
  %x109 = arith.constant dense<[0x7FC00000, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %x110 = arith.constant dense<[1.0, 1.0, 1.0, 0x7FC00000]> : tensor<4xf32>
  %x111 = arith.cmpf olt, %x109, %x110 : tensor<4xf32>
  %x112 = arith.extui %x111 : tensor<4xi1> to tensor<4xi64>
  %x230 = arith.constant dense<0> : tensor<4xi32>
  %x231 = tile.addptr %i0, %x230 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x231, %x112 : tensor<4x!tile.ptr<i64>>
  // cmpf ult
  %x113 = arith.constant dense<[0x7FC00000, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %x114 = arith.constant dense<[1.0, 1.0, 1.0, 0x7FC00000]> : tensor<4xf32>
  %x115 = arith.cmpf ult, %x113, %x114 : tensor<4xf32>
  %x116 = arith.extui %x115 : tensor<4xi1> to tensor<4xi64>
  %x232 = arith.constant dense<4> : tensor<4xi32>
  %x233 = tile.addptr %i0, %x232 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x233, %x116 : tensor<4x!tile.ptr<i64>>
  // cmpf oeq
  %x117 = arith.constant dense<[0x7FC00000, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %x118 = arith.constant dense<[1.0, 1.0, 1.0, 0x7FC00000]> : tensor<4xf32>
  %x119 = arith.cmpf oeq, %x117, %x118 : tensor<4xf32>
  %x120 = arith.extui %x119 : tensor<4xi1> to tensor<4xi64>
  %x234 = arith.constant dense<8> : tensor<4xi32>
  %x235 = tile.addptr %i0, %x234 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x235, %x120 : tensor<4x!tile.ptr<i64>>
  // cmpf une
  %x121 = arith.constant dense<[0x7FC00000, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %x122 = arith.constant dense<[1.0, 1.0, 1.0, 0x7FC00000]> : tensor<4xf32>
  %x123 = arith.cmpf une, %x121, %x122 : tensor<4xf32>
  %x124 = arith.extui %x123 : tensor<4xi1> to tensor<4xi64>
  %x236 = arith.constant dense<12> : tensor<4xi32>
  %x237 = tile.addptr %i0, %x236 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x237, %x124 : tensor<4x!tile.ptr<i64>>
  // cmpf uno
  %x125 = arith.constant dense<[0x7FC00000, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %x126 = arith.constant dense<[1.0, 1.0, 1.0, 0x7FC00000]> : tensor<4xf32>
  %x127 = arith.cmpf uno, %x125, %x126 : tensor<4xf32>
  %x128 = arith.extui %x127 : tensor<4xi1> to tensor<4xi64>
  %x238 = arith.constant dense<16> : tensor<4xi32>
  %x239 = tile.addptr %i0, %x238 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x239, %x128 : tensor<4x!tile.ptr<i64>>
  // cmpf ord
  %x129 = arith.constant dense<[0x7FC00000, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %x130 = arith.constant dense<[1.0, 1.0, 1.0, 0x7FC00000]> : tensor<4xf32>
  %x131 = arith.cmpf ord, %x129, %x130 : tensor<4xf32>
  %x132 = arith.extui %x131 : tensor<4xi1> to tensor<4xi64>
  %x240 = arith.constant dense<20> : tensor<4xi32>
  %x241 = tile.addptr %i0, %x240 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x241, %x132 : tensor<4x!tile.ptr<i64>>
  // fptosi saturates, NaN -> 0
  %x133 = arith.constant dense<[10000000000.0, -10000000000.0, 0x7FC00000, -2.7]> : tensor<4xf32>
  %x134 = arith.fptosi %x133 : tensor<4xf32> to tensor<4xi32>
  %x135 = arith.extsi %x134 : tensor<4xi32> to tensor<4xi64>
  %x242 = arith.constant dense<24> : tensor<4xi32>
  %x243 = tile.addptr %i0, %x242 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x243, %x135 : tensor<4x!tile.ptr<i64>>
  // fptoui saturates, NaN -> 0
  %x137 = arith.constant dense<[-5.0, 3.9, 10000000000.0, 0x7FC00000]> : tensor<4xf32>
  %x138 = arith.fptoui %x137 : tensor<4xf32> to tensor<4xi32>
  %x139 = arith.extui %x138 : tensor<4xi32> to tensor<4xi64>
  %x244 = arith.constant dense<28> : tensor<4xi32>
  %x245 = tile.addptr %i0, %x244 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x245, %x139 : tensor<4x!tile.ptr<i64>>
  // bitcast f32 -> i32
  %x141 = arith.constant dense<[1.0, -0.0, 0x7F800000, 1.401298464324817e-45]> : tensor<4xf32>
  %x142 = arith.bitcast %x141 : tensor<4xf32> to tensor<4xi32>
  %x143 = arith.extsi %x142 : tensor<4xi32> to tensor<4xi64>
  %x246 = arith.constant dense<32> : tensor<4xi32>
  %x247 = tile.addptr %i0, %x246 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x247, %x143 : tensor<4x!tile.ptr<i64>>
  // bitcast f16 -> i16
  %x145 = arith.constant dense<[1.0, -2.0, 5.960464477539063e-08, 65504.0]> : tensor<4xf16>
  %x146 = arith.bitcast %x145 : tensor<4xf16> to tensor<4xi16>
  %x147 = arith.extui %x146 : tensor<4xi16> to tensor<4xi64>
  %x248 = arith.constant dense<36> : tensor<4xi32>
  %x249 = tile.addptr %i0, %x248 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x249, %x147 : tensor<4x!tile.ptr<i64>>
  // bitcast bf16 -> i16
  %x149 = arith.constant dense<[1.0, -2.0, 0.10009765625, 3.3895313892515355e+38]> : tensor<4xbf16>
  %x150 = arith.bitcast %x149 : tensor<4xbf16> to tensor<4xi16>
  %x151 = arith.extui %x150 : tensor<4xi16> to tensor<4xi64>
  %x250 = arith.constant dense<40> : tensor<4xi32>
  %x251 = tile.addptr %i0, %x250 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x251, %x151 : tensor<4x!tile.ptr<i64>>
  // math.isnan in the f16 format
  %x156 = arith.constant dense<[0x7E00, 0x7C00, 6.103515625e-05, 3.0517578125e-05]> : tensor<4xf16>
  %x157 = math.isnan %x156 : tensor<4xf16>
  %x158 = arith.extui %x157 : tensor<4xi1> to tensor<4xi64>
  %x252 = arith.constant dense<44> : tensor<4xi32>
  %x253 = tile.addptr %i0, %x252 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x253, %x158 : tensor<4x!tile.ptr<i64>>
  // math.isinf in the f16 format
  %x159 = arith.constant dense<[0x7E00, 0x7C00, 6.103515625e-05, 3.0517578125e-05]> : tensor<4xf16>
  %x160 = math.isinf %x159 : tensor<4xf16>
  %x161 = arith.extui %x160 : tensor<4xi1> to tensor<4xi64>
  %x254 = arith.constant dense<48> : tensor<4xi32>
  %x255 = tile.addptr %i0, %x254 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x255, %x161 : tensor<4x!tile.ptr<i64>>
  // math.isfinite in the f16 format
  %x162 = arith.constant dense<[0x7E00, 0x7C00, 6.103515625e-05, 3.0517578125e-05]> : tensor<4xf16>
  %x163 = math.isfinite %x162 : tensor<4xf16>
  %x164 = arith.extui %x163 : tensor<4xi1> to tensor<4xi64>
  %x256 = arith.constant dense<52> : tensor<4xi32>
  %x257 = tile.addptr %i0, %x256 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x257, %x164 : tensor<4x!tile.ptr<i64>>
  // math.isnormal in the f16 format
  %x165 = arith.constant dense<[0x7E00, 0x7C00, 6.103515625e-05, 3.0517578125e-05]> : tensor<4xf16>
  %x166 = math.isnormal %x165 : tensor<4xf16>
  %x167 = arith.extui %x166 : tensor<4xi1> to tensor<4xi64>
  %x258 = arith.constant dense<56> : tensor<4xi32>
  %x259 = tile.addptr %i0, %x258 : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %x259, %x167 : tensor<4x!tile.ptr<i64>>
  return
}
