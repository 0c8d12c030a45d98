// RUN: quirec %s --sm 90 | FileCheck %s
// RUN: quire-opt %s --quire-assign-layouts | FileCheck %s --check-prefix=IR
// A scalar tile.load through a !tile.ptr compiles, and quire-assign-layouts
// leaves it scalar: it has no tensor to lay out (a quire-fuzz finding).
// CHECK-LABEL: .entry k(
// IR: tile.load %{{.*}} : !tile.ptr<i32>
func.func @k(%p: !tile.ptr<i32>, %q: !tile.ptr<i32>) attributes {tile.kernel} {
  %x = tile.load %p : !tile.ptr<i32>
  tile.store %q, %x : !tile.ptr<i32>
  return
}
