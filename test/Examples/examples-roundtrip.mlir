// Every example kernel parses, verifies and round-trips (custom and generic form).
// RUN: quire-opt %quire_src/examples/vector_add.mlir | quire-opt | FileCheck %s --check-prefix=VADD
// RUN: quire-opt %quire_src/examples/softmax.mlir --mlir-print-op-generic | quire-opt | FileCheck %s --check-prefix=SOFTMAX
// RUN: quire-opt %quire_src/examples/paged_decode_attention.mlir | quire-opt | FileCheck %s --check-prefix=PAGED
// RUN: quire-opt %quire_src/examples/paged_decode_attention.mlir --mlir-print-op-generic | quire-opt | FileCheck %s --check-prefix=PAGED

// VADD-LABEL: func.func @vector_add
// VADD-SAME: tile.kernel
// VADD: tile.load
// VADD: arith.addf
// VADD: tile.store

// SOFTMAX-LABEL: func.func @softmax
// SOFTMAX: tile.reduce max
// SOFTMAX: math.exp
// SOFTMAX: tile.reduce sum
// SOFTMAX: tile.store

// PAGED-LABEL: func.func @paged_decode_attention
// PAGED: scf.for
// PAGED: tile.paged_load {{.*}} {page_size = 16 : i32} {{.*}} : tensor<64x128xf16>
// PAGED: tile.dot {{.*}} : tensor<4x128xf16> * tensor<128x64xf16> -> tensor<4x64xf32>
// PAGED: tile.paged_load
// PAGED: tile.dot {{.*}} : tensor<4x64xf16> * tensor<64x128xf16> -> tensor<4x128xf32>
// PAGED: scf.yield
// PAGED: tile.store
