// Two attention loops one after the other (the keys up to %n, then up to
// %n2, the second carrying the first's softmax state), as a kernel written
// with its masked tail in a loop of its own: overlap-softmax.mlir's JOIN.
func.func @two_loops_attention(%out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %v: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %n: i32, %n2: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.range 0, 128 : tensor<128xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %rs = arith.constant dense<64> : tensor<128x1xi32>
  %roff = arith.muli %r2, %rs : tensor<128x1xi32>
  %roffb = tile.broadcast %roff : tensor<128x1xi32> -> tensor<128x64xi32>
  %d = tile.range 0, 64 : tensor<64xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %dq = tile.broadcast %d2 : tensor<1x64xi32> -> tensor<128x64xi32>
  %qoffs = arith.addi %roffb, %dq : tensor<128x64xi32>
  %qp = tile.splat %q : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %qptrs = tile.addptr %qp, %qoffs : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  %qv = tile.load %qptrs : tensor<128x64x!tile.ptr<f16>>
  %j = tile.expand_dims %d {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %js = arith.constant dense<64> : tensor<64x1xi32>
  %joff = arith.muli %j, %js : tensor<64x1xi32>
  %joffb = tile.broadcast %joff : tensor<64x1xi32> -> tensor<64x64xi32>
  %dk = tile.broadcast %d2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %kvoffs = arith.addi %joffb, %dk : tensor<64x64xi32>
  %zero_s = arith.constant dense<0.0> : tensor<128x64xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l0 = arith.constant dense<0.0> : tensor<128xf32>
  %res:3 = scf.for %start = %c0 to %n step %c64
      iter_args(%m = %m0, %l = %l0, %acc = %zero_s)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) : i32 {
    %off = arith.muli %start, %c64 : i32
    %kat = tile.addptr %k, %off : !tile.ptr<f16>, i32
    %kp = tile.splat %kat : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
    %kptrs = tile.addptr %kp, %kvoffs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %kt0 = tile.load %kptrs : tensor<64x64x!tile.ptr<f16>>
    %kt = tile.trans %kt0 : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.dot %qv, %kt, %zero_s : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
    %tmax = tile.reduce max %s {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m, %tmax : tensor<128xf32>
    %mn2 = tile.expand_dims %mn {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %sd = arith.subf %s, %mnb : tensor<128x64xf32>
    %p = math.exp2 %sd : tensor<128x64xf32>
    %md = arith.subf %m, %mn : tensor<128xf32>
    %alpha = math.exp2 %md : tensor<128xf32>
    %psum = tile.reduce sum %p {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
    %la = arith.mulf %l, %alpha : tensor<128xf32>
    %ln = arith.addf %la, %psum : tensor<128xf32>
    %vat = tile.addptr %v, %off : !tile.ptr<f16>, i32
    %vp = tile.splat %vat : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
    %vptrs = tile.addptr %vp, %kvoffs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %vv = tile.load %vptrs : tensor<64x64x!tile.ptr<f16>>
    %pc = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %a2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tile.broadcast %a2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %accs = arith.mulf %acc, %ab : tensor<128x64xf32>
    %accn = tile.dot %pc, %vv, %accs : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
    scf.yield %mn, %ln, %accn : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  }
  %res2:3 = scf.for %start = %n to %n2 step %c64
      iter_args(%m = %res#0, %l = %res#1, %acc = %res#2)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) : i32 {
    %off = arith.muli %start, %c64 : i32
    %kat = tile.addptr %k, %off : !tile.ptr<f16>, i32
    %kp = tile.splat %kat : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
    %kptrs = tile.addptr %kp, %kvoffs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %kt0 = tile.load %kptrs : tensor<64x64x!tile.ptr<f16>>
    %kt = tile.trans %kt0 : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.dot %qv, %kt, %zero_s : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
    %tmax = tile.reduce max %s {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m, %tmax : tensor<128xf32>
    %mn2 = tile.expand_dims %mn {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %sd = arith.subf %s, %mnb : tensor<128x64xf32>
    %p = math.exp2 %sd : tensor<128x64xf32>
    %md = arith.subf %m, %mn : tensor<128xf32>
    %alpha = math.exp2 %md : tensor<128xf32>
    %psum = tile.reduce sum %p {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
    %la = arith.mulf %l, %alpha : tensor<128xf32>
    %ln = arith.addf %la, %psum : tensor<128xf32>
    %vat = tile.addptr %v, %off : !tile.ptr<f16>, i32
    %vp = tile.splat %vat : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
    %vptrs = tile.addptr %vp, %kvoffs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %vv = tile.load %vptrs : tensor<64x64x!tile.ptr<f16>>
    %pc = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %a2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tile.broadcast %a2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %accs = arith.mulf %acc, %ab : tensor<128x64xf32>
    %accn = tile.dot %pc, %vv, %accs : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
    scf.yield %mn, %ln, %accn : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  }
  %l2 = tile.expand_dims %res2#1 {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l2 : tensor<128x1xf32> -> tensor<128x64xf32>
  %o = arith.divf %res2#2, %lb : tensor<128x64xf32>
  %oc = arith.truncf %o : tensor<128x64xf32> to tensor<128x64xf16>
  %op = tile.splat %out : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %optrs = tile.addptr %op, %qoffs : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  tile.store %optrs, %oc : tensor<128x64x!tile.ptr<f16>>
  return
}
