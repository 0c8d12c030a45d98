// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3" | FileCheck %s
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=0" | FileCheck %s --check-prefix=OFF
// quire-async-copies stages a loop's large tiles that feed no dot locally:
// each thread copies its own elements of the load's layout into shared
// memory with cp.async, `stages - 1` iterations ahead, and reads them back
// itself, so the waits need no barrier; masked elements come back as zero
// and a different `other` is selected back. Tiles under 1 KB stay with the
// register prefetch of quire-pipeline-loads; with the staging off, so do
// the large ones.

// Triton's fused softmax: programs step over rows of 1024 f32.
// CHECK-LABEL: func.func @softmax_rows
// CHECK-COUNT-2: tile.async_copy %{{.*}} mask %{{.*}} into stage %{{.*}} {buffer = 0 : i32, contig = 0 : i32, local, stages = 3 : i32} : tensor<1024x!tile.ptr<f32>
// CHECK:         scf.for
// CHECK-NEXT:      tile.async_wait {local, pending = 1 : i32}
// CHECK:           tile.async_copy %{{.*}} {buffer = 0 : i32, contig = 0 : i32, local, stages = 3 : i32}
// CHECK-NOT:       tile.load
// CHECK:           %[[X:.*]] = tile.async_local_load %{{.*}} {buffer = 0 : i32, contig = 0 : i32, local, stages = 3 : i32} : tensor<1024xf32
// CHECK:           arith.select %{{.*}}, %[[X]], %{{.*}} : tensor<1024xi1
// CHECK:           tile.reduce max
// CHECK:           tile.store
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.async_wait {local, pending = 0 : i32}
// OFF-LABEL: func.func @softmax_rows
// OFF-NOT:   tile.async
// OFF:       scf.for
func.func @softmax_rows(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                        %x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                        %stride: i32 {tile.divisibility = 16 : i32},
                        %rows: i32, %cols: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = tile.program_id x
  %np = tile.num_programs x
  %cols_r = tile.range 0, 1024 : tensor<1024xi32>
  %ncols = tile.splat %cols : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %cols_r, %ncols : tensor<1024xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  scf.for %row = %pid to %rows step %np : i32 {
    %off = arith.muli %row, %stride : i32
    %base = tile.addptr %x, %off : !tile.ptr<f32>, i32
    %bs = tile.splat %base : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %p = tile.addptr %bs, %cols_r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %v = tile.load %p, %m, %ninf : tensor<1024x!tile.ptr<f32>>
    %mx = tile.reduce max %v {axis = 0 : i32} : tensor<1024xf32> -> f32
    %mxs = tile.splat %mx : f32 -> tensor<1024xf32>
    %d = arith.subf %v, %mxs : tensor<1024xf32>
    %e = math.exp %d : tensor<1024xf32>
    %obase = tile.addptr %out, %off : !tile.ptr<f32>, i32
    %os = tile.splat %obase : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %op = tile.addptr %os, %cols_r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %op, %e, %m : tensor<1024x!tile.ptr<f32>>
  }
  return
}

// 64 f32 (256 bytes): prefetched in registers, not staged.
// CHECK-LABEL: func.func @small_rows
// CHECK-NOT:     tile.async
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64xf32
// CHECK:           tile.load %{{.*}} : tensor<64x!tile.ptr<f32>
func.func @small_rows(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %rows: i32) attributes {tile.kernel} {
  %pid = tile.program_id x
  %np = tile.num_programs x
  %c64 = arith.constant 64 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  scf.for %row = %pid to %rows step %np : i32 {
    %off = arith.muli %row, %c64 : i32
    %base = tile.addptr %x, %off : !tile.ptr<f32>, i32
    %bs = tile.splat %base : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %p = tile.addptr %bs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %e = math.exp %v : tensor<64xf32>
    %obase = tile.addptr %out, %off : !tile.ptr<f32>, i32
    %os = tile.splat %obase : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %op, %e : tensor<64x!tile.ptr<f32>>
  }
  return
}
