// RUN: bash %S/Inputs/install-consumer/check.sh %quire_obj %t %s | FileCheck %s
// cmake --install of the build into a fresh prefix: the tools, libquire.so
// with its SONAME link, <quire-c/Quire.h>, find_package(Quire) and
// pkg-config's quire.pc. A C program (Inputs/install-consumer/hello.c) built
// against the installed tree both ways compiles this file's kernel to PTX
// through the C API.

// CHECK:      SONAME libquire.so.0
// CHECK:      find_package:
// CHECK-NEXT: quire {{[0-9]+\.[0-9]+\.[0-9]+}} (C API
// CHECK:      .entry installed_scale
// CHECK:      pkg-config: {{[0-9]+\.[0-9]+\.[0-9]+}}
// CHECK-NEXT: quire {{[0-9]+\.[0-9]+\.[0-9]+}} (C API
// CHECK:      .entry installed_scale

func.func @installed_scale(%x: !tile.ptr<f32>, %s: f32) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %q : tensor<128x!tile.ptr<f32>>
  %sv = tile.splat %s : f32 -> tensor<128xf32>
  %w = arith.mulf %v, %sv : tensor<128xf32>
  tile.store %q, %w : tensor<128x!tile.ptr<f32>>
  return
}
