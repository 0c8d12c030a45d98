// vector_add with n divisible by 16 loads and stores 16 bytes per thread per
// access (the mask is uniform over each run of 4 elements); without the
// divisibility fact the accesses stay scalar (the mask may change anywhere).
// RUN: sed 's/%%n: i32)/%%n: i32 {tile.divisibility = 16 : i32})/' %quire_src/examples/vector_add.mlir | quirec - --sm 90 | FileCheck %s --check-prefix=VEC
// RUN: quirec %quire_src/examples/vector_add.mlir --sm 90 | FileCheck %s --check-prefix=SCALAR
// VEC-LABEL: .entry vector_add(
// VEC: .maxntid 128, 1, 1
// VEC: @%p{{[0-9]+}} ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
// VEC: @%p{{[0-9]+}} st.global.v4.b32
// VEC-NOT: ld.global.b32
// SCALAR-LABEL: .entry vector_add(
// SCALAR: @%p{{[0-9]+}} ld.global.b32
// SCALAR-NOT: ld.global.v4
