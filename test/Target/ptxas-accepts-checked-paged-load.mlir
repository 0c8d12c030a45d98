// REQUIRES: ptxas
// ptxas accepts the PTX of checked paged loads (the vprintf call, its
// argument buffer and the trap) for sm_80 and sm_90.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quirec %quire_src/test/Target/paged-load-checked-ptx.mlir --sm 80 --paged-checked -o %t/80.ptx
// RUN: %ptxas -arch=sm_80 %t/80.ptx -o %t/80.cubin
// RUN: quirec %quire_src/test/Target/paged-load-checked-ptx.mlir --sm 90 --paged-checked -o %t/90.ptx
// RUN: %ptxas -arch=sm_90 %t/90.ptx -o %t/90.cubin
// RUN: echo ok | FileCheck %s
// CHECK: ok
