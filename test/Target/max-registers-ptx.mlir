// --max-registers caps each kernel's registers per thread (.maxnreg in the
// PTX, after the entry's parameters); 0 means no cap; other values outside
// [24, 255] are errors before anything compiles.
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --sm 90 --num-warps 1 --max-registers 168 | FileCheck %s
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --sm 90 | FileCheck %s --check-prefix=NONE
// RUN: not quirec %quire_src/examples/vector_add.mlir --max-registers 16 2>&1 | FileCheck %s --check-prefix=LOW
// RUN: not quirec %quire_src/examples/vector_add.mlir --max-registers 256 2>&1 | FileCheck %s --check-prefix=HIGH

// CHECK-LABEL: .entry paged_decode_split(
// CHECK:       .maxnreg 168
// CHECK-LABEL: .entry paged_decode_combine(
// CHECK:       .maxnreg 168
// NONE-LABEL:  .entry paged_decode_split(
// NONE-NOT:    .maxnreg
// NONE-LABEL:  .entry paged_decode_combine(
// NONE-NOT:    .maxnreg
// LOW:  error: --max-registers must be 0 (no cap) or in [24, 255], got 16
// HIGH: error: --max-registers must be 0 (no cap) or in [24, 255], got 256
