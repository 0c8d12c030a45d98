// Barriers come from the shared-memory accesses, not from each lowering:
// with one buffer, A and B of the matmul's dot are staged one after the
// other (a barrier after each store phase, and before each store phase that
// overwrites what was read); with two, B's stores need no barrier after
// A's reads, and the next iteration's A stores none after B's.
// RUN: quirec %quire_src/examples/matmul.mlir --sm 90 | FileCheck %s --check-prefix=ONE
// RUN: quirec %quire_src/examples/matmul.mlir --sm 90 --shared-buffers=2 | FileCheck %s --check-prefix=TWO
// RUN: not quirec %quire_src/examples/matmul.mlir --shared-buffers=3 2>&1 | FileCheck %s --check-prefix=BAD
// ONE-LABEL: .entry matmul(
// ONE: $L__BB0_[[L:[0-9]+]]:
// ONE: bar.sync 0
// ONE: st.shared.v4.b32
// ONE: bar.sync 0
// ONE: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// ONE: bar.sync 0
// ONE: st.shared.v4.b32
// ONE: bar.sync 0
// ONE: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// ONE: bra {{.*}}$L__BB0_[[L]];
// TWO-LABEL: .entry matmul(
// TWO: $L__BB0_[[L:[0-9]+]]:
// TWO-NOT: bar.sync
// TWO: st.shared.v4.b32
// TWO: bar.sync 0
// TWO: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// TWO-NOT: bar.sync
// TWO: st.shared.v4.b32
// TWO: bar.sync 0
// TWO: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// TWO-NOT: bar.sync
// TWO: bra {{.*}}$L__BB0_[[L]];
// RUN: not quire-opt %quire_src/examples/matmul.mlir "--quire-llvm-pipeline=shared-buffers=0" 2>&1 | FileCheck %s --check-prefix=BADPASS
// BAD: error: --shared-buffers must be 1 or 2, got 3
// BADPASS: error: quire-llvm-pipeline: shared-buffers must be 1 or 2, got 0
