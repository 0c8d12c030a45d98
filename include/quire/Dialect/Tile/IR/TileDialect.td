//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect: Triton-style tile programs over pointers, plus the
// paged tile load. Tensors are builtin ranked tensors; they live in registers.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_DIALECT_TILE_IR_TILEDIALECT_TD
#define QUIRE_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::quire::tile";
  let summary = "Tile programs over global pointers, with paged tile loads";
  let description = [{
    A tile program is a `func.func` marked `tile.kernel`, run once per program
    of a launch grid (`tile.program_id`). Its values are scalars, `!tile.ptr`
    pointers and builtin ranked tensors of them; `arith`, `math` and `scf`
    operate on those tensors elementwise. `tile.load`/`tile.store` move tensors
    through tensors of pointers, with an optional mask. `tile.paged_load`
    gathers a tile of rows from a paged cache through a block table.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Unit attribute marking a `func.func` as a kernel entry point.
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("tile.kernel");
    }
    /// Integer argument attribute: the pointer (or integer) argument is a
    /// multiple of this many bytes (elements for integers); a power of two.
    /// Module attribute: warps per CTA the kernels were laid out for.
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return ::llvm::StringLiteral("tile.num_warps");
    }
    /// Function attribute set by the GPU lowering: dynamic shared memory
    /// bytes a launch must provide.
    static constexpr ::llvm::StringLiteral getSharedBytesAttrName() {
      return ::llvm::StringLiteral("tile.shared_bytes");
    }
    static constexpr ::llvm::StringLiteral getDivisibilityAttrName() {
      return ::llvm::StringLiteral("tile.divisibility");
    }
  }];
}

// Every tensor a tile op takes or produces lives in registers: its shape is
// static, with no zero-size dimension (tile::verifyTensorShapes).
def Tile_TensorShapes : NativeOpTrait<"TensorShapesTrait"> {
  let cppNamespace = "::mlir::quire::tile";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, !listconcat(traits, [Tile_TensorShapes])>;

#endif // QUIRE_DIALECT_TILE_IR_TILEDIALECT_TD
