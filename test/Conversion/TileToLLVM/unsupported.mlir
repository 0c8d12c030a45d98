// RUN: quire-opt %s --split-input-file --verify-diagnostics --quire-convert-tile-to-llvm
// RUN: not quire-opt %s --split-input-file "--quire-convert-tile-to-llvm=sm=75" 2>&1 | FileCheck %s --check-prefix=SM
// What the GPU lowering rejects, with a located "not supported" error.

// SM: error: not supported: sm_75 (Quire targets sm_80 and newer)

#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  // expected-error @+1 {{not supported on the GPU: functions that are not kernels (mark entry points tile.kernel)}}
  func.func @helper(%x: !tile.ptr<f32>) {
    return
  }
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @non_splat_constant(%x: !tile.ptr<i32>) attributes {tile.kernel} {
    // expected-error @+2 {{not supported on the GPU: non-splat tensor constants}}
    // expected-error @+1 {{failed to legalize operation 'arith.constant'}}
    %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #blocked>
    return
  }
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @erf(%p: !tile.ptr<f32>) attributes {tile.kernel} {
    %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #blocked>
    %x = tile.load %ps : tensor<128x!tile.ptr<f32>, #blocked>
    // expected-error @+1 {{not supported on the GPU for 'f32'}}
    %e = math.erf %x : tensor<128xf32, #blocked>
    tile.store %ps, %e : tensor<128x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @fp8_arithmetic(%p: !tile.ptr<f8E4M3FN>) attributes {tile.kernel} {
    %ps = tile.splat %p : !tile.ptr<f8E4M3FN> -> tensor<512x!tile.ptr<f8E4M3FN>, #blocked>
    %a = tile.load %ps : tensor<512x!tile.ptr<f8E4M3FN>, #blocked>
    // expected-error @+1 {{'arith.addf' op not supported on the GPU on 'f8E4M3FN' values: fp8 is loaded, stored and converted (arith.extf to f16, bf16 or f32 first)}}
    %s = arith.addf %a, %a : tensor<512xf8E4M3FN, #blocked>
    return
  }
}

// -----

#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @fp8_reduce(%p: !tile.ptr<f8E5M2>) attributes {tile.kernel} {
    %ps = tile.splat %p : !tile.ptr<f8E5M2> -> tensor<512x!tile.ptr<f8E5M2>, #blocked>
    %a = tile.load %ps : tensor<512x!tile.ptr<f8E5M2>, #blocked>
    // expected-error @+1 {{'tile.reduce' op not supported on the GPU on 'f8E5M2' values}}
    %s = tile.reduce max %a {axis = 0 : i32} : tensor<512xf8E5M2, #blocked> -> f8E5M2
    return
  }
}
