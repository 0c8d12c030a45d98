// quirec emits every stage and the kernel metadata.
// RUN: quirec %quire_src/examples/softmax.mlir --emit=tile | FileCheck %s --check-prefix=TILE
// RUN: quirec %quire_src/examples/softmax.mlir --emit=llvm-mlir | FileCheck %s --check-prefix=LLMLIR
// RUN: quirec %quire_src/examples/softmax.mlir --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: quirec %quire_src/examples/softmax.mlir --emit=meta | FileCheck %s --check-prefix=META
// RUN: quirec %quire_src/examples/softmax.mlir --num-warps 8 --emit=meta | FileCheck %s --check-prefix=META8
// RUN: quirec %quire_src/examples/softmax.mlir --time-passes -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIME
// Each kernel of a module launches with the shared memory it touches: the
// decode combine kernel (a reduction slot) not the split kernel's staging.
// RUN: quirec %quire_src/examples/paged_decode_attention_split.mlir --num-warps 1 --emit=meta | FileCheck %s --check-prefix=SPLIT
// TILE: module attributes {tile.num_warps = 4 : i32}
// TILE: tile.reduce max {{.*}}#tile.blocked
// LLMLIR: llvm.func @softmax({{.*}}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>
// LLMLIR: nvvm.shfl.sync {{ *}}bfly
// LLMLIR: nvvm.barrier0
// LLVM: define {{.*}}void @softmax(ptr addrspace(1)
// LLVM: @llvm.nvvm.shfl.sync.bfly
// META:     "args": [
// META:       "divisibility": 16,
// META-NEXT:  "kind": "ptr",
// META-NEXT:  "type": "!tile.ptr<f32>"
// META:       "kind": "int",
// META-NEXT:  "type": "i32"
// META:     "name": "softmax",
// META-NEXT: "shared_bytes": 128,
// META-NEXT: "threads": 128
// META8: "threads": 256
// TIME: NVPTX backend (O3 + PTX)
// SPLIT:      "name": "paged_decode_split",
// SPLIT-NEXT: "shared_bytes": 20736,
// SPLIT:      "name": "paged_decode_combine",
// SPLIT-NEXT: "shared_bytes": 4352,
