// Each form quire-forward-stores forwards computes, forwarded, exactly what
// it computed through memory: quire-run runs the kernels of
// test/Dialect/Tile/Transforms/forward-stores.mlir before (a) and after the
// pass (b; c: raised to tile.paged_load too) on the same seeded inputs
// (block table [5, 2, 0, 4, 1, 3], a ragged length of 37 tokens: the second
// tile is masked after 5 tokens), and the outputs and scratch buffers
// (poisoned where unwritten) must be byte for byte the same.
// RUN: quire-opt %S/../Dialect/Tile/Transforms/forward-stores.mlir --quire-forward-stores --canonicalize --cse -o %t.b.mlir
// RUN: quire-opt %t.b.mlir --quire-raise-paged-loads --canonicalize --cse -o %t.c.mlir
// RUN: quire-run %S/../Dialect/Tile/Transforms/forward-stores.mlir --kernel seed_scratch_offsets --arg rand:f16:768:seed=7 --arg values:i32:5,2,0,4,1,3 --arg out:%t.seed_scratch_offsets.a.scratch.npy:i64:32 --arg out:%t.seed_scratch_offsets.a.out.npy:f16:64x16 --arg i32:37 --arg i32:128 --arg i32:16
// RUN: quire-run %t.b.mlir --kernel seed_scratch_offsets --arg rand:f16:768:seed=7 --arg values:i32:5,2,0,4,1,3 --arg out:%t.seed_scratch_offsets.b.scratch.npy:i64:32 --arg out:%t.seed_scratch_offsets.b.out.npy:f16:64x16 --arg i32:37 --arg i32:128 --arg i32:16
// RUN: quire-run %t.c.mlir --kernel seed_scratch_offsets --arg rand:f16:768:seed=7 --arg values:i32:5,2,0,4,1,3 --arg out:%t.seed_scratch_offsets.c.scratch.npy:i64:32 --arg out:%t.seed_scratch_offsets.c.out.npy:f16:64x16 --arg i32:37 --arg i32:128 --arg i32:16
// RUN: cmp %t.seed_scratch_offsets.a.out.npy %t.seed_scratch_offsets.b.out.npy
// RUN: cmp %t.seed_scratch_offsets.a.out.npy %t.seed_scratch_offsets.c.out.npy
// RUN: cmp %t.seed_scratch_offsets.a.scratch.npy %t.seed_scratch_offsets.b.scratch.npy
// RUN: cmp %t.seed_scratch_offsets.a.scratch.npy %t.seed_scratch_offsets.c.scratch.npy
// RUN: quire-run %S/../Dialect/Tile/Transforms/forward-stores.mlir --kernel unrolled_pieces --arg rand:f16:768:seed=7 --arg values:i32:5,2,0,4,1,3 --arg out:%t.unrolled_pieces.a.scratch.npy:i64:32 --arg out:%t.unrolled_pieces.a.out.npy:f16:64x16 --arg i32:37 --arg i32:128 --arg i32:16
// RUN: quire-run %t.b.mlir --kernel unrolled_pieces --arg rand:f16:768:seed=7 --arg values:i32:5,2,0,4,1,3 --arg out:%t.unrolled_pieces.b.scratch.npy:i64:32 --arg out:%t.unrolled_pieces.b.out.npy:f16:64x16 --arg i32:37 --arg i32:128 --arg i32:16
// RUN: quire-run %t.c.mlir --kernel unrolled_pieces --arg rand:f16:768:seed=7 --arg values:i32:5,2,0,4,1,3 --arg out:%t.unrolled_pieces.c.scratch.npy:i64:32 --arg out:%t.unrolled_pieces.c.out.npy:f16:64x16 --arg i32:37 --arg i32:128 --arg i32:16
// RUN: cmp %t.unrolled_pieces.a.out.npy %t.unrolled_pieces.b.out.npy
// RUN: cmp %t.unrolled_pieces.a.out.npy %t.unrolled_pieces.c.out.npy
// RUN: cmp %t.unrolled_pieces.a.scratch.npy %t.unrolled_pieces.b.scratch.npy
// RUN: cmp %t.unrolled_pieces.a.scratch.npy %t.unrolled_pieces.c.scratch.npy
// RUN: quire-run %S/../Dialect/Tile/Transforms/forward-stores.mlir --kernel partial_reload --arg out:%t.partial_reload.a.scratch.npy:i32:32 --arg out:%t.partial_reload.a.out.npy:i32:16 --arg i32:3
// RUN: quire-run %t.b.mlir --kernel partial_reload --arg out:%t.partial_reload.b.scratch.npy:i32:32 --arg out:%t.partial_reload.b.out.npy:i32:16 --arg i32:3
// RUN: cmp %t.partial_reload.a.out.npy %t.partial_reload.b.out.npy
// RUN: cmp %t.partial_reload.a.scratch.npy %t.partial_reload.b.scratch.npy
// RUN: quire-run %S/../Dialect/Tile/Transforms/forward-stores.mlir --kernel pieces_beyond_the_reload --arg out:%t.pieces_beyond_the_reload.a.scratch.npy:i32:32 --arg out:%t.pieces_beyond_the_reload.a.out.npy:i32:16 --arg i32:3
// RUN: quire-run %t.b.mlir --kernel pieces_beyond_the_reload --arg out:%t.pieces_beyond_the_reload.b.scratch.npy:i32:32 --arg out:%t.pieces_beyond_the_reload.b.out.npy:i32:16 --arg i32:3
// RUN: cmp %t.pieces_beyond_the_reload.a.out.npy %t.pieces_beyond_the_reload.b.out.npy
// RUN: cmp %t.pieces_beyond_the_reload.a.scratch.npy %t.pieces_beyond_the_reload.b.scratch.npy
// RUN: quire-run %S/../Dialect/Tile/Transforms/forward-stores.mlir --kernel reload_mask_narrower_than_pieces --arg out:%t.reload_mask_narrower_than_pieces.a.scratch.npy:i32:32 --arg out:%t.reload_mask_narrower_than_pieces.a.out.npy:i32:32 --arg i32:3 --arg i32:21
// RUN: quire-run %t.b.mlir --kernel reload_mask_narrower_than_pieces --arg out:%t.reload_mask_narrower_than_pieces.b.scratch.npy:i32:32 --arg out:%t.reload_mask_narrower_than_pieces.b.out.npy:i32:32 --arg i32:3 --arg i32:21
// RUN: cmp %t.reload_mask_narrower_than_pieces.a.out.npy %t.reload_mask_narrower_than_pieces.b.out.npy
// RUN: cmp %t.reload_mask_narrower_than_pieces.a.scratch.npy %t.reload_mask_narrower_than_pieces.b.scratch.npy
// RUN: quire-run %S/../Dialect/Tile/Transforms/forward-stores.mlir --kernel reload_beyond_stores_masked --arg out:%t.reload_beyond_stores_masked.a.scratch.npy:i32:32 --arg rand:i32:16:seed=3 --arg out:%t.reload_beyond_stores_masked.a.out.npy:i32:32
// RUN: quire-run %t.b.mlir --kernel reload_beyond_stores_masked --arg out:%t.reload_beyond_stores_masked.b.scratch.npy:i32:32 --arg rand:i32:16:seed=3 --arg out:%t.reload_beyond_stores_masked.b.out.npy:i32:32
// RUN: cmp %t.reload_beyond_stores_masked.a.out.npy %t.reload_beyond_stores_masked.b.out.npy
// RUN: cmp %t.reload_beyond_stores_masked.a.scratch.npy %t.reload_beyond_stores_masked.b.scratch.npy
// RUN: quire-run %S/../Dialect/Tile/Transforms/forward-stores.mlir --kernel scalar_reload --arg out:%t.scalar_reload.a.scratch.npy:i32:1 --arg out:%t.scalar_reload.a.out.npy:i32:1 --arg i32:5
// RUN: quire-run %t.b.mlir --kernel scalar_reload --arg out:%t.scalar_reload.b.scratch.npy:i32:1 --arg out:%t.scalar_reload.b.out.npy:i32:1 --arg i32:5
// RUN: cmp %t.scalar_reload.a.out.npy %t.scalar_reload.b.out.npy
// RUN: cmp %t.scalar_reload.a.scratch.npy %t.scalar_reload.b.scratch.npy
// RUN: quire-run %S/../Dialect/Tile/Transforms/forward-stores.mlir --kernel select_decided_by_mask --arg rand:f32:64:seed=2 --arg out:%t.select_decided_by_mask.a.out.npy:f32:64 --arg i32:45
// RUN: quire-run %t.b.mlir --kernel select_decided_by_mask --arg rand:f32:64:seed=2 --arg out:%t.select_decided_by_mask.b.out.npy:f32:64 --arg i32:45
// RUN: cmp %t.select_decided_by_mask.a.out.npy %t.select_decided_by_mask.b.out.npy
