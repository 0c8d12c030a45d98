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

    Facts the compiler cannot infer are given as discardable attributes:
    `tile.divisibility` on a kernel argument (a positive power of two: the
    pointer is a multiple of that many bytes, the integer a multiple of it),
    and, on any op, hints for its first result as Triton's
    `tl.multiple_of` / `tl.max_contiguous` give them: `tile.divisibility`
    (each run of contiguous values starts at a multiple of it; in bytes for
    pointers) and `tile.contiguity` (values come in runs of that many
    consecutive integers or elements), each an `i32` for every dimension or
    an `array<i32: ...>` with one positive value per dimension. A hint
    replaces what the analysis infers for that dimension, unchecked:

    ```mlir
    %o = arith.muli %a, %b {tile.divisibility = 16 : i32} : i32
    %r = arith.addi %x, %y {tile.contiguity = array<i32: 64>,
                            tile.divisibility = array<i32: 16>} : tensor<64xi32>
    ```

    A tuning choice of one loop: `tile.num_stages` on an `scf.for` (an i32
    in [0, 8], Triton's `tl.range(..., num_stages=N)`) is the depth of that
    loop's cp.async staging in place of `quire-async-copies`' `stages`; 0
    or 1 leaves the loop unstaged.
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
    /// Module attribute: warps per CTA the kernels were laid out for.
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return ::llvm::StringLiteral("tile.num_warps");
    }
    /// Function attribute set by the GPU lowering: dynamic shared memory
    /// bytes a launch must provide.
    static constexpr ::llvm::StringLiteral getSharedBytesAttrName() {
      return ::llvm::StringLiteral("tile.shared_bytes");
    }
    /// Integer argument attribute: the pointer (or integer) argument is a
    /// multiple of this many bytes (elements for integers); a power of two.
    /// On an op, a hint for its first result (see the dialect description).
    static constexpr ::llvm::StringLiteral getDivisibilityAttrName() {
      return ::llvm::StringLiteral("tile.divisibility");
    }
    /// On an op, a hint for its first result: runs of consecutive values.
    static constexpr ::llvm::StringLiteral getContiguityAttrName() {
      return ::llvm::StringLiteral("tile.contiguity");
    }
    /// On an scf.for: the cp.async staging depth of this loop (Triton's
    /// `tl.range(..., num_stages=N)`), instead of quire-async-copies'
    /// `stages`; an i32 in [0, 8], 0 or 1 leaving the loop unstaged.
    static constexpr ::llvm::StringLiteral getNumStagesAttrName() {
      return ::llvm::StringLiteral("tile.num_stages");
    }
    /// On a kernel: warps the CTA runs beyond the module's `tile.num_warps`
    /// that only issue copies (quire-warp-specialize): 1 or 4 for TMA
    /// copies; for cp.async copies as many as the consumer warps, or a
    /// warpgroup's 4 (fewer where the consumers are fewer).
    static constexpr ::llvm::StringLiteral getProducerWarpsAttrName() {
      return ::llvm::StringLiteral("tile.producer_warps");
    }
    /// On an scf.for quire-async-copies staged with TMA and release
    /// mbarriers: how many iterations ahead of the one it computes an
    /// iteration issues copies (an i32 >= 1; quire-warp-specialize reads
    /// it).
    static constexpr ::llvm::StringLiteral getTmaAheadAttrName() {
      return ::llvm::StringLiteral("tile.tma_ahead");
    }
    /// On an scf.for quire-async-copies staged for quire-pingpong (a unit
    /// attribute): its copies run S - 2 iterations ahead, so the stage
    /// iteration i - 1 read stays intact through iteration i.
    static constexpr ::llvm::StringLiteral getPingpongAttrName() {
      return ::llvm::StringLiteral("tile.pingpong");
    }
    /// On a tile op in a warp-specialized kernel's producer branch: the op
    /// computes the elements of the threads this many places above the
    /// executing one (an i32 > 0, a multiple of 128: a producer warpgroup
    /// issuing the copies of every consumer warpgroup,
    /// quire-warp-specialize; the lowering adds it to the thread index).
    static constexpr ::llvm::StringLiteral getThreadOffsetAttrName() {
      return ::llvm::StringLiteral("tile.thread_offset");
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
