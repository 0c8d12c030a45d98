// The split-KV paged decode example on sm_80 and sm_90: K and V are staged
// with 16-byte cp.async (zero fill for masked rows through src-size), one
// commit group each, the next tile's copies issued right after the wait at
// the top of the loop and read with ldmatrix (.trans for V); no register
// staging (st.shared.v4) of K or V in the loop. --async-stages=0 goes back
// to registers.
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --sm 80 --num-warps 1 | FileCheck %s
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --sm 90 --num-warps 4 | FileCheck %s
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --sm 90 --async-stages=3 | FileCheck %s --check-prefix=S3
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --sm 90 --async-stages=0 | FileCheck %s --check-prefix=OFF
// RUN: not quirec %quire_src/examples/paged_decode_attention_split.mlir --async-stages=9 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --sm 90 --num-warps 1 | FileCheck %s --check-prefix=SWZ
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --sm 90 --num-warps 1 --swizzle-staging=false | FileCheck %s --check-prefix=PAD
//
// The staging buffers are swizzled by default: 16-byte chunks XOR-ed with
// the row (bits 7-9 of the offset into bits 4-6), so the two rows of 256
// bytes one cp.async of the warp writes land on the banks without conflict
// and without a pad; --swizzle-staging=false pads each row by 16 bytes
// (a warp's next two rows 544 bytes on: a constant step from one base, as
// the copies of a thread are addressed when their offsets differ by the
// same constant in every thread).

// CHECK-LABEL: .entry paged_decode_split
// CHECK:       cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// CHECK:       cp.async.commit_group;
// CHECK:       $L__BB0_
// CHECK:       cp.async.wait_group 0;
// CHECK-NEXT:  bar.sync 0;
// CHECK-NOT:   st.shared.v4
// CHECK:       cp.async.cg.shared.global
// CHECK:       cp.async.commit_group;
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK:       bra
// CHECK:       cp.async.wait_group 0;

// S3-LABEL: .entry paged_decode_split
// S3:       cp.async.wait_group 2;

// OFF-LABEL: .entry paged_decode_split
// OFF-NOT:   cp.async
// OFF:       .entry paged_decode_combine

// BAD: error: --async-stages must be at most 8, got 9

// SWZ-LABEL: .entry paged_decode_split
// SWZ:       xor.b32
// SWZ:       cp.async.cg.shared.global
// SWZ-NOT:   cp.async.cg.shared.global [{{.*}}+544]
// SWZ:       .entry paged_decode_combine

// PAD-LABEL: .entry paged_decode_split
// PAD-NOT:   xor.b32
// PAD:       cp.async.cg.shared.global [%r[[BASE:[0-9]+]]+[[#START:]]]
// PAD:       cp.async.cg.shared.global [%r[[BASE]]+[[#START+544]]]
