// The seed's scratch-buffer kernel (test/Dialect/Tile/Transforms/
// forward-stores.mlir, with 16-divisible strides) in PTX: with
// quire-forward-stores the K tile is read through register offsets with
// 16-byte loads and no barrier; as written (--forward-stores=false), the
// offsets go through the scratch buffer, a bar.sync, a reload and 2-byte
// loads.
// RUN: quirec %s --sm 90 | FileCheck %s --implicit-check-not=bar.sync --implicit-check-not=ld.global.b64 --implicit-check-not=ld.global.b16
// RUN: quirec %s --sm 90 --forward-stores=false | FileCheck %s --check-prefix=SCRATCH
// CHECK-LABEL: .entry seed_scratch_offsets(
// CHECK-DAG:   st.global.b64
// CHECK-DAG:   ld.global.v4.b32
// SCRATCH-LABEL: .entry seed_scratch_offsets(
// SCRATCH:       st.global.b64
// SCRATCH:       bar.sync 0;
// SCRATCH:       ld.global.b64
// SCRATCH:       ld.global.b16
func.func @seed_scratch_offsets(%k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                %bt: !tile.ptr<i32>, %scratch: !tile.ptr<i64>,
                                %out: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %len: i32, %s0: i32 {tile.divisibility = 16 : i32},
                                %s1: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %pid = tile.program_id x
  %slot0 = arith.muli %pid, %c32 : i32
  %mine = tile.addptr %scratch, %slot0 : !tile.ptr<i64>, i32
  %lane8 = tile.range 0, 8 : tensor<8xi32>
  %lens8 = tile.splat %len : i32 -> tensor<8xi32>
  %s1v = tile.splat %s1 : i32 -> tensor<8xi32>
  %s0w = arith.extsi %s0 : i32 to i64
  %d = tile.range 0, 16 : tensor<16xi32>
  %d2 = tile.expand_dims %d {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %dw = arith.extsi %d2 : tensor<1x16xi32> to tensor<1x16xi64>
  %db = tile.broadcast %dw : tensor<1x16xi64> -> tensor<32x16xi64>
  scf.for %start = %c0 to %len step %c32 : i32 {
    scf.for %p = %c0 to %c4 step %c1 : i32 {
      %pg0 = arith.divsi %start, %c8 : i32
      %page = arith.addi %pg0, %p : i32
      %first = arith.muli %page, %c8 : i32
      %inseq = arith.cmpi slt, %first, %len : i32
      %btp = tile.addptr %bt, %page : !tile.ptr<i32>, i32
      %e = tile.load %btp, %inseq, %c0 : !tile.ptr<i32>
      %ew = arith.extsi %e : i32 to i64
      %row0 = arith.muli %ew, %s0w : i64
      %rows0 = tile.splat %row0 : i64 -> tensor<8xi64>
      %slot = arith.muli %lane8, %s1v : tensor<8xi32>
      %slotw = arith.extsi %slot : tensor<8xi32> to tensor<8xi64>
      %off = arith.addi %rows0, %slotw : tensor<8xi64>
      %firsts = tile.splat %first : i32 -> tensor<8xi32>
      %tok = arith.addi %firsts, %lane8 : tensor<8xi32>
      %m = arith.cmpi slt, %tok, %lens8 : tensor<8xi32>
      %pofs = arith.muli %p, %c8 : i32
      %dst0 = tile.addptr %mine, %pofs : !tile.ptr<i64>, i32
      %dsts = tile.splat %dst0 : !tile.ptr<i64> -> tensor<8x!tile.ptr<i64>>
      %dst = tile.addptr %dsts, %lane8 : tensor<8x!tile.ptr<i64>>, tensor<8xi32>
      tile.store %dst, %off, %m : tensor<8x!tile.ptr<i64>>
    }
    tile.barrier
    %lane = tile.range 0, 32 : tensor<32xi32>
    %starts = tile.splat %start : i32 -> tensor<32xi32>
    %toks = arith.addi %starts, %lane : tensor<32xi32>
    %lens = tile.splat %len : i32 -> tensor<32xi32>
    %tm = arith.cmpi slt, %toks, %lens : tensor<32xi32>
    %srcs = tile.splat %mine : !tile.ptr<i64> -> tensor<32x!tile.ptr<i64>>
    %src = tile.addptr %srcs, %lane : tensor<32x!tile.ptr<i64>>, tensor<32xi32>
    %zero = arith.constant dense<0> : tensor<32xi64>
    %rows = tile.load %src, %tm, %zero : tensor<32x!tile.ptr<i64>>
    %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<32xi64> -> tensor<32x1xi64>
    %rb = tile.broadcast %r2 : tensor<32x1xi64> -> tensor<32x16xi64>
    %koff = arith.addi %rb, %db : tensor<32x16xi64>
    %ks = tile.splat %k : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
    %kp = tile.addptr %ks, %koff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi64>
    %tm2 = tile.expand_dims %tm {axis = 1 : i32} : tensor<32xi1> -> tensor<32x1xi1>
    %tmb = tile.broadcast %tm2 : tensor<32x1xi1> -> tensor<32x16xi1>
    %fz = arith.constant dense<0.0> : tensor<32x16xf16>
    %kt = tile.load %kp, %tmb, %fz : tensor<32x16x!tile.ptr<f16>>
    // out[tok, :] = the tile
    %t2 = tile.expand_dims %toks {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %c16t = arith.constant dense<16> : tensor<32x1xi32>
    %orow = arith.muli %t2, %c16t : tensor<32x1xi32>
    %orb = tile.broadcast %orow : tensor<32x1xi32> -> tensor<32x16xi32>
    %d2b = tile.broadcast %d2 : tensor<1x16xi32> -> tensor<32x16xi32>
    %ooff = arith.addi %orb, %d2b : tensor<32x16xi32>
    %os = tile.splat %out : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
    %op = tile.addptr %os, %ooff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
    tile.store %op, %kt, %tmb : tensor<32x16x!tile.ptr<f16>>
  }
  return
}
