// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// tile.barrier (Barriers.cpp) is nvvm.barrier0, a barrier of the kernel's
// own: the barrier placement keeps it where no shared memory is touched,
// and counts it as the barrier a conversion's stores after it need.

#b4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

module attributes {tile.num_warps = 4 : i32} {

// CHECK-LABEL: llvm.func @between_global_accesses
// CHECK:         llvm.inline_asm has_side_effects {{.*}}"@$1 st.global.b32 [ $0 + 0 ], $2;", "l,b,r" %arg0
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    llvm.load %arg0 {alignment = 4 : i64} : !llvm.ptr<1> -> i32
func.func @between_global_accesses(%p: !tile.ptr<i32>, %v: i32) attributes {tile.kernel} {
  tile.store %p, %v : !tile.ptr<i32>
  tile.barrier
  %x = tile.load %p : !tile.ptr<i32>
  tile.store %p, %x : !tile.ptr<i32>
  return
}

// Two conversions of one slot with a tile.barrier between them: the
// second's stores need no barrier of their own after the first's loads.
// CHECK-LABEL: llvm.func @before_a_conversion
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load {{.*}} !llvm.ptr<3>
// CHECK-COUNT-3: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.store {{.*}} !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load {{.*}} !llvm.ptr<3>
func.func @before_a_conversion(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
  %x = tile.load %ps : tensor<512x!tile.ptr<f32>, #b4>
  %y = tile.convert_layout %x : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
  tile.barrier
  %z = tile.convert_layout %y : tensor<512xf32, #b1> -> tensor<512xf32, #b4>
  tile.store %ps, %z : tensor<512x!tile.ptr<f32>, #b4>
  return
}

}
