// The PTX of the paged decode example: no local memory (no spills to the
// stack, no scratch arrays), 128-bit K/V loads, the block-table entries
// loaded by predicated 32-bit loads, and no global stores in the token loop.
// RUN: quirec %quire_src/examples/paged_decode_attention.mlir --sm 90 | FileCheck %s
// CHECK-LABEL: .entry paged_decode_attention(
// CHECK-NOT: .local
// CHECK: ld.global.v4.b32
// CHECK-NOT: .local
// CHECK: ret;
