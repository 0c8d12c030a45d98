// quire-skip-unit-rescale computes what the loop computed as written:
// quire-run runs an online-softmax loop before and after the pass on the
// same seeded inputs and the outputs must be byte for byte the same. The
// first tile's scores are raised by 8, so it holds every row's maximum:
// its factors are 0 (the guard multiplies the accumulator, which starts
// at 1, by 0) and every later one is 1 (the guard skips): both sides of
// the branch.
// RUN: quire-opt %s --quire-skip-unit-rescale -o %t.skip.mlir
// RUN: FileCheck %s --input-file %t.skip.mlir
// RUN: quire-run %s --kernel online_softmax --grid 1 --arg rand:f32:1024:seed=3 --arg rand:f16:2048:seed=4 \
// RUN:   --arg out:%t.a.npy:f32:512 --arg i32:4
// RUN: quire-run %t.skip.mlir --kernel online_softmax --grid 1 --arg rand:f32:1024:seed=3 --arg rand:f16:2048:seed=4 \
// RUN:   --arg out:%t.b.npy:f32:512 --arg i32:4
// RUN: cmp %t.a.npy %t.b.npy
// CHECK: tile.warp_any
// CHECK: scf.if

func.func @online_softmax(%sp: !tile.ptr<f32>, %vp: !tile.ptr<f16>, %out: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c256 = arith.constant 256 : i32
  %c512 = arith.constant 512 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %c = tile.range 0, 32 : tensor<32xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c16v = arith.constant dense<16> : tensor<16x1xi32>
  %c32v = arith.constant dense<32> : tensor<16x1xi32>
  %rs = arith.muli %r2, %c16v : tensor<16x1xi32>
  %rv = arith.muli %r2, %c32v : tensor<16x1xi32>
  %cs = tile.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cv = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %rsb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x16xi32>
  %csb = tile.broadcast %cs : tensor<1x16xi32> -> tensor<16x16xi32>
  %soff = arith.addi %rsb, %csb : tensor<16x16xi32>
  %rvb = tile.broadcast %rv : tensor<16x1xi32> -> tensor<16x32xi32>
  %cvb = tile.broadcast %cv : tensor<1x32xi32> -> tensor<16x32xi32>
  %voff = arith.addi %rvb, %cvb : tensor<16x32xi32>
  %m0 = arith.constant dense<0xFF800000> : tensor<16xf32>
  %acc0 = arith.constant dense<1.0> : tensor<16x32xf32>
  %eight = arith.constant 8.0 : f32
  %zero = arith.constant 0.0 : f32
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%m = %m0, %acc = %acc0) -> (tensor<16xf32>, tensor<16x32xf32>) : i32 {
    %sbase = arith.muli %i, %c256 : i32
    %sb = tile.splat %sbase : i32 -> tensor<16x16xi32>
    %so = arith.addi %soff, %sb : tensor<16x16xi32>
    %sps = tile.splat %sp : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
    %sptr = tile.addptr %sps, %so : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
    %s0 = tile.load %sptr : tensor<16x16x!tile.ptr<f32>>
    %first = arith.cmpi eq, %i, %c0 : i32
    %lift = arith.select %first, %eight, %zero : f32
    %lifts = tile.splat %lift : f32 -> tensor<16x16xf32>
    %s = arith.addf %s0, %lifts : tensor<16x16xf32>
    %t = tile.reduce max %s {axis = 1 : i32} : tensor<16x16xf32> -> tensor<16xf32>
    %mn = arith.maximumf %m, %t : tensor<16xf32>
    %mn2 = tile.expand_dims %mn {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<16x1xf32> -> tensor<16x16xf32>
    %sd = arith.subf %s, %mnb : tensor<16x16xf32>
    %p = math.exp2 %sd : tensor<16x16xf32>
    %d = arith.subf %m, %mn : tensor<16xf32>
    %alpha = math.exp2 %d : tensor<16xf32>
    %e = tile.expand_dims %alpha {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %b = tile.broadcast %e : tensor<16x1xf32> -> tensor<16x32xf32>
    %scaled = arith.mulf %acc, %b : tensor<16x32xf32>
    %vbase = arith.muli %i, %c512 : i32
    %vb = tile.splat %vbase : i32 -> tensor<16x32xi32>
    %vo = arith.addi %voff, %vb : tensor<16x32xi32>
    %vps = tile.splat %vp : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
    %vptr = tile.addptr %vps, %vo : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %v = tile.load %vptr : tensor<16x32x!tile.ptr<f16>>
    %ph = arith.truncf %p : tensor<16x16xf32> to tensor<16x16xf16>
    %o = tile.dot %ph, %v, %scaled : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
    scf.yield %mn, %o : tensor<16xf32>, tensor<16x32xf32>
  }
  %ops = tile.splat %out : !tile.ptr<f32> -> tensor<16x32x!tile.ptr<f32>>
  %optr = tile.addptr %ops, %voff : tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi32>
  tile.store %optr, %res#1 : tensor<16x32x!tile.ptr<f32>>
  return
}
