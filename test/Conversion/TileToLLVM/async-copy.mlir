// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// RUN: quire-opt %s "--quire-convert-tile-to-llvm=swizzle-staging=false" | FileCheck %s --check-prefix=PAD
// The ops quire-async-copies creates (AsyncCopyToLLVM.cpp):
// tile.async_copy is one cp.async per run of a thread's contiguous elements
// (16 bytes, .cg, where AxisInfo proves it), masked elements as zero fill
// (src-size 0), into a stage of a staging buffer placed after the
// conversion slots, then one commit group; tile.async_wait is
// cp.async.wait_group and a barrier of its own (with async_proxy, a
// fence.proxy.async before it); tile.async_local_load reads a stage with
// ldmatrix. A staging buffer whose rows are a power of two of 32 bytes or
// more is XOR-swizzled in 16-byte chunks; with swizzle-staging=false its
// rows are padded by 16 bytes instead.

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #blocked}>
#cols = #tile.slice<{dim = 0, parent = #blocked}>
#mma = #tile.mma<{warpsPerCTA = [1, 1]}>
#dota = #tile.dot_op<{opIdx = 0, parent = #mma}>

module attributes {tile.num_warps = 1 : i32} {

// A 16x32 f16 tile (rows of 64 bytes, row stride 32 elements) copied into
// stage %stage of buffer 0, waited for, and read as an mma A operand. Two
// stages of 16 x 64 bytes swizzled, of 16 x (64 + 16) bytes padded.
// CHECK-LABEL: llvm.func @copy_wait_read
// CHECK-SAME:    tile.shared_bytes = 2048 : i64
// CHECK:         llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-1: nvvm.cp.async.shared.global
// CHECK-NEXT:    nvvm.cp.async.commit.group
// CHECK:         nvvm.cp.async.wait.group 0
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK:         nvvm.cp.async.wait.group 1
// CHECK-NEXT:    llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cta;"
// CHECK-NEXT:    nvvm.barrier0
// PAD-LABEL:   llvm.func @copy_wait_read
// PAD-SAME:      tile.shared_bytes = 2560 : i64
// PAD:           nvvm.cp.async.shared.global
func.func @copy_wait_read(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %out: !tile.ptr<f16>, %n: i32, %stage: i32) attributes {tile.kernel} {
  %r = tile.range 0, 16 : tensor<16xi32, #rows>
  %c = tile.range 0, 32 : tensor<32xi32, #cols>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #rows> -> tensor<16x1xi32, #blocked>
  %c32 = arith.constant dense<32> : tensor<16x1xi32, #blocked>
  %rs = arith.muli %r2, %c32 : tensor<16x1xi32, #blocked>
  %rb = tile.broadcast %rs : tensor<16x1xi32, #blocked> -> tensor<16x32xi32, #blocked>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #cols> -> tensor<1x32xi32, #blocked>
  %cb = tile.broadcast %c2 : tensor<1x32xi32, #blocked> -> tensor<16x32xi32, #blocked>
  %off = arith.addi %rb, %cb : tensor<16x32xi32, #blocked>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>, #blocked>
  %ptrs = tile.addptr %ps, %off : tensor<16x32x!tile.ptr<f16>, #blocked>, tensor<16x32xi32, #blocked>
  %ns = tile.splat %n : i32 -> tensor<16x1xi32, #blocked>
  %in = arith.cmpi slt, %r2, %ns : tensor<16x1xi32, #blocked>
  %mask = tile.broadcast %in : tensor<16x1xi1, #blocked> -> tensor<16x32xi1, #blocked>
  tile.async_copy %ptrs mask %mask into stage %stage {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<16x32x!tile.ptr<f16>, #blocked>, tensor<16x32xi1, #blocked>
  tile.async_wait {pending = 0 : i32}
  %a = tile.async_local_load %stage {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<16x32xf16, #dota>
  tile.async_wait {async_proxy, pending = 1 : i32}
  %os = tile.splat %out : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>, #dota>
  tile.store %os, %a : tensor<16x32x!tile.ptr<f16>, #dota>
  return
}

}
