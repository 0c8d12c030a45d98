// Matmul: C[M, N] = A[M, K] @ B[K, N] in f16 with f32 accumulation, row-major
// with leading dimensions lda, ldb, ldc. 64x64 tiles, 32-deep K steps; edges
// of any size are masked. Launch with grid = (ceil(M / 64), ceil(N / 64), 1).
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %c: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %M: i32, %N: i32, %K: i32,
                  %lda: i32, %ldb: i32, %ldc: i32) attributes {tile.kernel} {
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rk = tile.range 0, 32 : tensor<32xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<64xi32>
  %rm = arith.addi %r64, %m0s : tensor<64xi32>
  %n0s = tile.splat %n0 : i32 -> tensor<64xi32>
  %rn = arith.addi %r64, %n0s : tensor<64xi32>
  %Ms = tile.splat %M : i32 -> tensor<64xi32>
  %Ns = tile.splat %N : i32 -> tensor<64xi32>
  %Ks = tile.splat %K : i32 -> tensor<32xi32>
  %mmask = arith.cmpi slt, %rm, %Ms : tensor<64xi32>
  %nmask = arith.cmpi slt, %rn, %Ns : tensor<64xi32>
  // Row parts of the A and C offsets, column parts of B and C.
  %ldas = tile.splat %lda : i32 -> tensor<64xi32>
  %arow = arith.muli %rm, %ldas : tensor<64xi32>
  %arow2 = tile.expand_dims %arow {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %arowb = tile.broadcast %arow2 : tensor<64x1xi32> -> tensor<64x32xi32>
  %mm2 = tile.expand_dims %mmask {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
  %mmb = tile.broadcast %mm2 : tensor<64x1xi1> -> tensor<64x32xi1>
  %ldbs = tile.splat %ldb : i32 -> tensor<32xi32>
  %bcol2 = tile.expand_dims %rn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bcol2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %nm2 = tile.expand_dims %nmask {axis = 0 : i32} : tensor<64xi1> -> tensor<1x64xi1>
  %nmb = tile.broadcast %nm2 : tensor<1x64xi1> -> tensor<32x64xi1>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %za = arith.constant dense<0.0> : tensor<64x32xf16>
  %zb = arith.constant dense<0.0> : tensor<32x64xf16>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %acc0) -> (tensor<64x64xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<32xi32>
    %kk = arith.addi %ks, %rk : tensor<32xi32>
    %kmask = arith.cmpi slt, %kk, %Ks : tensor<32xi32>
    // A tile: rows rm, columns kk.
    %kc2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %kcb = tile.broadcast %kc2 : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %arowb, %kcb : tensor<64x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %kmc2 = tile.expand_dims %kmask {axis = 0 : i32} : tensor<32xi1> -> tensor<1x32xi1>
    %kmcb = tile.broadcast %kmc2 : tensor<1x32xi1> -> tensor<64x32xi1>
    %amask = arith.andi %mmb, %kmcb : tensor<64x32xi1>
    %at = tile.load %ap, %amask, %za : tensor<64x32x!tile.ptr<f16>>
    // B tile: rows kk, columns rn.
    %brow = arith.muli %kk, %ldbs : tensor<32xi32>
    %br2 = tile.expand_dims %brow {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %brb = tile.broadcast %br2 : tensor<32x1xi32> -> tensor<32x64xi32>
    %boff = arith.addi %brb, %bcolb : tensor<32x64xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %kmr2 = tile.expand_dims %kmask {axis = 1 : i32} : tensor<32xi1> -> tensor<32x1xi1>
    %kmrb = tile.broadcast %kmr2 : tensor<32x1xi1> -> tensor<32x64xi1>
    %bmask = arith.andi %kmrb, %nmb : tensor<32x64xi1>
    %bt = tile.load %bp, %bmask, %zb : tensor<32x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %c16 = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
  %ldcs = tile.splat %ldc : i32 -> tensor<64xi32>
  %crow = arith.muli %rm, %ldcs : tensor<64xi32>
  %cr2 = tile.expand_dims %crow {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %crb = tile.broadcast %cr2 : tensor<64x1xi32> -> tensor<64x64xi32>
  %cc2 = tile.expand_dims %rn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ccb = tile.broadcast %cc2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crb, %ccb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %cm1 = tile.expand_dims %mmask {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
  %cmb1 = tile.broadcast %cm1 : tensor<64x1xi1> -> tensor<64x64xi1>
  %cm2 = tile.expand_dims %nmask {axis = 0 : i32} : tensor<64xi1> -> tensor<1x64xi1>
  %cmb2 = tile.broadcast %cm2 : tensor<1x64xi1> -> tensor<64x64xi1>
  %cmask = arith.andi %cmb1, %cmb2 : tensor<64x64xi1>
  tile.store %cp, %c16, %cmask : tensor<64x64x!tile.ptr<f16>>
  return
}
