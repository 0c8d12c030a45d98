// tile.barrier is bar.sync 0 in the PTX, between the store and the load it
// orders (with quire-forward-stores off: it would read the stored value and
// drop the barrier, test/Target/forward-stores-ptx.mlir).
// RUN: quirec %s --sm 90 --forward-stores=false | FileCheck %s
// RUN: quirec %s --sm 80 --forward-stores=false | FileCheck %s
// CHECK-LABEL: .entry k(
// CHECK:       st.global.b32 [ %rd[[P:[0-9]+]] + 0 ], %r{{[0-9]+}};
// CHECK-NOT:   ld.global
// CHECK:       bar.sync 0;
// CHECK-NEXT:  ld.global.b32 %r{{[0-9]+}}, [%rd[[P]]];
func.func @k(%p: !tile.ptr<i32>, %q: !tile.ptr<i32>, %v: i32) attributes {tile.kernel} {
  tile.store %p, %v : !tile.ptr<i32>
  tile.barrier
  %x = tile.load %p : !tile.ptr<i32>
  tile.store %q, %x : !tile.ptr<i32>
  return
}
