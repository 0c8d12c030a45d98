// REQUIRES: ptxas
// ptxas accepts the PTX of every example for sm_80 and sm_90.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for ex in vector_add softmax matmul paged_decode_attention paged_decode_attention_split paged_prefill_attention; do \
// RUN:   for sm in 80 90; do \
// RUN:     quirec %quire_src/examples/$ex.mlir --sm $sm -o %t/$ex.$sm.ptx && \
// RUN:     %ptxas -arch=sm_$sm %t/$ex.$sm.ptx -o %t/$ex.$sm.cubin || exit 1; \
// RUN:   done; done
// RUN: echo ok | FileCheck %s
// CHECK: ok
