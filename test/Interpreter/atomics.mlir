// tile.atomic_rmw and tile.atomic_cas in the interpreter: programs run one
// after another, each element's read-modify-write in lane order, and the
// results are the values memory held before.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --grid 4 --arg out:%t/c.npy:i32:1:fill=0 --arg out:%t/o.npy:i32:4 --arg out:%t/h.npy:i32:4:fill=0 --arg out:%t/m.npy:i32:3:fill=0 --arg out:%t/f.npy:f32:2:fill=0 --arg out:%t/x.npy:i32:2:fill=7 --print | FileCheck %s

// The counter counts the programs; each program got the count before it.
// CHECK:      arg #0 (out, i32, 1):
// CHECK-NEXT: 4
// CHECK:      arg #1 (out, i32, 4):
// CHECK-NEXT: 0 1 2 3
// Histogram of the 8 lanes (i % 4, lanes 6 and 7 masked off) over 4 programs.
// CHECK:      arg #2 (out, i32, 4):
// CHECK-NEXT: 8 8 4 4
// max (signed): program 3; min (signed): -3 * 3 = -9; umax: -1 as unsigned.
// CHECK:      arg #3 (out, i32, 3):
// CHECK-NEXT: 3 -9 -1
// f32 add of 0.5 per program; f32 max of -pid (none above 0).
// CHECK:      arg #4 (out, f32, 2):
// CHECK-NEXT: 2 0
// cas(7 -> 100) succeeds once, then xchg to the last program's id.
// CHECK:      arg #5 (out, i32, 2):
// CHECK-NEXT: 100 3
func.func @k(%counter: !tile.ptr<i32>, %olds: !tile.ptr<i32>,
             %hist: !tile.ptr<i32>, %m: !tile.ptr<i32>, %f: !tile.ptr<f32>,
             %x: !tile.ptr<i32>) attributes {tile.kernel} {
  %pid = tile.program_id x
  %one = arith.constant 1 : i32
  %old = tile.atomic_rmw add, %counter, %one : !tile.ptr<i32>
  %po = tile.addptr %olds, %pid : !tile.ptr<i32>, i32
  tile.store %po, %old : !tile.ptr<i32>

  %r = tile.range 0, 8 : tensor<8xi32>
  %c4 = arith.constant dense<4> : tensor<8xi32>
  %bin = arith.remsi %r, %c4 : tensor<8xi32>
  %hs = tile.splat %hist : !tile.ptr<i32> -> tensor<8x!tile.ptr<i32>>
  %hp = tile.addptr %hs, %bin : tensor<8x!tile.ptr<i32>>, tensor<8xi32>
  %ones = arith.constant dense<1> : tensor<8xi32>
  %c6 = arith.constant dense<6> : tensor<8xi32>
  %live = arith.cmpi slt, %r, %c6 : tensor<8xi32>
  %h = tile.atomic_rmw add, %hp, %ones, %live sem(relaxed) : tensor<8x!tile.ptr<i32>>

  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %m1 = tile.addptr %m, %c1 : !tile.ptr<i32>, i32
  %m2 = tile.addptr %m, %c2 : !tile.ptr<i32>, i32
  %mx = tile.atomic_rmw max, %m, %pid : !tile.ptr<i32>
  %cm3 = arith.constant -3 : i32
  %neg = arith.muli %pid, %cm3 : i32
  %mn = tile.atomic_rmw min, %m1, %neg sem(release) scope(cta) : !tile.ptr<i32>
  %cm1 = arith.constant -1 : i32
  %um = tile.atomic_rmw umax, %m2, %cm1 : !tile.ptr<i32>

  %half = arith.constant 0.5 : f32
  %fa = tile.atomic_rmw add, %f, %half : !tile.ptr<f32>
  %f1 = tile.addptr %f, %c1 : !tile.ptr<f32>, i32
  %pf = arith.sitofp %pid : i32 to f32
  %zero = arith.constant 0.0 : f32
  %npf = arith.subf %zero, %pf : f32
  %fm = tile.atomic_rmw max, %f1, %npf : !tile.ptr<f32>

  %c7 = arith.constant 7 : i32
  %c100 = arith.constant 100 : i32
  %cas = tile.atomic_cas %x, %c7, %c100 sem(acquire) : !tile.ptr<i32>
  %x1 = tile.addptr %x, %c1 : !tile.ptr<i32>, i32
  %xc = tile.atomic_rmw xchg, %x1, %pid : !tile.ptr<i32>
  return
}
