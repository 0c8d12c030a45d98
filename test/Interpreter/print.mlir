// tile.print in the interpreter: one line per element of each operand,
// elements in row-major order, programs one after another; integers in
// decimal (or hexadecimal bits), floats as printf's %f, a '%' in the prefix
// as it is.
// RUN: quire-run %s --grid 2 --arg i32:7 | FileCheck %s

// CHECK:      pid (0, 0, 0) idx (0, 0) x: 0.000000
// CHECK-NEXT: pid (0, 0, 0) idx (0, 1) x: 0.500000
// CHECK-NEXT: pid (0, 0, 0) idx (1, 0) x: 1.000000
// CHECK-NEXT: pid (0, 0, 0) idx (1, 1) x: 1.500000
// CHECK-NEXT: pid (0, 0, 0) idx (0) both (operand 0): -1
// CHECK-NEXT: pid (0, 0, 0) idx (1) both (operand 0): 0
// CHECK-NEXT: pid (0, 0, 0) both (operand 1): 7
// CHECK-NEXT: pid (0, 0, 0) idx (0) bits: 0xffffffff
// CHECK-NEXT: pid (0, 0, 0) idx (1) bits: 0x0
// CHECK-NEXT: pid (0, 0, 0) 100% done
// CHECK-NEXT: pid (1, 0, 0) idx (0, 0) x: 0.000000
// CHECK:      pid (1, 0, 0) 100% done
// CHECK-NOT:  pid
func.func @print(%n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 2 : tensor<2xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<2xi32> -> tensor<1x2xi32>
  %c2 = arith.constant dense<2> : tensor<2x1xi32>
  %r2 = arith.muli %rows, %c2 : tensor<2x1xi32>
  %rb = tile.broadcast %r2 : tensor<2x1xi32> -> tensor<2x2xi32>
  %cb = tile.broadcast %cols : tensor<1x2xi32> -> tensor<2x2xi32>
  %i = arith.addi %rb, %cb : tensor<2x2xi32>
  %f = arith.sitofp %i : tensor<2x2xi32> to tensor<2x2xf32>
  %half = arith.constant dense<0.5> : tensor<2x2xf32>
  %x = arith.mulf %f, %half : tensor<2x2xf32>
  tile.print "x", %x : tensor<2x2xf32>
  %one = arith.constant dense<1> : tensor<2xi32>
  %m = arith.subi %r, %one : tensor<2xi32>
  tile.print "both", %m, %n : tensor<2xi32>, i32
  tile.print "bits" hex, %m : tensor<2xi32>
  tile.print "100% done"
  return
}
