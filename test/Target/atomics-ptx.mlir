// Atomics on the GPU: one predicated `atom` per element, by the thread that
// owns it (thread 0 for a scalar; one replica of a replicated element), with
// the semantic and scope of the op; the old values of elements other threads
// hold too are passed on through shared memory (the owners write, a barrier,
// every thread reads) when they are used. The semantic is the program's: a
// release is preceded by every thread's fence and a barrier, an acquire
// followed by a barrier and every thread's fence; relaxed atomics have
// neither. f32 max/min are two integer atomics on the bits.
// RUN: quirec %s --sm 90 | FileCheck %s
// RUN: quirec %s --sm 90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// CHECK-LABEL: .entry atomics(
// The counter (acq_rel): thread 0 adds, everyone reads the old value.
// CHECK:       setp.eq.b32 [[T0:%p[0-9]+]]
// CHECK:       fence.acq_rel.gpu;
// CHECK-NEXT:  // end inline asm
// CHECK-NEXT:  bar.sync 0;
// CHECK:       @[[T0]] atom.acq_rel.gpu.global.add.u32
// CHECK:       st.shared.b32
// CHECK:       bar.sync 0;
// CHECK:       ld.shared.b32
// CHECK:       bar.sync 0;
// CHECK:       fence.acq_rel.gpu;
// The histogram (relaxed): 64 elements over 128 threads, one on each of 64
// threads (the others hold replicas), each by its owner, no fence.
// CHECK-NOT:   fence
// CHECK:       @{{%p[0-9]+}} atom.relaxed.gpu.global.add.u32
// CHECK-NOT:   atom.relaxed
// CHECK-NOT:   fence
// CHECK:       ld.shared
// CHECK:       fence.acq_rel.gpu;
// CHECK:       atom.acq_rel.gpu.global.max.s32
// CHECK:       atom.acq_rel.gpu.global.min.u32
// A release at cta scope: a fence before, none after.
// CHECK:       fence.acq_rel.cta;
// CHECK:       atom.release.cta.global.max.u32
// CHECK-NOT:   fence.acq_rel.cta
// CHECK:       fence.acq_rel.sys;
// CHECK:       atom.acq_rel.sys.global.xor.b32
// CHECK:       atom.acq_rel.gpu.global.exch.b32
// CHECK:       atom.acq_rel.gpu.global.add.f64
// CHECK:       atom.acquire.cta.global.cas.b64
// CHECK:       bar.sync 0;
// CHECK-NEXT:  // begin inline asm
// CHECK-NEXT:  fence.acq_rel.cta;
// CHECK:       ret;
module attributes {tile.num_warps = 4 : i32} {
func.func @atomics(%counter: !tile.ptr<i32>, %out: !tile.ptr<i32>,
                   %hist: !tile.ptr<i32>, %f: !tile.ptr<f32>,
                   %d: !tile.ptr<f64>, %x: !tile.ptr<i64>) attributes {tile.kernel} {
  %pid = tile.program_id x
  %one = arith.constant 1 : i32
  %old = tile.atomic_rmw add, %counter, %one : !tile.ptr<i32>
  %po = tile.addptr %out, %pid : !tile.ptr<i32>, i32
  tile.store %po, %old : !tile.ptr<i32>
  %r = tile.range 0, 64 : tensor<64xi32>
  %c4 = arith.constant dense<4> : tensor<64xi32>
  %bin = arith.remsi %r, %c4 : tensor<64xi32>
  %hs = tile.splat %hist : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %hp = tile.addptr %hs, %bin : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %ones = arith.constant dense<1> : tensor<64xi32>
  %h = tile.atomic_rmw add, %hp, %ones sem(relaxed) : tensor<64x!tile.ptr<i32>>
  %os = tile.splat %out : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %op, %h : tensor<64x!tile.ptr<i32>>
  %pf = arith.sitofp %pid : i32 to f32
  %fm = tile.atomic_rmw max, %f, %pf : !tile.ptr<f32>
  %um = tile.atomic_rmw umax, %counter, %pid sem(release) scope(cta) : !tile.ptr<i32>
  %xo = tile.atomic_rmw xor, %counter, %pid scope(sys) : !tile.ptr<i32>
  %xc = tile.atomic_rmw xchg, %counter, %pid : !tile.ptr<i32>
  %dd = arith.sitofp %pid : i32 to f64
  %da = tile.atomic_rmw add, %d, %dd : !tile.ptr<f64>
  %z = arith.constant 0 : i64
  %o64 = arith.constant 1 : i64
  %c = tile.atomic_cas %x, %z, %o64 sem(acquire) scope(cta) : !tile.ptr<i64>
  return
}
}
