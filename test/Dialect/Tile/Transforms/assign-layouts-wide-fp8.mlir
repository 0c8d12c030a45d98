// RUN: quire-opt %s --split-input-file "--quire-assign-layouts=num-warps=1" | FileCheck %s
// RUN: quire-opt %s --split-input-file "--quire-assign-layouts=num-warps=1 wide-fp8-operands=false" | FileCheck %s --check-prefix=PLAIN
// RUN: quirec --sm 90 --num-warps 1 --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ quirec --sm 90 --num-warps 1 --emit=ptx %s -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o /dev/null %}
// RUN: quirec --sm 90 --num-warps 1 --wide-fp8-operands=false --emit=ptx %s -o - | FileCheck %s --check-prefix=NARROW
// A dot whose operand is an fp8 tile loaded in the loop (staged as bytes by
// quire-async-copies) gets a #tile.mma whose lanes hold consecutive bytes of
// that operand along its loaded tile's contiguous dimension: K (kWidth) for
// K of Q K^T, whichever operand K is; N (nWidth) for V of P V; M (mWidth)
// for V^T of V^T P^T (the decode kernels' transposed form). The staged
// operands are then read with 16- and 8-byte ld.shared, and the bytes of
// two rows paired for cvt by one prmt per four. The first dot's
// accumulator is not renumbered (kWidth), so P feeds the next dot without
// moving (in the transposed form P^T is B and moves through shared memory,
// as it does without the renumbering).

// CHECK-LABEL: func.func @wide_rows
// CHECK:         tile.dot {{.*}} -> tensor<16x32xf32, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 16}>>
// CHECK:         tile.dot {{.*}} -> tensor<16x64xf32, #tile.mma<{warpsPerCTA = [1, 1], nWidth = 8}>>
// PLAIN-LABEL: func.func @wide_rows
// PLAIN:         tile.dot {{.*}} -> tensor<16x32xf32, #tile.mma<{warpsPerCTA = [1, 1]}>>
// PLAIN:         tile.dot {{.*}} -> tensor<16x64xf32, #tile.mma<{warpsPerCTA = [1, 1]}>>
// PTX-LABEL:   .entry wide_rows(
// PTX:         $L__BB0_2:
// PTX-NOT:     {{ld|st}}.shared.{{[bu]}}{{8|16}}
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-NOT:     {{ld|st}}.shared
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT:     {{ld|st}}.shared
// PTX-COUNT-8: ld.shared.v2.b32
// PTX-NOT:     {{ld|st}}.shared
// PTX-COUNT-16: prmt.b32
// PTX-NOT:     {{ld|st}}.shared
// PTX:         bra {{.*}}$L__BB0_2;
// NARROW-LABEL: .entry wide_rows(
// NARROW:       $L__BB0_2:
// NARROW:       ld.shared.{{[bu]}}8
// NARROW:       bra {{.*}}$L__BB0_2;

func.func @wide_rows(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
    %v: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
    %o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %qo_r = tile.range 0, 16 : tensor<16xi32>
  %qo_c = tile.range 0, 64 : tensor<64xi32>
  %qo_r2 = tile.expand_dims %qo_r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %qo_s = arith.constant dense<64> : tensor<16x1xi32>
  %qo_rs = arith.muli %qo_r2, %qo_s : tensor<16x1xi32>
  %qo_rb = tile.broadcast %qo_rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %qo_c2 = tile.expand_dims %qo_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %qo_cb = tile.broadcast %qo_c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %qo = arith.addi %qo_rb, %qo_cb : tensor<16x64xi32>
  %qs = tile.splat %q : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %qo : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %qt = tile.load %qp : tensor<16x64x!tile.ptr<f16>>
  %kvo_r = tile.range 0, 32 : tensor<32xi32>
  %kvo_c = tile.range 0, 64 : tensor<64xi32>
  %kvo_r2 = tile.expand_dims %kvo_r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %kvo_s = arith.constant dense<64> : tensor<32x1xi32>
  %kvo_rs = arith.muli %kvo_r2, %kvo_s : tensor<32x1xi32>
  %kvo_rb = tile.broadcast %kvo_rs : tensor<32x1xi32> -> tensor<32x64xi32>
  %kvo_c2 = tile.expand_dims %kvo_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %kvo_cb = tile.broadcast %kvo_c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %kvo = arith.addi %kvo_rb, %kvo_cb : tensor<32x64xi32>
  %ks = tile.splat %k : !tile.ptr<f8E4M3FN> -> tensor<32x64x!tile.ptr<f8E4M3FN>>
  %vs = tile.splat %v : !tile.ptr<f8E4M3FN> -> tensor<32x64x!tile.ptr<f8E4M3FN>>
  %zs = arith.constant dense<0.0> : tensor<16x32xf32>
  %zo = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %zo) -> (tensor<16x64xf32>) : i32 {
    %row = arith.muli %i, %c64 : i32
    %rows = tile.splat %row : i32 -> tensor<32x64xi32>
    %off = arith.addi %kvo, %rows : tensor<32x64xi32>
    %kp = tile.addptr %ks, %off : tensor<32x64x!tile.ptr<f8E4M3FN>>, tensor<32x64xi32>
    %k8 = tile.load %kp : tensor<32x64x!tile.ptr<f8E4M3FN>>
    %vp = tile.addptr %vs, %off : tensor<32x64x!tile.ptr<f8E4M3FN>>, tensor<32x64xi32>
    %v8 = tile.load %vp : tensor<32x64x!tile.ptr<f8E4M3FN>>
    %kt = tile.trans %k8 : tensor<32x64xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
    %kf = arith.extf %kt : tensor<64x32xf8E4M3FN> to tensor<64x32xf16>
    %s = tile.dot %qt, %kf, %zs : tensor<16x64xf16> * tensor<64x32xf16> -> tensor<16x32xf32>
    %p = arith.truncf %s : tensor<16x32xf32> to tensor<16x32xf16>
    %vf = arith.extf %v8 : tensor<32x64xf8E4M3FN> to tensor<32x64xf16>
    %d = tile.dot %p, %vf, %acc : tensor<16x32xf16> * tensor<32x64xf16> -> tensor<16x64xf32>
    scf.yield %d : tensor<16x64xf32>
  }
  %oo_r = tile.range 0, 16 : tensor<16xi32>
  %oo_c = tile.range 0, 64 : tensor<64xi32>
  %oo_r2 = tile.expand_dims %oo_r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %oo_s = arith.constant dense<64> : tensor<16x1xi32>
  %oo_rs = arith.muli %oo_r2, %oo_s : tensor<16x1xi32>
  %oo_rb = tile.broadcast %oo_rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %oo_c2 = tile.expand_dims %oo_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %oo_cb = tile.broadcast %oo_c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %oo = arith.addi %oo_rb, %oo_cb : tensor<16x64xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %oo : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  tile.store %op, %acc : tensor<16x64x!tile.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: func.func @wide_cols
// CHECK:         tile.dot {{.*}} -> tensor<32x16xf32, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 16}>>
// CHECK:         tile.dot {{.*}} -> tensor<64x16xf32, #tile.mma<{warpsPerCTA = [1, 1], mWidth = 8}>>
// PLAIN-LABEL: func.func @wide_cols
// PLAIN:         tile.dot {{.*}} -> tensor<32x16xf32, #tile.mma<{warpsPerCTA = [1, 1]}>>
// PLAIN:         tile.dot {{.*}} -> tensor<64x16xf32, #tile.mma<{warpsPerCTA = [1, 1]}>>
// PTX-LABEL:   .entry wide_cols(
// PTX:         $L__BB1_2:
// PTX-NOT:     {{ld|st}}.shared.{{[bu]}}8
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-NOT:     {{ld|st}}.shared.{{[bu]}}8
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT:     {{ld|st}}.shared.{{[bu]}}8
// PTX-COUNT-8: ld.shared.v2.b32
// PTX-NOT:     {{ld|st}}.shared.{{[bu]}}8
// PTX:         bra {{.*}}$L__BB1_2;

func.func @wide_cols(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
    %v: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
    %o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %qo_r = tile.range 0, 16 : tensor<16xi32>
  %qo_c = tile.range 0, 64 : tensor<64xi32>
  %qo_r2 = tile.expand_dims %qo_r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %qo_s = arith.constant dense<64> : tensor<16x1xi32>
  %qo_rs = arith.muli %qo_r2, %qo_s : tensor<16x1xi32>
  %qo_rb = tile.broadcast %qo_rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %qo_c2 = tile.expand_dims %qo_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %qo_cb = tile.broadcast %qo_c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %qo = arith.addi %qo_rb, %qo_cb : tensor<16x64xi32>
  %qs = tile.splat %q : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %qo : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %qt = tile.load %qp : tensor<16x64x!tile.ptr<f16>>
  %kvo_r = tile.range 0, 32 : tensor<32xi32>
  %kvo_c = tile.range 0, 64 : tensor<64xi32>
  %kvo_r2 = tile.expand_dims %kvo_r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %kvo_s = arith.constant dense<64> : tensor<32x1xi32>
  %kvo_rs = arith.muli %kvo_r2, %kvo_s : tensor<32x1xi32>
  %kvo_rb = tile.broadcast %kvo_rs : tensor<32x1xi32> -> tensor<32x64xi32>
  %kvo_c2 = tile.expand_dims %kvo_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %kvo_cb = tile.broadcast %kvo_c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %kvo = arith.addi %kvo_rb, %kvo_cb : tensor<32x64xi32>
  %ks = tile.splat %k : !tile.ptr<f8E4M3FN> -> tensor<32x64x!tile.ptr<f8E4M3FN>>
  %vs = tile.splat %v : !tile.ptr<f8E4M3FN> -> tensor<32x64x!tile.ptr<f8E4M3FN>>
  %qtt = tile.trans %qt : tensor<16x64xf16> -> tensor<64x16xf16>
  %zs = arith.constant dense<0.0> : tensor<32x16xf32>
  %zo = arith.constant dense<0.0> : tensor<64x16xf32>
  %acc = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %zo) -> (tensor<64x16xf32>) : i32 {
    %row = arith.muli %i, %c64 : i32
    %rows = tile.splat %row : i32 -> tensor<32x64xi32>
    %off = arith.addi %kvo, %rows : tensor<32x64xi32>
    %kp = tile.addptr %ks, %off : tensor<32x64x!tile.ptr<f8E4M3FN>>, tensor<32x64xi32>
    %k8 = tile.load %kp : tensor<32x64x!tile.ptr<f8E4M3FN>>
    %vp = tile.addptr %vs, %off : tensor<32x64x!tile.ptr<f8E4M3FN>>, tensor<32x64xi32>
    %v8 = tile.load %vp : tensor<32x64x!tile.ptr<f8E4M3FN>>
    %kf = arith.extf %k8 : tensor<32x64xf8E4M3FN> to tensor<32x64xf16>
    %s = tile.dot %kf, %qtt, %zs : tensor<32x64xf16> * tensor<64x16xf16> -> tensor<32x16xf32>
    %p = arith.truncf %s : tensor<32x16xf32> to tensor<32x16xf16>
    %vt = tile.trans %v8 : tensor<32x64xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
    %vf = arith.extf %vt : tensor<64x32xf8E4M3FN> to tensor<64x32xf16>
    %d = tile.dot %vf, %p, %acc : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x16xf32>
    scf.yield %d : tensor<64x16xf32>
  }
  %oo_r = tile.range 0, 64 : tensor<64xi32>
  %oo_c = tile.range 0, 16 : tensor<16xi32>
  %oo_r2 = tile.expand_dims %oo_r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %oo_s = arith.constant dense<16> : tensor<64x1xi32>
  %oo_rs = arith.muli %oo_r2, %oo_s : tensor<64x1xi32>
  %oo_rb = tile.broadcast %oo_rs : tensor<64x1xi32> -> tensor<64x16xi32>
  %oo_c2 = tile.expand_dims %oo_c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %oo_cb = tile.broadcast %oo_c2 : tensor<1x16xi32> -> tensor<64x16xi32>
  %oo = arith.addi %oo_rb, %oo_cb : tensor<64x16xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x16x!tile.ptr<f32>>
  %op = tile.addptr %os, %oo : tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>
  tile.store %op, %acc : tensor<64x16x!tile.ptr<f32>>
  return
}

// -----

// Two dots sharing one accumulator share its layout, chosen by the first
// (kWidth 16 for its K of 64); the second, with K = 32 and plain operands,
// takes its own kWidth, which renumbers only operands: both run mma.sync.
// CHECK-LABEL: func.func @shared_acc
// CHECK:         tile.dot {{.*}} -> tensor<16x64xf32, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 16}>>
// CHECK:         tile.dot {{.*}} -> tensor<16x64xf32, #tile.mma<{warpsPerCTA = [1, 1]}>>
// PTX-LABEL:   .entry shared_acc(
// PTX-COUNT-48: mma.sync.aligned.m16n8k16
// PTX-NOT:     mma.sync
// PTX:         ret;

func.func @shared_acc(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %k: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
    %x: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %qo_r = tile.range 0, 16 : tensor<16xi32>
  %qo_c = tile.range 0, 64 : tensor<64xi32>
  %qo_r2 = tile.expand_dims %qo_r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %qo_s = arith.constant dense<64> : tensor<16x1xi32>
  %qo_rs = arith.muli %qo_r2, %qo_s : tensor<16x1xi32>
  %qo_rb = tile.broadcast %qo_rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %qo_c2 = tile.expand_dims %qo_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %qo_cb = tile.broadcast %qo_c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %qo = arith.addi %qo_rb, %qo_cb : tensor<16x64xi32>
  %qs = tile.splat %q : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %qo : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %qt = tile.load %qp : tensor<16x64x!tile.ptr<f16>>
  %ko_r = tile.range 0, 64 : tensor<64xi32>
  %ko_c = tile.range 0, 64 : tensor<64xi32>
  %ko_r2 = tile.expand_dims %ko_r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ko_s = arith.constant dense<64> : tensor<64x1xi32>
  %ko_rs = arith.muli %ko_r2, %ko_s : tensor<64x1xi32>
  %ko_rb = tile.broadcast %ko_rs : tensor<64x1xi32> -> tensor<64x64xi32>
  %ko_c2 = tile.expand_dims %ko_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ko_cb = tile.broadcast %ko_c2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %ko = arith.addi %ko_rb, %ko_cb : tensor<64x64xi32>
  %xo_r = tile.range 0, 16 : tensor<16xi32>
  %xo_c = tile.range 0, 32 : tensor<32xi32>
  %xo_r2 = tile.expand_dims %xo_r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %xo_s = arith.constant dense<32> : tensor<16x1xi32>
  %xo_rs = arith.muli %xo_r2, %xo_s : tensor<16x1xi32>
  %xo_rb = tile.broadcast %xo_rs : tensor<16x1xi32> -> tensor<16x32xi32>
  %xo_c2 = tile.expand_dims %xo_c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %xo_cb = tile.broadcast %xo_c2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %xo = arith.addi %xo_rb, %xo_cb : tensor<16x32xi32>
  %yo_r = tile.range 0, 32 : tensor<32xi32>
  %yo_c = tile.range 0, 64 : tensor<64xi32>
  %yo_r2 = tile.expand_dims %yo_r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %yo_s = arith.constant dense<64> : tensor<32x1xi32>
  %yo_rs = arith.muli %yo_r2, %yo_s : tensor<32x1xi32>
  %yo_rb = tile.broadcast %yo_rs : tensor<32x1xi32> -> tensor<32x64xi32>
  %yo_c2 = tile.expand_dims %yo_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %yo_cb = tile.broadcast %yo_c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %yo = arith.addi %yo_rb, %yo_cb : tensor<32x64xi32>
  %ks = tile.splat %k : !tile.ptr<f8E4M3FN> -> tensor<64x64x!tile.ptr<f8E4M3FN>>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %ys = tile.splat %x : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %zo = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %zo) -> (tensor<16x64xf32>) : i32 {
    %row = arith.muli %i, %c64 : i32
    %krows = tile.splat %row : i32 -> tensor<64x64xi32>
    %koff = arith.addi %ko, %krows : tensor<64x64xi32>
    %kp = tile.addptr %ks, %koff : tensor<64x64x!tile.ptr<f8E4M3FN>>, tensor<64x64xi32>
    %k8 = tile.load %kp : tensor<64x64x!tile.ptr<f8E4M3FN>>
    %kt = tile.trans %k8 : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %kf = arith.extf %kt : tensor<64x64xf8E4M3FN> to tensor<64x64xf16>
    %xrows = tile.splat %i : i32 -> tensor<16x32xi32>
    %xoff = arith.addi %xo, %xrows : tensor<16x32xi32>
    %xp = tile.addptr %xs, %xoff : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %xv = tile.load %xp : tensor<16x32x!tile.ptr<f16>>
    %yrows = tile.splat %row : i32 -> tensor<32x64xi32>
    %yoff = arith.addi %yo, %yrows : tensor<32x64xi32>
    %yp = tile.addptr %ys, %yoff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %yv = tile.load %yp : tensor<32x64x!tile.ptr<f16>>
    %d1 = tile.dot %qt, %kf, %acc : tensor<16x64xf16> * tensor<64x64xf16> -> tensor<16x64xf32>
    %d2 = tile.dot %xv, %yv, %d1 : tensor<16x32xf16> * tensor<32x64xf16> -> tensor<16x64xf32>
    scf.yield %d2 : tensor<16x64xf32>
  }
  %oo_r = tile.range 0, 16 : tensor<16xi32>
  %oo_c = tile.range 0, 64 : tensor<64xi32>
  %oo_r2 = tile.expand_dims %oo_r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %oo_s = arith.constant dense<64> : tensor<16x1xi32>
  %oo_rs = arith.muli %oo_r2, %oo_s : tensor<16x1xi32>
  %oo_rb = tile.broadcast %oo_rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %oo_c2 = tile.expand_dims %oo_c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %oo_cb = tile.broadcast %oo_c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %oo = arith.addi %oo_rb, %oo_cb : tensor<16x64xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %oo : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  tile.store %op, %acc : tensor<16x64x!tile.ptr<f32>>
  return
}
