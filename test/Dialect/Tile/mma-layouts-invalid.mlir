// RUN: quire-opt %s --split-input-file --verify-diagnostics
// One case per verifier message of the tensor-core layouts.

// expected-error @+1 {{#tile.mma warpsPerCTA must be two powers of two}}
func.func @mma_rank(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4]}>>) { return }

// -----

// expected-error @+1 {{#tile.mma warpsPerCTA must be two powers of two}}
func.func @mma_pow2(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [3, 1]}>>) { return }

// -----

// expected-error @+1 {{#tile.dot_op opIdx must be 0 (A) or 1 (B), got 2}}
func.func @dot_op_idx(%a: tensor<64x32xf16, #tile.dot_op<{opIdx = 2, parent = #tile.mma<{warpsPerCTA = [1, 1]}>}>>) { return }

// -----

// expected-error @+1 {{#tile.dot_op parent must be a #tile.mma layout}}
func.func @dot_op_parent(%a: tensor<64x32xf16, #tile.dot_op<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>) { return }

// -----

// expected-error @+1 {{#tile.slice parent must be a #tile.blocked, #tile.mma or #tile.slice layout}}
func.func @slice_parent(%a: tensor<64xf16, #tile.slice<{dim = 0, parent = #tile.dot_op<{opIdx = 0, parent = #tile.mma<{warpsPerCTA = [1, 1]}>}>}>>) { return }

// -----

// expected-error @+1 {{#tile.mma kWidth must be 2, 4, 8 or 16, got 32}}
func.func @mma_kwidth(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 32}>>) { return }

// -----

// expected-error @+1 {{#tile.mma kWidth must be 2, 4, 8 or 16, got 3}}
func.func @mma_kwidth_pow2(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 3}>>) { return }

// -----

// expected-error @+1 {{#tile.mma nWidth must be 1, 2, 4, 8 or 16, got 0}}
func.func @mma_nwidth(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [1, 1], nWidth = 0}>>) { return }

// -----

// expected-error @+1 {{unknown #tile.mma parameter 'lWidth' (expected kWidth, nWidth or mWidth)}}
func.func @mma_key(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [1, 1], lWidth = 4}>>) { return }

// -----

// expected-error @+1 {{duplicate #tile.mma parameter 'kWidth' (expected kWidth, nWidth or mWidth)}}
func.func @mma_key_twice(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 4, kWidth = 8}>>) { return }

// -----

// expected-error @+1 {{#tile.mma mWidth must be 1, 2, 4, 8 or 16, got 32}}
func.func @mma_mwidth(%c: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [1, 1], mWidth = 32}>>) { return }
