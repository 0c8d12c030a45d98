// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// tile.convert_layout (ConvertLayoutToLLVM.cpp): between layouts that put
// elements in other threads, every thread stores its registers to shared
// memory, a barrier, every thread loads what the new layout gives it.
// Rank-2 tiles are staged along the source's contiguous dimension (rows
// padded by 16 bytes) with vector stores and loads where a thread's
// registers run along it; a 16-bit #tile.dot_op destination is read with
// ldmatrix (.trans when the staged rows run along K). A conversion that
// keeps every element in its thread and register only renumbers registers
// (TileToLLVM.cpp).

#b4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#rows = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows16 = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.mma<{warpsPerCTA = [2, 2]}>
#dota = #tile.dot_op<{opIdx = 0, parent = #mma}>
#dotb = #tile.dot_op<{opIdx = 1, parent = #mma}>
#col2 = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#slice = #tile.slice<{dim = 1, parent = #col2}>

module attributes {tile.num_warps = 4 : i32} {

// 1-D: element stores (4 per thread), the barrier, element loads (4, one
// per register of the new layout).
// CHECK-LABEL: llvm.func @one_dimensional
// CHECK-NOT:     nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @one_dimensional(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
  %x = tile.load %ps : tensor<512x!tile.ptr<f32>, #b4>
  %y = tile.convert_layout %x : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
  tile.store %qs, %y : tensor<512x!tile.ptr<f32>, #b1>
  return
}

// Rows to columns of a 32x32 tile: 16-byte stores along the source's rows,
// the loads of the column layout element by element (its registers run
// along the other dimension).
// CHECK-LABEL: llvm.func @rank2_transposing
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:     vector<4xf32>, !llvm.ptr<3>
// CHECK:         llvm.return
func.func @rank2_transposing(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #rows>
  %x = tile.load %ps : tensor<32x32x!tile.ptr<f32>, #rows>
  %y = tile.convert_layout %x : tensor<32x32xf32, #rows> -> tensor<32x32xf32, #cols>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #cols>
  tile.store %qs, %y : tensor<32x32x!tile.ptr<f32>, #cols>
  return
}

// f16 tiles to mma operands: A (rows along K) with ldmatrix.x4, B (rows
// along N, so K runs down the staged columns) with ldmatrix.x4.trans.
// CHECK-LABEL: llvm.func @to_dot_operands
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK:         nvvm.barrier0
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK:         mma.sync.aligned.m16n8k16
func.func @to_dot_operands(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
  %as = tile.splat %pa : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>, #rows16>
  %a = tile.load %as : tensor<32x32x!tile.ptr<f16>, #rows16>
  %bs = tile.splat %pb : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>, #rows16>
  %b = tile.load %bs : tensor<32x32x!tile.ptr<f16>, #rows16>
  %x = tile.convert_layout %a : tensor<32x32xf16, #rows16> -> tensor<32x32xf16, #dota>
  %y = tile.convert_layout %b : tensor<32x32xf16, #rows16> -> tensor<32x32xf16, #dotb>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32, #mma>
  %d = tile.dot %x, %y, %zero : tensor<32x32xf16, #dota> * tensor<32x32xf16, #dotb> -> tensor<32x32xf32, #mma>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #mma>
  tile.store %cs, %d : tensor<32x32x!tile.ptr<f32>, #mma>
  return
}

// A blocked layout and a slice that place every element alike: no shared
// memory, no barrier.
// CHECK-LABEL: llvm.func @renumbering
// CHECK-SAME:    tile.shared_bytes = 0 : i64
// CHECK-NOT:     !llvm.ptr<3>
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @renumbering(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
  %x = tile.load %ps : tensor<512x!tile.ptr<f32>, #b4>
  %y = tile.convert_layout %x : tensor<512xf32, #b4> -> tensor<512xf32, #slice>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #slice>
  tile.store %qs, %y : tensor<512x!tile.ptr<f32>, #slice>
  return
}

}
