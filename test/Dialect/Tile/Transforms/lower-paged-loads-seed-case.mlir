// The seed case after the rewrite: block table [40, 30], page size 8, a
// 16-token tile of a cache whose row r holds r reads rows 40..47, 30..37.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-opt %quire_src/test/Interpreter/paged-load-seed-block-table.mlir --quire-lower-paged-loads -o %t/seed.mlir
// RUN: quire-run %t/seed.mlir --kernel fill_rows --grid 41 --arg out:%t/cache.npy:f32:328x4
// RUN: quire-run %t/seed.mlir --kernel seed --arg in:%t/cache.npy \
// RUN:   --arg values:i32:40,30 --arg i32:0 --arg i32:16 --arg i64:4 --arg i64:4 \
// RUN:   --arg out:%t/o.npy:f32:16x4 --print | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t/seed.mlir

// IR-NOT: tile.paged_load
// IR: tile.load {{.*}} : tensor<16x!tile.ptr<i32>>

// CHECK:      arg #6 (out, f32, 16x4):
// CHECK-NEXT: 40 40 40 40
// CHECK-NEXT: 41 41 41 41
// CHECK-NEXT: 42 42 42 42
// CHECK-NEXT: 43 43 43 43
// CHECK-NEXT: 44 44 44 44
// CHECK-NEXT: 45 45 45 45
// CHECK-NEXT: 46 46 46 46
// CHECK-NEXT: 47 47 47 47
// CHECK-NEXT: 30 30 30 30
// CHECK-NEXT: 31 31 31 31
// CHECK-NEXT: 32 32 32 32
// CHECK-NEXT: 33 33 33 33
// CHECK-NEXT: 34 34 34 34
// CHECK-NEXT: 35 35 35 35
// CHECK-NEXT: 36 36 36 36
// CHECK-NEXT: 37 37 37 37
