//===- TileTypes.td - Types and type constraints -----------*- tablegen -*-===//
//
// `!tile.ptr<T>` and the constraints ops use for scalars, pointers and
// tensors of either.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_DIALECT_TILE_IR_TILETYPES_TD
#define QUIRE_DIALECT_TILE_IR_TILETYPES_TD

include "quire/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

def Tile_PointerType : TypeDef<Tile_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "pointer to a scalar in global memory";
  let description = [{
    `!tile.ptr<f16>` points to one element in global memory. Tensors of
    pointers (`tensor<64x!tile.ptr<f16>>`) address a tile elementwise;
    `tile.addptr` offsets them in units of elements.
  }];
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType), [{
      return $_get(pointeeType.getContext(), pointeeType);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Tile_TensorDescType : TypeDef<Tile_Dialect, "TensorDesc"> {
  let mnemonic = "tensordesc";
  let summary = "a strided tensor in global memory read and written in blocks";
  let description = [{
    `!tile.tensordesc<tensor<64x32xf16>>` describes a tensor in global
    memory (its base address, shape and strides, made by
    `tile.make_descriptor`) that `tile.descriptor_load` and
    `tile.descriptor_store` access one block of the given shape at a time,
    Triton's `tl.tensor_descriptor`. The block is a static shape of 1 to 5
    dimensions, each a power of two; the element type is an integer or
    float of at least 8 bits.
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::RankedTensorType":$blockType), [{
      return $_get(blockType.getContext(), blockType);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Tile_TensorMapType : TypeDef<Tile_Dialect, "TensorMap"> {
  let mnemonic = "tensormap";
  let summary = "a CUDA tensor map (CUtensorMap) passed by value to a kernel";
  let description = [{
    `!tile.tensormap` is a kernel argument holding the 128-byte tensor map
    a host encoded (`cuTensorMapEncodeTiled`) for the tensor a
    `tile.make_descriptor` describes, passed by value as a
    `__grid_constant__` parameter: what `cp.async.bulk.tensor` (TMA) reads
    the tensor through. The box and swizzle it must be encoded with follow
    from the descriptor's block (docs/passes.md, quire-async-copies).
  }];
}

def Tile_TensorMap : Type<CPred<"::llvm::isa<::mlir::quire::tile::TensorMapType>($_self)">,
                          "tile tensor map", "::mlir::quire::tile::TensorMapType">,
    BuildableType<"::mlir::quire::tile::TensorMapType::get($_builder.getContext())">;

def Tile_TensorDesc : Type<CPred<"::llvm::isa<::mlir::quire::tile::TensorDescType>($_self)">,
                           "tile tensor descriptor",
                           "::mlir::quire::tile::TensorDescType">;

def Tile_Ptr : Type<CPred<"::llvm::isa<::mlir::quire::tile::PointerType>($_self)">,
                    "tile pointer", "::mlir::quire::tile::PointerType">;
def Tile_PtrTensor : RankedTensorOf<[Tile_Ptr]>;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor]>;

// `!tile.ptr<i32>`: how block tables are passed (vLLM stores int32 entries).
def Tile_I32Ptr : Type<
    And<[Tile_Ptr.predicate,
         CPred<"::llvm::cast<::mlir::quire::tile::PointerType>($_self)"
               ".getPointeeType().isSignlessInteger(32)">]>,
    "pointer to i32", "::mlir::quire::tile::PointerType">,
  BuildableType<"::mlir::quire::tile::PointerType::get("
                "::mlir::IntegerType::get($_builder.getContext(), 32))">;

def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
// fp8 (f8E4M3FN, f8E5M2: the KV-cache formats of serving engines) is
// loaded, stored and converted; arithmetic and dots take wider floats.
def Tile_Float : AnyTypeOf<[F16, BF16, F32, F64, F8E4M3FN, F8E5M2]>;
def Tile_Scalar : AnyTypeOf<[Tile_Int, Tile_Float, Tile_Ptr]>;
def Tile_Tensor : RankedTensorOf<[Tile_Int, Tile_Float, Tile_Ptr]>;
def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;
def Tile_OffsetLike : AnyTypeOf<[I32, I64, RankedTensorOf<[I32, I64]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tile_FloatTensor : RankedTensorOf<[Tile_Float]>;
def Tile_NumTensor : RankedTensorOf<[Tile_Int, Tile_Float]>;

#endif // QUIRE_DIALECT_TILE_IR_TILETYPES_TD
