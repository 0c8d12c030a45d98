// tile.print on the GPU: one vprintf per element, by the thread that owns
// it (thread 0 for a scalar and for a print without operands), with the
// program's ids, the element's coordinate and its value (i64 for integers,
// double for floats) in the argument buffer; a '%' of the prefix escaped.
// RUN: quirec %s --sm 90 | FileCheck %s
// RUN: quirec %s --sm 90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// The formats (bytes of "pid (%d, %d, %d) idx (%d) x: %f\n" and of the
// prefix-only line, whose "100%" became "100%%"; NUL-terminated).
// CHECK-DAG: .global .align 1 .b8 quire_print_{{[0-9]+}}[33] = {112, 105, 100, 32, 40, 37, 100, 44, 32, 37, 100, 44, 32, 37, 100, 41, 32, 105, 100, 120, 32, 40, 37, 100, 41, 32, 120, 58, 32, 37, 102, 10};
// CHECK-DAG: .global .align 1 .b8 quire_print_{{[0-9]+}}[29] = {112, 105, 100, 32, 40, 37, 100, 44, 32, 37, 100, 44, 32, 37, 100, 41, 32, 49, 48, 48, 37, 37, 32, 100, 111, 110, 101, 10};
// The tensor's four elements per thread (the threads holding copies of
// them skip), each converted to double; the scalar as i64; the line.
// CHECK-LABEL: .entry print(
// CHECK:       setp.ne.b32 [[COPY:%p[0-9]+]]
// CHECK:       @[[COPY]] bra
// CHECK-COUNT-4: call.uni (retval0), vprintf
// CHECK:       cvt.s64.s32
// CHECK:       call.uni (retval0), vprintf
// CHECK:       call.uni (retval0), vprintf
// CHECK-NOT:   vprintf
// CHECK:       ret;
module attributes {tile.num_warps = 4 : i32} {
func.func @print(%n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32>
  %f = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  tile.print "x", %f : tensor<128xf32>
  tile.print "n", %n : i32
  tile.print "100% done"
  return
}
}
