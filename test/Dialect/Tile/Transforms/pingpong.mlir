// quire-pingpong on an attention loop of two warpgroups (128 query rows, 8
// warps, sm_90 wgmma, 3 stages): quire-async-copies stages it S - 2 = 1
// iteration ahead (the loop-top wait leaves nothing pending, one copy
// iteration ahead in the prologue), and the loop splits on the warpgroup:
// warpgroup 0 runs it as it was; warpgroup 1 runs the first iteration's
// wait, copies and scores if the loop runs at all, then the other
// iterations rotated, carrying the scores and their stage: after the wait
// and the copies, the iteration before's softmax, its P V and this
// iteration's scores issued together (two async wgmma groups, one wait);
// after its loop the last iteration's second half.
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 pingpong=true" | FileCheck %s
// Off by default; with 2 stages, 4 warps (one warpgroup), a loop that
// reduces across warps (through shared memory and barriers, which one
// warpgroup alone would wait at forever) or one whose other values read
// the carried m, l or acc (which the rotated loop has one iteration late)
// nothing splits; the last two keep the S - 2 schedule.
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=2 pingpong=true" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3 pingpong=true" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %S/Inputs/pingpong-cross-warp.mlir "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 pingpong=true" | FileCheck %s --check-prefix=CROSS
// RUN: quire-opt %S/Inputs/pingpong-stale-carry.mlir "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 pingpong=true" | FileCheck %s --check-prefix=CROSS
// In the PTX, the warpgroup index is read from lane 0 (uniform in a warp);
// one barrier a loop in each branch, `barrier.sync` (not bar.sync, which
// is aligned: every thread at the same instruction); ptxas assembles it
// without serializing a wgmma (C7515) or waiting early for one (C7517).
// RUN: quirec %s --sm 90 --num-warps 8 --async-stages=3 --pingpong -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=SHFL < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}

// CHECK-LABEL: func.func @attention
// CHECK:       tile.local_store %{{.*}} into stage %[[Q:[^ ]*]] {buffer = [[QB:[0-9]+]] : i32, contig = 1 : i32, nvmma, stages = 1 : i32}
// CHECK:       %[[RUNS:.*]] = arith.cmpi sgt, %arg4, %c0_i32
// CHECK-COUNT-2: tile.async_copy {{.*}} into stage %c0_i32
// CHECK:       %[[WG:.*]] = tile.warpgroup_id
// CHECK:       %[[FIRST:.*]] = arith.cmpi eq, %[[WG]], %c0_i32
// CHECK:       scf.if %[[FIRST]]
// CHECK-NEXT:    scf.for {{.*}} iter_args(%{{[^ ]*}} = %{{[^ ]*}}, %{{[^ ]*}} = %{{[^ ]*}}, %{{[^ ]*}} = %{{[^ ]*}}, %[[STAGE0:[^ ]*]] = %c0_i32)
// CHECK-NEXT:      tile.async_wait {async_proxy, pending = 0 : i32, unaligned}
// CHECK-COUNT-2:   tile.async_copy
// CHECK:           tile.warpgroup_dot a_stage %[[Q]] b_stage %[[STAGE0]] acc %{{.*}} {a_buffer = [[QB]] : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0 : i32
// CHECK:           tile.reduce max
// CHECK:           tile.warpgroup_dot a({{.*}}) b_stage %[[STAGE0]] acc %{{.*}} {b_buffer = 1 : i32
// CHECK-NEXT:      scf.yield
// CHECK:       } else {
// CHECK:         %[[PRO:.*]] = scf.if %[[RUNS]]
// CHECK-NEXT:      tile.async_wait {async_proxy, pending = 0 : i32, unaligned}
// CHECK-COUNT-2:   tile.async_copy {{.*}} into stage %c1_i32
// CHECK:           %[[S0:.*]] = tile.warpgroup_dot a_stage %[[Q]] b_stage %c0_i32 acc %{{.*}} {a_buffer = [[QB]] : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0 : i32
// CHECK-NEXT:      scf.yield %[[S0]] :
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %cst
// CHECK-NEXT:    {{^ *}}}{{$}}
// CHECK-NEXT:    %[[R:.*]]:6 = scf.for %{{.*}} = %c64_i32 to {{.*}} iter_args(%[[M:[^ ]*]] = %{{[^ ]*}}, %[[L:[^ ]*]] = %{{[^ ]*}}, %[[ACC:[^ ]*]] = %{{[^ ]*}}, %[[STAGE:[^ ]*]] = %{{[^ ]*}}, %[[SP:[^ ]*]] = %[[PRO]], %[[STP:[^ ]*]] = %c0_i32)
// CHECK-NEXT:      tile.async_wait {async_proxy, pending = 0 : i32, unaligned}
// CHECK-COUNT-2:   tile.async_copy
// CHECK:           tile.reduce max %[[SP]] {axis = 1 : i32}
// CHECK:           %[[PV:.*]] = tile.warpgroup_dot a({{.*}}) b_stage %[[STP]] acc %{{.*}} {async, b_buffer = 1 : i32
// CHECK-NEXT:      %[[S:.*]] = tile.warpgroup_dot a_stage %[[Q]] b_stage %[[STAGE]] acc %{{.*}} {a_buffer = [[QB]] : i32, a_contig = 1 : i32, a_stages = 1 : i32, async, b_buffer = 0 : i32
// CHECK-NEXT:      %[[W:.*]]:2 = tile.warpgroup_wait %[[PV]], %[[S]] {pending = 0 : i32}
// CHECK-NEXT:      scf.yield %{{[^ ]*}}, %{{[^ ]*}}, %[[W]]#0, %{{[^ ]*}}, %[[W]]#1, %[[STAGE]] :
// CHECK:         scf.if %[[RUNS]]
// CHECK-NEXT:      tile.reduce max %[[R]]#4 {axis = 1 : i32}
// CHECK:           tile.warpgroup_dot a({{.*}}) b_stage %[[R]]#5 acc %{{.*}} {b_buffer = 1 : i32
// CHECK:       tile.async_wait {pending = 0 : i32}

// OFF-LABEL: func.func @attention
// OFF-NOT:   tile.warpgroup_id

// CROSS-LABEL: func.func @attention
// CROSS-NOT:   tile.warpgroup_id
// CROSS:       scf.for
// CROSS-NEXT:    tile.async_wait {async_proxy, pending = 0 : i32}
// CROSS-NOT:   tile.warpgroup_id
// CROSS-NOT:   unaligned

// Barriers: before the loops (the query's store into shared memory), one
// in each loop and one in warpgroup 1's first iteration, the one after
// them.
// PTX-LABEL: .entry attention(
// PTX:       bar.sync 0;
// PTX:       barrier.sync 0;
// PTX:       barrier.sync 0;
// PTX:       barrier.sync 0;
// PTX:       bar.sync 0;
// PTX-NOT:   bar

// SHFL:      shfl.sync.idx.b32 %{{.*}}, 0, 31, -1;

// PTXAS-NOT: C75
func.func @attention(%out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %v: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %n: i32) attributes {tile.kernel} {
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
  %l2 = tile.expand_dims %res#1 {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l2 : tensor<128x1xf32> -> tensor<128x64xf32>
  %o = arith.divf %res#2, %lb : tensor<128x64xf32>
  %oc = arith.truncf %o : tensor<128x64xf32> to tensor<128x64xf16>
  %op = tile.splat %out : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %optrs = tile.addptr %op, %qoffs : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  tile.store %optrs, %oc : tensor<128x64x!tile.ptr<f16>>
  return
}
