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

#endif // QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_TD
