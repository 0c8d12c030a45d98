// REQUIRES: ptxas
// ptxas accepts the PTX of every example for sm_80 and sm_90 (wgmma on, so
// sm_90a where a dot runs on it, and off), assembling for the PTX's target.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for ex in vector_add softmax matmul paged_decode_attention paged_decode_attention_split paged_prefill_attention; do \
// RUN:   for flags in "--sm 80" "--sm 90" "--sm 90 --wgmma=false"; do \
// RUN:     quirec %quire_src/examples/$ex.mlir $flags -o %t/k.ptx && \
// RUN:     arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' %t/k.ptx) && \
// RUN:     %ptxas -arch=$arch %t/k.ptx -o %t/k.cubin || exit 1; \
// RUN:     echo "$ex $flags $arch"; \
// RUN:   done; done | FileCheck %s
// CHECK: vector_add --sm 90 sm_90{{$}}
// The example's matmul has unaligned K rows: no cp.async staging, mma.sync.
// CHECK: matmul --sm 80 sm_80{{$}}
// CHECK: matmul --sm 90 sm_90{{$}}
// CHECK: paged_decode_attention_split --sm 90 sm_90{{$}}
// CHECK: paged_prefill_attention --sm 90 sm_90a{{$}}
// CHECK: paged_prefill_attention --sm 90 --wgmma=false sm_90{{$}}
