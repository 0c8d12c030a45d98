// RUN: quire-opt %s --quire-forward-stores --canonicalize --cse | FileCheck %s
// What quire-forward-stores leaves alone: each kernel stores 16 values to
// its scratch slot, synchronizes, and reloads them (or something near
// them); none of the reloads may read the stored values, so every reload
// and every barrier stays.

// A store between that may write the reloaded memory (a run-time offset
// into the same buffer).
// CHECK-LABEL: func.func @store_may_alias_between
// CHECK:         tile.barrier
// CHECK:         tile.load %{{.*}} : tensor<16x!tile.ptr<i32>>
func.func @store_may_alias_between(%scratch: !tile.ptr<i32>, %out: !tile.ptr<i32>,
                                   %s: i32, %at: i32) attributes {tile.kernel} {
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c16 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<i32>, i32
  %lane = tile.range 0, 16 : tensor<16xi32>
  %ss = tile.splat %s : i32 -> tensor<16xi32>
  %v = arith.muli %lane, %ss : tensor<16xi32>
  %ms = tile.splat %mine : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %mp = tile.addptr %ms, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %mp, %v : tensor<16x!tile.ptr<i32>>
  %other = tile.addptr %scratch, %at : !tile.ptr<i32>, i32
  tile.store %other, %s : !tile.ptr<i32>
  tile.barrier
  %x = tile.load %mp : tensor<16x!tile.ptr<i32>>
  %o = tile.addptr %out, %base : !tile.ptr<i32>, i32
  %os = tile.splat %o : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %op = tile.addptr %os, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %op, %x : tensor<16x!tile.ptr<i32>>
  return
}

// The next program's slot: no store of this program wrote it.
// CHECK-LABEL: func.func @other_programs_slot
// CHECK:         tile.barrier
// CHECK:         tile.load %{{.*}} : tensor<16x!tile.ptr<i32>>
func.func @other_programs_slot(%scratch: !tile.ptr<i32>, %out: !tile.ptr<i32>,
                               %s: i32) attributes {tile.kernel} {
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c16 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<i32>, i32
  %lane = tile.range 0, 16 : tensor<16xi32>
  %ss = tile.splat %s : i32 -> tensor<16xi32>
  %v = arith.muli %lane, %ss : tensor<16xi32>
  %ms = tile.splat %mine : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %mp = tile.addptr %ms, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %mp, %v : tensor<16x!tile.ptr<i32>>
  tile.barrier
  %next = tile.addptr %mine, %c16 : !tile.ptr<i32>, i32
  %ns = tile.splat %next : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %np = tile.addptr %ns, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %x = tile.load %np : tensor<16x!tile.ptr<i32>>
  %o = tile.addptr %out, %base : !tile.ptr<i32>, i32
  %os = tile.splat %o : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %op = tile.addptr %os, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %op, %x : tensor<16x!tile.ptr<i32>>
  return
}

// A masked store reloaded without a mask: lanes at or past %n were not
// written by this store, so the reload may read older values there.
// CHECK-LABEL: func.func @store_mask_not_implied
// CHECK:         tile.barrier
// CHECK:         tile.load %{{.*}} : tensor<16x!tile.ptr<i32>>
func.func @store_mask_not_implied(%scratch: !tile.ptr<i32>, %out: !tile.ptr<i32>,
                                  %s: i32, %n: i32) attributes {tile.kernel} {
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c16 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<i32>, i32
  %lane = tile.range 0, 16 : tensor<16xi32>
  %ss = tile.splat %s : i32 -> tensor<16xi32>
  %v = arith.muli %lane, %ss : tensor<16xi32>
  %nn = tile.splat %n : i32 -> tensor<16xi32>
  %m = arith.cmpi slt, %lane, %nn : tensor<16xi32>
  %ms = tile.splat %mine : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %mp = tile.addptr %ms, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %mp, %v, %m : tensor<16x!tile.ptr<i32>>
  tile.barrier
  %x = tile.load %mp : tensor<16x!tile.ptr<i32>>
  %o = tile.addptr %out, %base : !tile.ptr<i32>, i32
  %os = tile.splat %o : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %op = tile.addptr %os, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %op, %x : tensor<16x!tile.ptr<i32>>
  return
}

// The pieces of a loop whose trip count is known only at run time.
// CHECK-LABEL: func.func @trip_count_not_constant
// CHECK:         tile.barrier
// CHECK:         tile.load %{{.*}} : tensor<16x!tile.ptr<i32>>
func.func @trip_count_not_constant(%scratch: !tile.ptr<i32>, %out: !tile.ptr<i32>,
                                   %s: i32, %pieces: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c16 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<i32>, i32
  %lane4 = tile.range 0, 4 : tensor<4xi32>
  scf.for %p = %c0 to %pieces step %c1 : i32 {
    %ps = tile.splat %p : i32 -> tensor<4xi32>
    %v = arith.addi %ps, %lane4 : tensor<4xi32>
    %off = arith.muli %p, %c4 : i32
    %at = tile.addptr %mine, %off : !tile.ptr<i32>, i32
    %as = tile.splat %at : !tile.ptr<i32> -> tensor<4x!tile.ptr<i32>>
    %ap = tile.addptr %as, %lane4 : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
    tile.store %ap, %v : tensor<4x!tile.ptr<i32>>
  }
  tile.barrier
  %lane = tile.range 0, 16 : tensor<16xi32>
  %ms = tile.splat %mine : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %mp = tile.addptr %ms, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %x = tile.load %mp : tensor<16x!tile.ptr<i32>>
  %o = tile.addptr %out, %base : !tile.ptr<i32>, i32
  %os = tile.splat %o : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %op = tile.addptr %os, %lane : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %op, %x : tensor<16x!tile.ptr<i32>>
  return
}

// A stored value the pass cannot evaluate per element of a reload that
// reads it at other lanes (a reduction's result, reloaded shifted by one).
// CHECK-LABEL: func.func @value_not_rematerializable
// CHECK:         tile.barrier
// CHECK:         tile.load %{{.*}} : tensor<8x!tile.ptr<f32>>
func.func @value_not_rematerializable(%x: !tile.ptr<f32>, %scratch: !tile.ptr<f32>,
                                      %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %base = arith.muli %pid, %c16 : i32
  %mine = tile.addptr %scratch, %base : !tile.ptr<f32>, i32
  %r8 = tile.range 0, 8 : tensor<8xi32>
  %r8c = tile.expand_dims %r8 {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %c8v = arith.constant dense<8> : tensor<8x1xi32>
  %rows = arith.muli %r8c, %c8v : tensor<8x1xi32>
  %rb = tile.broadcast %rows : tensor<8x1xi32> -> tensor<8x8xi32>
  %r8r = tile.expand_dims %r8 {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %cb = tile.broadcast %r8r : tensor<1x8xi32> -> tensor<8x8xi32>
  %off = arith.addi %rb, %cb : tensor<8x8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %off : tensor<8x8x!tile.ptr<f32>>, tensor<8x8xi32>
  %t = tile.load %xp : tensor<8x8x!tile.ptr<f32>>
  %sum = tile.reduce sum %t {axis = 1 : i32} : tensor<8x8xf32> -> tensor<8xf32>
  %ms = tile.splat %mine : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %mp = tile.addptr %ms, %r8 : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %mp, %sum : tensor<8x!tile.ptr<f32>>
  %shift = tile.addptr %mine, %c1 : !tile.ptr<f32>, i32
  %ss = tile.splat %shift : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %sp = tile.addptr %ss, %r8 : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %c7 = arith.constant dense<7> : tensor<8xi32>
  %m = arith.cmpi slt, %r8, %c7 : tensor<8xi32>
  tile.barrier
  %y = tile.load %sp, %m : tensor<8x!tile.ptr<f32>>
  %o = tile.addptr %out, %base : !tile.ptr<f32>, i32
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %op = tile.addptr %os, %r8 : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %op, %y : tensor<8x!tile.ptr<f32>>
  return
}
