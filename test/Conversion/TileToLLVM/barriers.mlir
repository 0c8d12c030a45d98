// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// RUN: quire-opt %s "--quire-convert-tile-to-llvm=shared-buffers=2" | FileCheck %s --check-prefix=TWO
// Barrier placement (Barriers.cpp): the barriers the lowerings ask for are
// dropped, and one is inserted before each shared-memory access that
// conflicts with an access since the last barrier: a read after a write or
// a write after a read of the same slot, by other threads. Loops are walked
// to a fixed point (iteration i+1 starts with what iteration i left
// pending). With two staging slots, consecutive conversions alternate and
// the second's stores need no barrier after the first's loads.

#b4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

module attributes {tile.num_warps = 4 : i32} {

// CHECK-LABEL: llvm.func @two_conversions
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.store {{.*}} !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load {{.*}} !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.store {{.*}} !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
// TWO-LABEL:   llvm.func @two_conversions
// TWO:           llvm.store {{.*}} !llvm.ptr<3>
// TWO:           nvvm.barrier0
// TWO-NEXT:      llvm.load {{.*}} !llvm.ptr<3>
// TWO-NOT:       nvvm.barrier0
// TWO:           llvm.store {{.*}} !llvm.ptr<3>
// TWO:           nvvm.barrier0
// TWO-NEXT:      llvm.load {{.*}} !llvm.ptr<3>
// TWO-NOT:       nvvm.barrier0
// TWO:           llvm.return
func.func @two_conversions(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
  %x = tile.load %ps : tensor<512x!tile.ptr<f32>, #b4>
  %y = tile.convert_layout %x : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
  %z = tile.convert_layout %y : tensor<512xf32, #b1> -> tensor<512xf32, #b4>
  tile.store %ps, %z : tensor<512x!tile.ptr<f32>, #b4>
  return
}

// A conversion in a loop: the next iteration's stores follow this
// iteration's loads, so the loop body starts with a barrier too.
// CHECK-LABEL: llvm.func @conversion_in_loop
// CHECK:       ^[[BODY:.*]]:
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.store {{.*}} !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load {{.*}} !llvm.ptr<3>
// CHECK:         llvm.br
func.func @conversion_in_loop(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %x = tile.load %ps : tensor<512x!tile.ptr<f32>, #b4>
    %y = tile.convert_layout %x : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
    tile.store %qs, %y : tensor<512x!tile.ptr<f32>, #b1>
  }
  return
}

}
