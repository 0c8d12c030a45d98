// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// tile.dot on the FMA units (DotOpToLLVM/FMA.cpp). The general lowering
// (FmaDotLowering) takes any layouts: A is staged row-major and B
// column-major in shared memory (rows padded by 16 bytes), then each thread
// reads 16-byte vectors along K for its rows and columns and accumulates
// with f32 FMAs. Operands in the register-dot layouts of a small-M dot
// (RegisterDotLowering) multiply in registers: FMAs over the K a thread
// holds, shuffles over the lanes that split K, shared memory only across
// the warps that split K. Inputs are loaded through splat pointers to keep them
// short; only the dot matters.

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#ra = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#rb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#rc = #tile.blocked<{sizePerThread = [4, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

module attributes {tile.num_warps = 4 : i32} {

// 32x32x16 f32 in blocked layouts: A (32 x (16 + 4) x 4 bytes) and B
// staged in one buffer, a barrier before the reads, 4-wide vector reads
// along K for each distinct row and column, K FMAs per accumulator register.
// CHECK-LABEL: llvm.func @fma_dot
// CHECK-SAME:    tile.shared_bytes = 5120 : i64
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-16: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @fma_dot(%pa: !tile.ptr<f32>, %pb: !tile.ptr<f32>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
  %as = tile.splat %pa : !tile.ptr<f32> -> tensor<32x16x!tile.ptr<f32>, #blocked>
  %x = tile.load %as : tensor<32x16x!tile.ptr<f32>, #blocked>
  %bs = tile.splat %pb : !tile.ptr<f32> -> tensor<16x32x!tile.ptr<f32>, #blocked>
  %y = tile.load %bs : tensor<16x32x!tile.ptr<f32>, #blocked>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32, #blocked>
  %d = tile.dot %x, %y, %zero : tensor<32x16xf32, #blocked> * tensor<16x32xf32, #blocked> -> tensor<32x32xf32, #blocked>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #blocked>
  tile.store %cs, %d : tensor<32x32x!tile.ptr<f32>, #blocked>
  return
}

// 4x64x32 f16 in the register-dot layouts assign-layouts gives it: f16
// operands widened to f32, products summed over the thread's K, then over
// the lanes that split K (shuffles), then over the 4 warps that split K
// (each stores its partials, a barrier, every thread adds the 4); no
// staging of A or B.
// CHECK-LABEL: llvm.func @register_dot
// CHECK:         llvm.fpext %{{.*}} : f16 to f32
// CHECK:         llvm.fmul
// CHECK:         llvm.intr.fma
// CHECK:         nvvm.shfl.sync  bfly
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:     vector<4xf32>
// CHECK:         llvm.return
func.func @register_dot(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
  %as = tile.splat %pa : !tile.ptr<f16> -> tensor<4x32x!tile.ptr<f16>, #ra>
  %x = tile.load %as : tensor<4x32x!tile.ptr<f16>, #ra>
  %bs = tile.splat %pb : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>, #rb>
  %y = tile.load %bs : tensor<32x64x!tile.ptr<f16>, #rb>
  %zero = arith.constant dense<0.0> : tensor<4x64xf32, #rc>
  %d = tile.dot %x, %y, %zero : tensor<4x32xf16, #ra> * tensor<32x64xf16, #rb> -> tensor<4x64xf32, #rc>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<4x64x!tile.ptr<f32>, #rc>
  tile.store %cs, %d : tensor<4x64x!tile.ptr<f32>, #rc>
  return
}

}
