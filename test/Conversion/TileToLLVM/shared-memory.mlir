// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// RUN: quire-opt %s "--quire-convert-tile-to-llvm=shared-buffers=2" | FileCheck %s --check-prefix=TWO
// Shared-memory placement (SharedMemory.cpp): every kernel of a module uses
// one dynamic shared memory, @quire_smem. The staging slots of layout
// conversions, reductions and dots come first, each as large as the
// module's largest use; the async staging buffers follow them. A kernel's
// tile.shared_bytes is the end of the last region it touches, so a kernel
// with conversions only does not pay for another kernel's async buffers.

#b4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #blocked}>
#cols = #tile.slice<{dim = 0, parent = #blocked}>

module attributes {tile.num_warps = 4 : i32} {

// CHECK:       llvm.mlir.global external @quire_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// Two 512 x f32 conversions: 2048-byte slots, both conversions in slot 0,
// or in slots 0 and 1 with shared-buffers=2.
// CHECK-LABEL: llvm.func @conversion
// CHECK-SAME:    tile.shared_bytes = 2048 : i64
// TWO-LABEL:   llvm.func @conversion
// TWO-SAME:      tile.shared_bytes = 4096 : i64
func.func @conversion(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
  %x = tile.load %ps : tensor<512x!tile.ptr<f32>, #b4>
  %y = tile.convert_layout %x : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
  %z = tile.convert_layout %y : tensor<512xf32, #b1> -> tensor<512xf32, #b4>
  tile.store %ps, %z : tensor<512x!tile.ptr<f32>, #b4>
  return
}

// Two stages of a swizzled 32 x 64 f16 tile (4096 bytes each) after the
// slots: one slot (2048) or two (4096) before them.
// CHECK-LABEL: llvm.func @async_buffer
// CHECK-SAME:    tile.shared_bytes = 10240 : i64
// TWO-LABEL:   llvm.func @async_buffer
// TWO-SAME:      tile.shared_bytes = 12288 : i64
func.func @async_buffer(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stage: i32) attributes {tile.kernel} {
  %r = tile.range 0, 32 : tensor<32xi32, #rows>
  %c = tile.range 0, 64 : tensor<64xi32, #cols>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #rows> -> tensor<32x1xi32, #blocked>
  %c64 = arith.constant dense<64> : tensor<32x1xi32, #blocked>
  %rs = arith.muli %r2, %c64 : tensor<32x1xi32, #blocked>
  %rb = tile.broadcast %rs : tensor<32x1xi32, #blocked> -> tensor<32x64xi32, #blocked>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #blocked>
  %cb = tile.broadcast %c2 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
  %off = arith.addi %rb, %cb : tensor<32x64xi32, #blocked>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>, #blocked>
  %ptrs = tile.addptr %ps, %off : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
  tile.async_copy %ptrs into stage %stage {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<32x64x!tile.ptr<f16>, #blocked>
  tile.async_wait {pending = 0 : i32}
  return
}

}
