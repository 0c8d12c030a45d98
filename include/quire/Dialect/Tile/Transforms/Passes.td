//===- Passes.td - Tile dialect transformations ------------*- tablegen -*-===//

#ifndef QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AssignLayouts : Pass<"quire-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "give every tensor of every kernel a distributed layout";
  let description = [{
    Expects kernels (`func.func` with `tile.kernel`) without `tile.paged_load`
    (run `quire-lower-paged-loads` first). Guarantees that every tensor value
    in them has a `#tile.blocked` or `#tile.slice` encoding and that
    `tile.convert_layout` stands wherever a value must change layout; sets
    `tile.num_warps` on the module. Other functions are left alone.

    Memory accesses anchor the choice: tensors loaded or stored get the
    default blocked layout of their shape with 16-byte accesses per thread
    along the contiguous dimension. Values computed elementwise from each
    other share a layout; reductions produce slice layouts and expand_dims
    consume them; transposes permute a layout without moving data.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "warps per CTA (a power of two, 1 to 32)">
  ];
  let dependentDialects = ["::mlir::quire::tile::TileDialect"];
}

def LowerPagedLoads : Pass<"quire-lower-paged-loads", "::mlir::ModuleOp"> {
  let summary = "rewrite tile.paged_load into block-table loads, index vectors and tile.load";
  let description = [{
    Expects tile IR without layouts. Guarantees that no `tile.paged_load`
    remains; each became plain tile ops:

    1. Block-table entries: one scalar load per tile when the tile provably
       lies in one page (BLOCK_N <= page_size, page_size % BLOCK_N == 0 and
       the first token a multiple of BLOCK_N), else one entry per row, read
       through pointers that are constant over each page so the GPU
       lowering issues one load per page a thread touches. Entries are read
       only for pages that hold a token below `seq_len`.
    2. In an `scf.for` whose induction variable is the first token (plus a
       loop-invariant value), the entries of iteration i+1 are loaded in
       iteration i and carried in the loop, so their latency hides behind
       the cache loads. Loads that share a block table, first token, bound
       and shape (K and V) share the entries.
    3. Row offsets `entry * page_stride + (t % page) * token_stride +
       head * head_stride` are an i64 register vector, broadcast against the
       column range; `t / page` and `t % page` are shifts and masks for
       power-of-two pages. Rows at or past `seq_len` are masked and read 0.
    4. Nothing goes through memory other than the block table and the
       cache; the offsets carry the contiguity and divisibility facts
       (column range, stride divisibility) the GPU lowering vectorizes on.

    Other ops are left alone; loop-invariant parts are hoisted by the
    `loop-invariant-code-motion` pass that the Quire pipeline runs next.
  }];
  let options = [
    Option<"prefetch", "prefetch", "bool", "true",
           "load the next iteration's block-table entries one iteration ahead">,
    Option<"singlePage", "single-page", "bool", "true",
           "one scalar entry per tile when the tile provably lies in one page">,
    Option<"shifts", "shifts", "bool", "true",
           "shifts and masks instead of divisions for power-of-two pages">
  ];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_TD
