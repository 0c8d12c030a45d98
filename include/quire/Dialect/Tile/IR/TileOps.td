//===- TileOps.td - Tile dialect operations ----------------*- tablegen -*-===//
//
// Triton-parity tile ops (program ids, ranges, shape ops, pointer arithmetic,
// masked loads/stores, dot, reduce) and `tile.paged_load`.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_DIALECT_TILE_IR_TILEOPS_TD
#define QUIRE_DIALECT_TILE_IR_TILEOPS_TD

include "quire/Dialect/Tile/IR/TileDialect.td"
include "quire/Dialect/Tile/IR/TileTypes.td"
include "quire/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tile_ProgramAxisAttr : I32EnumAttr<"ProgramAxis", "launch grid axis", [
    I32EnumAttrCase<"X", 0, "x">,
    I32EnumAttrCase<"Y", 1, "y">,
    I32EnumAttrCase<"Z", 2, "z">]> {
  let cppNamespace = "::mlir::quire::tile";
}

def Tile_RegisterActionAttr : I32EnumAttr<"RegisterAction",
    "setmaxnreg action", [
    I32EnumAttrCase<"Inc", 0, "inc">,
    I32EnumAttrCase<"Dec", 1, "dec">]> {
  let cppNamespace = "::mlir::quire::tile";
}

def Tile_TurnActionAttr : I32EnumAttr<"TurnAction",
    "warpgroup turn action", [
    I32EnumAttrCase<"Start", 0, "start">,
    I32EnumAttrCase<"Wait", 1, "wait">,
    I32EnumAttrCase<"Pass", 2, "pass">,
    I32EnumAttrCase<"End", 3, "end">]> {
  let cppNamespace = "::mlir::quire::tile";
}

def Tile_ReduceKindAttr : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Xor", 3, "xor">]> {
  let cppNamespace = "::mlir::quire::tile";
}

def Tile_AtomicKindAttr : I32EnumAttr<"AtomicKind", "atomic read-modify-write", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"UMax", 3, "umax">,
    I32EnumAttrCase<"UMin", 4, "umin">,
    I32EnumAttrCase<"And", 5, "and">,
    I32EnumAttrCase<"Or", 6, "or">,
    I32EnumAttrCase<"Xor", 7, "xor">,
    I32EnumAttrCase<"Xchg", 8, "xchg">]> {
  let cppNamespace = "::mlir::quire::tile";
}

def Tile_MemSemanticAttr : I32EnumAttr<"MemSemantic", "memory ordering", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::mlir::quire::tile";
}

def Tile_MemScopeAttr : I32EnumAttr<"MemScope", "threads an ordering covers", [
    I32EnumAttrCase<"Gpu", 0, "gpu">,
    I32EnumAttrCase<"Cta", 1, "cta">,
    I32EnumAttrCase<"Sys", 2, "sys">]> {
  let cppNamespace = "::mlir::quire::tile";
}

//===----------------------------------------------------------------------===//
// Launch grid
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_ProgramAxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs y
    ```
  }];
  let arguments = (ins Tile_ProgramAxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

//===----------------------------------------------------------------------===//
// Tensor construction and shape
//===----------------------------------------------------------------------===//

def Tile_RangeOp : Tile_Op<"range", [Pure]> {
  let summary = "the integers start .. end-1 as a 1-D tensor";
  let description = [{
    ```mlir
    %r = tile.range 0, 64 : tensor<64xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "a tensor with every element equal to a scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : f32 -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeat a tensor along its size-1 dimensions";
  let description = [{
    ```mlir
    %b = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a size-1 dimension";
  let description = [{
    ```mlir
    %e = tile.expand_dims %x {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    Result dimension `i` is source dimension `order[i]`. Without `order` the
    dimensions are reversed (a 2-D transpose).

    ```mlir
    %t = tile.trans %k : tensor<64x128xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, OptionalAttr<DenseI32ArrayAttr>:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The permutation, with the default (reversal) filled in.
    ::llvm::SmallVector<int32_t> getPermutation();
  }];
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure,
    TypesMatchWith<"result type matches ptr type", "ptr", "result", "$_self">]> {
  let summary = "offset pointers by a number of elements";
  let description = [{
    Element `i` of the result is `ptr[i] + offset[i] * sizeof(pointee)`.
    `ptr` and `offset` have the same shape (both scalars or both tensors).

    ```mlir
    %p = tile.addptr %base, %offs : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_OffsetLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>,
    TypesMatchWith<"result type matches the pointee type of ptr",
                   "ptr", "result", "::mlir::quire::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 of the same shape as ptr",
                   "ptr", "mask", "::mlir::quire::tile::getI1SameShape($_self)">,
    OptionalTypesMatchWith<"other type matches the result type",
                   "ptr", "other", "::mlir::quire::tile::getPointeeType($_self)">]> {
  let summary = "load a tensor (or scalar) through pointers, with a mask";
  let description = [{
    Lanes where `mask` is false issue no memory access and read `other`
    (undefined when `other` is absent).

    ```mlir
    %x = tile.load %ptrs, %mask, %zero : tensor<64x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                       Optional<Tile_Value>:$other);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ptr,
                   CArg<"::mlir::Value", "{}">:$mask,
                   CArg<"::mlir::Value", "{}">:$other)>
  ];
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value type matches the pointee type of ptr",
                   "ptr", "value", "::mlir::quire::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 of the same shape as ptr",
                   "ptr", "mask", "::mlir::quire::tile::getI1SameShape($_self)">]> {
  let summary = "store a tensor (or scalar) through pointers, with a mask";
  let description = [{
    Lanes where `mask` is false issue no memory access.

    ```mlir
    tile.store %ptrs, %x, %mask : tensor<64x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$value,
                       Optional<Tile_BoolLike>:$mask);
  let assemblyFormat = "$ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)";
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"value type matches the pointee type of ptr",
                   "ptr", "val", "::mlir::quire::tile::getPointeeType($_self)">,
    TypesMatchWith<"result type matches the pointee type of ptr",
                   "ptr", "result", "::mlir::quire::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 of the same shape as ptr",
                   "ptr", "mask", "::mlir::quire::tile::getI1SameShape($_self)">]> {
  let summary = "atomic read-modify-write through pointers (Triton's tl.atomic_*)";
  let description = [{
    For each element whose `mask` is true, atomically replaces `*ptr` by
    `kind(*ptr, val)` and returns the value it held (undefined where the
    mask is false). `add` takes 32- and 64-bit integers and floats; `max` and
    `min` (signed), `umax` and `umin` (unsigned) integers, and `max`/`min`
    f32 too; `and`, `or`, `xor` integers; `xchg` any 32- or 64-bit element.
    `sem` orders the program's other memory accesses around it (default
    `acq_rel`): a release orders every thread's earlier accesses before it, an
    acquire every thread's later ones after it; `scope` says whose (default
    `gpu`). Elements that two threads of a program hold (a replicated layout,
    and a scalar, which every thread holds) are updated once.

    ```mlir
    %old = tile.atomic_rmw add, %ptrs, %ones, %mask sem(relaxed) : tensor<64x!tile.ptr<i32>>
    %n = tile.atomic_rmw add, %counter, %one : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind, Tile_PtrLike:$ptr,
                       Tile_Value:$val, Optional<Tile_BoolLike>:$mask,
                       DefaultValuedAttr<Tile_MemSemanticAttr,
                         "::mlir::quire::tile::MemSemantic::AcqRel">:$sem,
                       DefaultValuedAttr<Tile_MemScopeAttr,
                         "::mlir::quire::tile::MemScope::Gpu">:$scope);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $kind `,` $ptr `,` $val (`,` $mask^)? (`sem` `(` $sem^ `)`)?
    (`scope` `(` $scope^ `)`)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"cmp type matches the pointee type of ptr",
                   "ptr", "cmp", "::mlir::quire::tile::getPointeeType($_self)">,
    TypesMatchWith<"value type matches the pointee type of ptr",
                   "ptr", "val", "::mlir::quire::tile::getPointeeType($_self)">,
    TypesMatchWith<"result type matches the pointee type of ptr",
                   "ptr", "result", "::mlir::quire::tile::getPointeeType($_self)">]> {
  let summary = "atomic compare-and-swap (Triton's tl.atomic_cas)";
  let description = [{
    For each element, atomically: if `*ptr == cmp` then `*ptr = val`;
    returns the value `*ptr` held. 32- and 64-bit integers and floats (the
    comparison is of the bits). `sem` and `scope` as for tile.atomic_rmw.

    ```mlir
    %old = tile.atomic_cas %lock, %zero, %one sem(acquire) scope(gpu) : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$cmp, Tile_Value:$val,
                       DefaultValuedAttr<Tile_MemSemanticAttr,
                         "::mlir::quire::tile::MemSemantic::AcqRel">:$sem,
                       DefaultValuedAttr<Tile_MemScopeAttr,
                         "::mlir::quire::tile::MemScope::Gpu">:$scope);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr `,` $cmp `,` $val (`sem` `(` $sem^ `)`)? (`scope` `(` $scope^ `)`)?
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

def Tile_MakeDescriptorOp : Tile_Op<"make_descriptor", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "describe a strided tensor in global memory";
  let description = [{
    The tensor of `shape` (i32 per dimension) at `base`, element (i0, i1,
    ...) at `base + i0 * strides[0] + i1 * strides[1] + ...` (i64, in
    elements), accessed in blocks of the result type's block shape by
    `tile.descriptor_load` / `tile.descriptor_store` (Triton's
    `tl.make_tensor_descriptor`, and a host `TensorDescriptor` argument).
    Elements outside the shape read as zero, or NaN with `nan_padding`.

    With `tensormap`, `%tm` is a host-encoded tensor map of the same tensor
    (a `!tile.tensormap` kernel argument; a host `TensorDescriptor` passes
    one when TMA is on): the block's loads may then be staged with
    `cp.async.bulk.tensor` (`tile.tensormap_block`, quire-async-copies).
    Only for 2-D blocks of 16-bit elements, at most 256 rows and at least
    32 bytes along the last dimension, zero padding.

    ```mlir
    %d = tile.make_descriptor %a, shape [%m, %k], strides [%lda, %c1]
        : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I32>:$shape,
                       Variadic<I64>:$strides, Optional<Tile_TensorMap>:$tensormap,
                       UnitAttr:$nan_padding);
  let results = (outs Tile_TensorDesc:$result);
  let assemblyFormat = [{
    $base `,` `shape` `[` $shape `]` `,` `strides` `[` $strides `]`
    (`,` `tensormap` $tensormap^)? attr-dict `:` type($base) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [MemoryEffects<[MemRead]>]> {
  let summary = "load one block of a described tensor";
  let description = [{
    The block of the descriptor's block shape whose first element is at
    `offsets` (i32 per dimension, any values): element (j0, j1, ...) of the
    result is element (offsets[0] + j0, ...) of the tensor, or the
    descriptor's padding (zero, or NaN) where that lies outside its shape.
    The descriptor must be made by a `tile.make_descriptor` in the same
    kernel.

    ```mlir
    %t = tile.descriptor_load %d[%m0, %k0]
        : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $offsets `]` attr-dict `:` type($desc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store one block of a described tensor";
  let description = [{
    Writes `value` (of the descriptor's block type) to the block whose
    first element is at `offsets`; elements outside the tensor's shape are
    not written.

    ```mlir
    tile.descriptor_store %d[%m0, %n0], %c
        : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets,
                       Tile_Tensor:$value);
  let assemblyFormat = [{
    $desc `[` $offsets `]` `,` $value attr-dict `:` type($desc) `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure,
    TypesMatchWith<"result type matches accumulator type", "c", "result", "$_self">]> {
  let summary = "matrix product with accumulator: result = a * b + c";
  let description = [{
    `a` is MxK, `b` is KxN, `c` and the result MxN. `a` and `b` have the same
    element type (f16, bf16 or f32); the accumulator is f32.
    Canonicalization folds an addition of a dot with a zero accumulator into
    the dot: `x + dot(a, b, 0)` becomes `dot(a, b, x)`, so a kernel's
    `acc += tl.dot(a, b)` accumulates as `acc = tl.dot(a, b, acc)` does (as
    Triton combines them; the sum is rounded once less).

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatTensor:$a, Tile_FloatTensor:$b,
                       Tile_FloatTensor:$c);
  let results = (outs Tile_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `*` type($b) `->` type($c)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tensor along one axis with sum, max, min or xor";
  let description = [{
    The result drops dimension `axis`; reducing a 1-D tensor gives a scalar.
    `max`/`min` of floats propagate NaN (as `arith.maximumf`).

    ```mlir
    %m = tile.reduce max %s {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, Tile_NumTensor:$src,
                       I32Attr:$axis);
  let results = (outs AnyTypeOf<[Tile_Int, Tile_Float, Tile_NumTensor]>:$result);
  let assemblyFormat = [{
    $kind $src attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_WarpAnyOp : Tile_Op<"warp_any", [Pure]> {
  let summary = "whether any element the executing warp holds is true";
  let description = [{
    True in a warp where some element of `mask` that its threads hold is
    true (on the GPU, each thread's elements combined, then `vote.sync.any`
    over the warp); the interpreter, which runs a program as one thread,
    combines all of `mask`. The value may differ between the warps of a
    program, but not within one, so a branch on it does not diverge. It is
    meant for skipping work that would leave values unchanged: both sides
    of such a branch must compute the same elements, as
    `quire-skip-unit-rescale` guards a multiply by factors that are all 1.

    ```mlir
    %any = tile.warp_any %ne : tensor<128xi1, #tile.slice<{dim = 1, parent = #mma}>>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$mask);
  let results = (outs I1:$result);
  let assemblyFormat = "$mask attr-dict `:` type($mask)";
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "move a tensor to another distributed layout";
  let description = [{
    Inserted by `quire-assign-layouts` where a value must change layout; the
    GPU lowering moves the data through shared memory (or not at all when
    both layouts place every element in the same thread and register).

    ```mlir
    %b = tile.convert_layout %a : tensor<64xf32, #l0> -> tensor<64xf32, #l1>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies into shared memory (sm_80+)
//===----------------------------------------------------------------------===//

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying a tile into a shared-memory staging buffer";
  let description = [{
    Inserted by `quire-async-copies`. Starts an asynchronous copy (`cp.async`,
    one commit group) of the elements `ptrs` points to into stage `stage`
    (`0 <= stage < stages`) of shared-memory buffer `buffer`; elements whose
    `mask` is false are written as zero and read nothing from global memory.

    The staged tile is the `ptrs` tile, or its transpose with `transposed`,
    stored row-major with dimension `contig` of the staged tile fastest and
    rows padded by 16 bytes: the staging a `tile.convert_layout` to a
    `#tile.dot_op` layout uses, so `tile.async_local_load` reads it with
    `ldmatrix`. With `nvmma` it is stored instead in the swizzled layout
    `wgmma` reads through a matrix descriptor (for `tile.warpgroup_dot`):
    columns of S / element-size elements (S = the contiguous dimension's
    bytes, at most 128), each a run of rows S bytes apart, the 16-byte
    chunks of every 128-byte line XOR-ed with its row bits (CUTLASS's
    Swizzle<log2(S/16), 4, 3>), every stage 1024-byte aligned. The data may
    be read only after a `tile.async_wait`.

    ```mlir
    tile.async_copy %ptrs mask %mask into stage %s {buffer = 0 : i32,
        contig = 0 : i32, stages = 2 : i32, transposed}
        : tensor<64x128x!tile.ptr<f16>, #blocked>, tensor<64x128xi1, #blocked>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Tile_Ptr]>:$ptrs,
                       Optional<RankedTensorOf<[I1]>>:$mask, I32:$stage,
                       I32Attr:$buffer, I32Attr:$contig, I32Attr:$stages,
                       UnitAttr:$transposed, UnitAttr:$nvmma);
  let assemblyFormat = [{
    $ptrs (`mask` $mask^)? `into` `stage` $stage attr-dict `:` type($ptrs) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape of the staged tile (the transpose of ptrs' with `transposed`).
    ::llvm::SmallVector<int64_t> getStagedShape();
  }];
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for asynchronous copies and synchronize the CTA";
  let description = [{
    Waits until at most `pending` of this thread's most recent
    `tile.async_copy` groups are still in flight (`cp.async.wait_group`),
    then synchronizes the threads of the CTA, so every thread sees the data
    the completed copies staged. With `async_proxy`, the data is also made
    visible to the async proxy (`fence.proxy.async` before the barrier), as
    `wgmma` reads it. With `unaligned` the barrier is PTX `barrier.sync`
    rather than `bar.sync` (`barrier.sync.aligned`): the op is in a branch
    only some warps take, the others reaching a barrier of their own
    elsewhere (`quire-pingpong`'s two loops), which an aligned barrier does
    not allow.

    ```mlir
    tile.async_wait {pending = 0 : i32}
    ```
  }];
  let arguments = (ins I32Attr:$pending, UnitAttr:$async_proxy,
                       UnitAttr:$unaligned);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_AsyncLocalLoadOp : Tile_Op<"async_local_load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a staged tile from shared memory into a layout";
  let description = [{
    Reads stage `stage` of shared-memory buffer `buffer`, staged by
    `tile.async_copy` ops with the same `buffer`, `contig` and `stages`, into
    the result's layout (`ldmatrix` for a 16-bit `#tile.dot_op` layout).

    ```mlir
    %k = tile.async_local_load %stage {buffer = 0 : i32, contig = 0 : i32,
        stages = 2 : i32} : tensor<128x64xf16, #tile.dot_op<...>>
    ```
  }];
  let arguments = (ins I32:$stage, I32Attr:$buffer, I32Attr:$contig,
                       I32Attr:$stages);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$stage attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_TensorMapBlockOp : Tile_Op<"tensormap_block", [Pure,
    TypesMatchWith<"result type matches pointers type", "ptrs", "result", "$_self">]> {
  let summary = "the pointers of a tensor map's block (an identity)";
  let description = [{
    Inserted by `quire-lower-descriptors` for a block load through a
    descriptor with a tensor map: the result is `ptrs`, which point to the
    elements of the block at `offsets` (outer dimension first) of the tensor
    `tensormap` describes. `quire-async-copies` stages the load of such
    pointers with `tile.tma_copy` instead of `cp.async`; anywhere else the op
    is the identity.

    ```mlir
    %q = tile.tensormap_block %p, %tm[%m0, %k0] : tensor<128x64x!tile.ptr<f16>>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptrs, Tile_TensorMap:$tensormap,
                       Variadic<I32>:$offsets);
  let results = (outs Tile_PtrTensor:$result);
  let assemblyFormat = [{
    $ptrs `,` $tensormap `[` $offsets `]` attr-dict `:` type($ptrs)
  }];
  let hasVerifier = 1;
}

def Tile_TensorMapPagesOp : Tile_Op<"tensormap_pages", [Pure,
    TypesMatchWith<"result type matches pointers type", "ptrs", "result", "$_self">]> {
  let summary = "the pointers of a paged tile a tensor map describes (an identity)";
  let description = [{
    Inserted by `quire-lower-paged-loads` for a `tile.paged_load` with a
    tensor map whose first token is a multiple of R = min(page_size,
    BLOCK_N) (AxisInfo): the result is `ptrs`, the pointers of the tile's
    rows (tokens `first_token + r` of the sequence whose block-table row is
    `block_table`, head `head`, rows at or past `bound` masked by the
    load). `quire-warp-specialize` copies such a tile's pages with
    `tile.tma_copy_pages` instead of `cp.async`; anywhere else the op is
    the identity. The tensor map is the 4-D cache `[num_blocks, page_size,
    heads, D]` read in boxes of R tokens.

    ```mlir
    %p = tile.tensormap_pages %ptrs, %tm[%bt, %first, %head] bound %len
        {page_size = 16 : i32} : tensor<128x128x!tile.ptr<f16>>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptrs, Tile_TensorMap:$tensormap,
                       Tile_I32Ptr:$blockTable, I32:$firstToken, I32:$head,
                       I32:$seqLen, I32Attr:$page_size);
  let results = (outs Tile_PtrTensor:$result);
  let assemblyFormat = [{
    $ptrs `,` $tensormap `[` $blockTable `,` $firstToken `,` $head `]`
    `bound` $seqLen attr-dict `:` type($ptrs)
  }];
  let hasVerifier = 1;
}

def Tile_TmaInitOp : Tile_Op<"tma_init", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "initialize the mbarriers of a TMA-staged buffer";
  let description = [{
    Inserted by `quire-async-copies` before a loop it stages with TMA: one
    thread initializes the `stages` mbarriers of staging buffer `buffer`
    (arrival count `arrivals`, default 1, phase 0), and with `release` its
    `stages` release mbarriers too (arrival count: the warps of the CTA
    that compute, `tile.num_warps`; `tile.tma_release`,
    `tile.tma_acquire`), then the CTA synchronizes, producer warps too.
    `quire-warp-specialize` also stages `cp.async` loops through them: every
    producer thread arrives once per fill (`tile.async_arrive`), so
    `arrivals` is the producer's threads. With `split` the producer and the
    consumers reach the op at different points of their branches (between
    two staged loops): the barrier is PTX `barrier.sync`, which allows that.

    ```mlir
    tile.tma_init {buffer = 0 : i32, stages = 3 : i32}
    tile.tma_init {arrivals = 256 : i32, buffer = 1 : i32, release, split,
                   stages = 2 : i32}
    ```
  }];
  let arguments = (ins I32Attr:$buffer, I32Attr:$stages, UnitAttr:$release,
                       DefaultValuedAttr<I32Attr, "1">:$arrivals,
                       UnitAttr:$split);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_TmaInvalOp : Tile_Op<"tma_inval", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "invalidate the mbarriers of a TMA-staged buffer";
  let description = [{
    Inserted by `quire-async-copies` after a loop it staged with TMA, once
    every copy has been waited for: the CTA synchronizes, then one thread
    invalidates the buffer's `stages` mbarriers, and with `release` its
    release mbarriers (so a later `tile.tma_init` may initialize them
    again). With `split` every thread of the CTA, producer warps too,
    synchronizes, each at its own point (PTX `barrier.sync`), as
    `tile.tma_init` with `split`; without it, in a warp-specialized kernel
    only the consumers do.

    ```mlir
    tile.tma_inval {buffer = 0 : i32, stages = 3 : i32}
    ```
  }];
  let arguments = (ins I32Attr:$buffer, I32Attr:$stages, UnitAttr:$release,
                       UnitAttr:$split);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start a TMA copy of a tensor map's block into a staging buffer";
  let description = [{
    Inserted by `quire-async-copies`. Where `pred` holds, one thread of the
    CTA announces the block's bytes on stage `stage`'s mbarrier of buffer
    `buffer` (`mbarrier.arrive.expect_tx`) and copies the `block`-shaped
    block at `offsets` (outer dimension first) of the tensor `tensormap`
    describes into that stage with `cp.async.bulk.tensor`, elements outside
    the tensor as zero. The stage holds the swizzled layout `wgmma` reads
    (as `tile.async_copy` with `nvmma` stages it: the staged tile is the
    block, or its transpose with `transposed`, its dimension `contig` the
    block's last), written as one copy per S-byte column (S = the last
    dimension's bytes, at most 128), which the tensor map's box (S bytes by
    the block's rows) and swizzle (S bytes) must match. Read the stage only
    after a `tile.tma_wait` on it. With `producer` the issuing thread is the
    first of the producer warp (`tile.is_producer`), not thread 0.

    ```mlir
    tile.tma_copy %tm[%m0, %k0] into stage %s if %in {block = tensor<128x64xf16>,
        buffer = 0 : i32, contig = 1 : i32, stages = 3 : i32}
    ```
  }];
  let arguments = (ins Tile_TensorMap:$tensormap, Variadic<I32>:$offsets,
                       I32:$stage, I1:$pred, TypeAttr:$block, I32Attr:$buffer,
                       I32Attr:$contig, I32Attr:$stages, UnitAttr:$transposed,
                       UnitAttr:$producer);
  let assemblyFormat = [{
    $tensormap `[` $offsets `]` `into` `stage` $stage `if` $pred attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The block's type.
    ::mlir::RankedTensorType getBlockType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getBlock());
    }
    /// The shape of the staged tile (the transpose of the block's with
    /// `transposed`).
    ::llvm::SmallVector<int64_t> getStagedShape();
  }];
}

def Tile_TmaCopyPagesOp : Tile_Op<"tma_copy_pages", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start the TMA copies of a paged tile's pages into a staging buffer";
  let description = [{
    Inserted by `quire-warp-specialize` for a `tile.async_copy` of a
    `tile.tensormap_pages` tile. Where `pred` holds, the issuing thread (the
    producer warp's first with `producer`, else thread 0) announces the
    block's bytes on stage `stage`'s mbarrier of buffer `buffer`
    (`mbarrier.arrive.expect_tx`) and copies the `block`-shaped tile (rows
    are tokens `first_token + r`) one box of R = min(page_size, rows)
    tokens at a time: box b holds tokens t = first_token + b * R .. t + R -
    1, all in page t / page_size since first_token is a multiple of R. Its
    entry `block_table[t / page_size]` is read only when t < `bound`; a
    box at or past the bound is copied from page -1, out of the tensor,
    which TMA fills with zeros. Each box is one `cp.async.bulk.tensor.4d`
    per S-byte column (S = the last dimension's bytes, at most 128) of the
    4-D tensor map `[num_blocks, page_size, heads, D]` at (entry, t %
    page_size, `head`, column), into rows b * R .. of the stage, which holds
    the swizzled layout `tile.tma_copy` writes. The rows past `bound` in
    the box that holds it are the cache's, not zero: the consumers clear
    them (`tile.tma_zero_rows`) before reading.

    ```mlir
    tile.tma_copy_pages %tm[%bt, %first, %head] bound %len into stage %s
        if %in {block = tensor<128x128xf16>, buffer = 0 : i32,
        contig = 1 : i32, page_size = 16 : i32, stages = 2 : i32, producer}
    ```
  }];
  let arguments = (ins Tile_TensorMap:$tensormap, Tile_I32Ptr:$blockTable,
                       I32:$firstToken, I32:$head, I32:$seqLen, I32:$stage,
                       I1:$pred, TypeAttr:$block, I32Attr:$page_size,
                       I32Attr:$buffer, I32Attr:$contig, I32Attr:$stages,
                       UnitAttr:$transposed, UnitAttr:$producer);
  let assemblyFormat = [{
    $tensormap `[` $blockTable `,` $firstToken `,` $head `]` `bound` $seqLen
    `into` `stage` $stage `if` $pred attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getBlockType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getBlock());
    }
    ::llvm::SmallVector<int64_t> getStagedShape();
    /// Tokens a box holds: min(page_size, the block's rows).
    int64_t getBoxRows() {
      return std::min<int64_t>(getPageSize(), getBlockType().getDimSize(0));
    }
  }];
}

def Tile_TmaZeroRowsOp : Tile_Op<"tma_zero_rows", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "clear the rows of a staged tile from a row on";
  let description = [{
    Every thread of the compute warps writes zeros to rows `from` .. of the
    `block`-shaped tile in stage `stage` of buffer `buffer` (rows as
    `tile.tma_copy_pages` writes them: every S-byte column's rows from
    `from` on; all rows where `from` <= 0), makes the writes visible to the
    async proxy (`fence.proxy.async.shared::cta`) and synchronizes the
    compute warps (a CTA barrier, of the compute warps only where the
    kernel has producer warps). Inserted by
    `quire-warp-specialize` after the wait for a tile whose rows past its
    bound TMA copied from the cache, in a branch where some are; every
    compute thread runs it.

    ```mlir
    tile.tma_zero_rows stage %s from %n {block = tensor<128x128xf16>,
        buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
    ```
  }];
  let arguments = (ins I32:$stage, I32:$from, TypeAttr:$block,
                       I32Attr:$buffer, I32Attr:$contig, I32Attr:$stages,
                       UnitAttr:$transposed);
  let assemblyFormat = "`stage` $stage `from` $from attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getBlockType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getBlock());
    }
    ::llvm::SmallVector<int64_t> getStagedShape();
  }];
}

def Tile_TmaWaitOp : Tile_Op<"tma_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the TMA copies of one stage";
  let description = [{
    Every thread waits until phase `phase` (0 or 1) of stage `stage`'s
    mbarrier of buffer `buffer` completes (`mbarrier.try_wait.parity`):
    the copies into the stage issued since the mbarrier's last phase have
    landed and may be read, by `wgmma` too. With `async_proxy` the stage
    was written by `cp.async` (the generic proxy; `tile.async_arrive`), and
    the thread then fences (`fence.proxy.async.shared::cta`) so that its
    `wgmma` reads see the data.

    ```mlir
    tile.tma_wait stage %s phase %p {buffer = 0 : i32, stages = 3 : i32}
    ```
  }];
  let arguments = (ins I32:$stage, I32:$phase, I32Attr:$buffer,
                       I32Attr:$stages, UnitAttr:$async_proxy);
  let assemblyFormat = "`stage` $stage `phase` $phase attr-dict";
  let hasVerifier = 1;
}

def Tile_TmaReleaseOp : Tile_Op<"tma_release", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "release a TMA stage the warps have read";
  let description = [{
    Where `pred` holds, every warp (its first lane, once the warp's reads of
    stage `stage` are done) arrives on the stage's release mbarrier of
    buffer `buffer` (made by `tile.tma_init` with `release`): once every
    warp has, the stage may be refilled (`tile.tma_acquire`). Inserted by
    `quire-async-copies` with `tma-release` after the last read of a stage.
    With `async_proxy` the warps read the stage through the async proxy
    (`wgmma`) and the stage is refilled through the generic one
    (`cp.async`, quire-warp-specialize): each thread fences
    (`fence.proxy.async.shared::cta`) before the warp's arrival.

    ```mlir
    tile.tma_release stage %s if %p {buffer = 0 : i32, stages = 3 : i32}
    ```
  }];
  let arguments = (ins I32:$stage, I1:$pred, I32Attr:$buffer,
                       I32Attr:$stages, UnitAttr:$async_proxy);
  let assemblyFormat = [{
    `stage` $stage `if` $pred attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_TmaAcquireOp : Tile_Op<"tma_acquire", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until every warp has released a TMA stage";
  let description = [{
    The thread that issues TMA copies (thread 0) waits until phase `phase`
    of stage `stage`'s release mbarrier of buffer `buffer` completes (every
    warp released the stage since its previous fill); the other threads go
    on. A stage's first fill waits for phase 1, which a fresh mbarrier
    reports complete. Inserted by `quire-async-copies` with `tma-release`
    before the copies that refill a stage, in place of a CTA barrier. With
    `producer` the waiting thread is the first of the producer warp; with
    `every_thread` as well, every producer thread waits (each issues
    `cp.async` copies of its own into the stage).

    ```mlir
    tile.tma_acquire stage %s phase %p {buffer = 0 : i32, stages = 3 : i32}
    ```
  }];
  let arguments = (ins I32:$stage, I32:$phase, I32Attr:$buffer,
                       I32Attr:$stages, UnitAttr:$producer,
                       UnitAttr:$every_thread);
  let assemblyFormat = "`stage` $stage `phase` $phase attr-dict";
  let hasVerifier = 1;
}

def Tile_AsyncArriveOp : Tile_Op<"async_arrive", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "arrive on a stage's mbarrier once this thread's cp.async copies land";
  let description = [{
    The executing thread's `tile.async_copy` copies issued so far complete
    one arrival on stage `stage`'s mbarrier of buffer `buffer` when they
    land (`cp.async.mbarrier.arrive.noinc`: the arrival is counted in the
    mbarrier's `arrivals`, `tile.tma_init`). Consumers wait for the stage
    with `tile.tma_wait {async_proxy}`. Inserted by `quire-warp-specialize`
    after each producer thread's copies of a fill.

    ```mlir
    tile.async_arrive stage %s {buffer = 0 : i32, stages = 2 : i32}
    ```
  }];
  let arguments = (ins I32:$stage, I32Attr:$buffer, I32Attr:$stages);
  let assemblyFormat = "`stage` $stage attr-dict";
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "write a register tile into a staging buffer, synchronized";
  let description = [{
    Inserted by `quire-async-copies` (sm_90) for a `tile.dot` whose B operand
    is computed in registers (an fp8 tile converted after its load), so that
    `wgmma` reads it from shared memory: synchronizes the threads of the CTA
    (none still reads the stage), writes `value`, or its transpose with
    `transposed`, into stage `stage` of buffer `buffer` in the layout
    `tile.async_copy` stages with the same attributes (`nvmma`: the
    swizzled layout `wgmma` reads), makes the writes visible to the async
    proxy (`fence.proxy.async`) and synchronizes again.

    ```mlir
    tile.local_store %v into stage %c0 {buffer = 2 : i32, contig = 1 : i32,
        stages = 1 : i32, nvmma} : tensor<64x128xf16, #blocked>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, I32:$stage, I32Attr:$buffer,
                       I32Attr:$contig, I32Attr:$stages, UnitAttr:$transposed,
                       UnitAttr:$nvmma);
  let assemblyFormat = "$value `into` `stage` $stage attr-dict `:` type($value)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape of the staged tile (the transpose of value's with
    /// `transposed`).
    ::llvm::SmallVector<int64_t> getStagedShape();
  }];
}

def Tile_WarpgroupDotOp : Tile_Op<"warpgroup_dot", [
    MemoryEffects<[MemRead]>, AttrSizedOperandSegments]> {
  let summary = "a dot on Hopper's warpgroup tensor cores (wgmma), B staged";
  let description = [{
    Inserted by `quire-async-copies` (sm_90) for a `tile.dot` whose B operand
    it stages with `nvmma`: `d = a * b + c`, where `b` (K x N) is stage
    `b_stage` of staging buffer `b_buffer` (its staged dimension `b_contig`
    contiguous) and `a` (M x K) is either the register tensor `a` (a
    `#tile.dot_op` opIdx 0 layout of the accumulator's) or stage `a_stage`
    of buffer `a_buffer`. Operands are `operand_type` (f16 or bf16), the
    accumulator f32 in a `#tile.mma<{warpsPerCTA = [wm, 1]}>` layout, wm a
    multiple of 4: each group of 4 warps (a warpgroup) computes 64-row
    blocks of the tile with `wgmma.mma_async.m64nNk16`, B and a staged A
    read from shared memory through matrix descriptors. M must be a multiple
    of 16 wm, N a multiple of 8 up to 256, K a multiple of 16.

    A staged A's buffer has `a_stages` stages (default `stages`): a
    loop-invariant A stored once (`tile.local_store`) has one.

    The dot is one wgmma group. Without `async` it waits for the group
    before its result is defined. With `async` it does not: `d` is in
    flight, and its only uses are `tile.warpgroup_wait` ops, which define
    it once at most their `pending` newer groups are still running (the
    staged operands the group reads must stay unchanged until then).

    ```mlir
    %d = tile.warpgroup_dot a(%q : tensor<64x128xf16, #dot_a>) b_stage %s
        acc %c {b_buffer = 1 : i32, b_contig = 0 : i32, stages = 2 : i32,
        k = 128 : i64, operand_type = f16}
        : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins Optional<Tile_Tensor>:$a, Optional<I32>:$a_stage,
                       I32:$b_stage, Tile_Tensor:$c,
                       OptionalAttr<I32Attr>:$a_buffer,
                       OptionalAttr<I32Attr>:$a_contig, I32Attr:$b_buffer,
                       I32Attr:$b_contig, I32Attr:$stages, I64Attr:$k,
                       TypeAttr:$operand_type, UnitAttr:$async,
                       OptionalAttr<I32Attr>:$a_stages);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    (`a` `(` $a^ `:` type($a) `)`)? (`a_stage` $a_stage^)? `b_stage` $b_stage
    `acc` $c attr-dict `:` type($c) `->` type($d)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The staged shapes: A is M x K, B is K x N.
    ::llvm::SmallVector<int64_t> getAShape();
    ::llvm::SmallVector<int64_t> getBShape();
  }];
}

def Tile_WarpgroupWaitOp : Tile_Op<"warpgroup_wait", [
    MemoryEffects<[MemRead, MemWrite]>, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait for in-flight wgmma groups";
  let description = [{
    Inserted by `quire-async-copies` around `async` `tile.warpgroup_dot`s.
    Waits until at most `pending` of this warpgroup's most recent wgmma
    groups are still running (`wgmma.wait_group pending`) and returns its
    operands, the accumulators of the groups it waited for: the results
    are the operands' values, and a group's result may be read only after a
    wait that retired it. With `pending` 0 every group has retired and the
    results are ordinary values; with `pending` N > 0 the newest N groups
    may still be writing theirs, so those results may only be carried (by
    `scf.yield`) into the accumulator of a later `async` dot or into
    another wait. The op reads and writes memory: it is where the staged
    operands of the retired groups stop being read, so nothing that writes
    them moves above it. With `older`, the operands are the accumulators
    of groups committed before the `pending` newest ones (which are not its
    operands): those have retired, and the results are ordinary values
    (`quire-overlap-softmax` waits so for the scores while the previous
    iteration's `P V` runs).

    With `after(%v)` (an f32 value or tensor) the wait comes after `%v`:
    before it each thread issues a `bar.warp.sync` predicated on a
    comparison of its elements of `%v` that holds for no float, which
    ptxas does not move the wait above, so ptxas cannot hoist the wait
    over the code that computes `%v`. Ordering alone: the wait is the same
    without it. quire-overlap-softmax gives `P V`'s wait the softmax's row
    sums, so the softmax runs while `P V` does.

    ```mlir
    %r = tile.warpgroup_wait %d {pending = 1 : i32}
        : tensor<128x128xf32, #tile.mma<{warpsPerCTA = [8, 1]}>>
    %s = tile.warpgroup_wait %scores {older, pending = 1 : i32}
        : tensor<128x128xf32, #tile.mma<{warpsPerCTA = [8, 1]}>>
    %o = tile.warpgroup_wait %pv after(%l : tensor<128xf32, #slice>)
        {pending = 0 : i32} : tensor<128x128xf32, #tile.mma<{warpsPerCTA = [8, 1]}>>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$inputs,
                       Optional<AnyType>:$after, I32Attr:$pending,
                       UnitAttr:$older);
  let results = (outs Variadic<Tile_Tensor>:$outputs);
  let assemblyFormat = [{
    $inputs (`after` `(` $after^ `:` type($after) `)`)? attr-dict `:`
    type($inputs)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

def Tile_IsProducerOp : Tile_Op<"is_producer", [Pure]> {
  let summary = "true in the producer warp quire-warp-specialize adds";
  let description = [{
    In a kernel with `tile.producer_warps = P` (set by
    `quire-warp-specialize`), the CTA has P warps more than the module's
    `tile.num_warps`: the producer, which only issues copies (P = 1 or 4
    for TMA copies; P = `tile.num_warps` for `cp.async` copies, each
    producer warp then computing the addresses of the consumer warp its
    index is, modulo `tile.num_warps`). The op is true in its threads and
    false in the others (the consumers, which run every other laid-out
    op).

    ```mlir
    %p = tile.is_producer
    ```
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict";
}

def Tile_WarpgroupIdOp : Tile_Op<"warpgroup_id", [Pure]> {
  let summary = "the executing thread's warpgroup";
  let description = [{
    The index of the executing thread's warpgroup in the CTA (thread index
    / 128), the same in every thread of a warpgroup (read from lane 0, so
    the compiler knows it is uniform in each warp). `quire-pingpong`
    branches on it to give the two warpgroups of an attention loop
    different schedules; ops in such a branch compute the elements of the
    warpgroups that run it.

    ```mlir
    %wg = tile.warpgroup_id
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def Tile_WarpgroupTurnOp : Tile_Op<"warpgroup_turn",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "two warpgroups take turns (named barriers)";
  let description = [{
    The two warpgroups of an 8-warp CTA's consumers (a warp-specialized
    kernel's, `tile.producer_warps`) take turns through two named barriers,
    one per warpgroup (ids 2 and 3, 256 threads each: one warpgroup waits,
    the other arrives). `wait`: the executing warpgroup waits for its turn
    (`bar.sync`); `pass`: it gives the turn to the other (`bar.arrive` on
    the other's barrier); `start` gives warpgroup 0 the first turn
    (warpgroup 1 arrives on its barrier); `end`, after the last `pass`,
    takes back the turn warpgroup 1 passed last (warpgroup 0 waits), so no
    arrival is left pending. Between `start` and `end` the two warpgroups
    run the same sequence of `wait` and `pass` (the same loops), so what
    each does between its `wait` and `pass` alternates: warpgroup 0, then
    1, then 0, ... `quire-warp-specialize` with `pingpong` puts each dot's
    issue between them: FlashAttention-3's ping-pong, one warpgroup's
    softmax beside the other's dots.

    ```mlir
    tile.warpgroup_turn wait
    ```
  }];
  let arguments = (ins Tile_TurnActionAttr:$action);
  let assemblyFormat = "$action attr-dict";
}

def Tile_SetMaxRegistersOp : Tile_Op<"setmaxnreg",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "set the registers per thread of the executing warpgroup";
  let description = [{
    PTX `setmaxnreg.{inc,dec}.sync.aligned.u32 count` (sm_90a): the warps
    of a warpgroup give registers back to the CTA's pool (`dec`) or take
    more from it (`inc`, which waits until the pool has them), so that a
    warp-specialized kernel's producer warpgroup, which only issues copies,
    runs on few registers and its consumers on many. `count` is the new
    per-thread maximum, a multiple of 8 in [24, 256]. Every warp of a
    warpgroup must run the same op (quire-warp-specialize with
    `producer-warpgroup` places them). The op orders memory like a barrier
    so nothing moves across it; the interpreter ignores it.

    ```mlir
    tile.setmaxnreg dec {count = 24 : i32}
    tile.setmaxnreg inc {count = 240 : i32}
    ```
  }];
  let arguments = (ins Tile_RegisterActionAttr:$action, I32Attr:$count);
  let assemblyFormat = "$action attr-dict";
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "synchronize the threads of a program";
  let description = [{
    Every thread of the program (the CTA) waits until all of them have
    reached the barrier; the shared- and global-memory accesses each made
    before it are then visible to all of them (PTX `bar.sync 0`). Triton's
    `tl.debug_barrier`. The op reads and writes memory, so no memory access
    moves across it. The interpreter runs a program as one unit: there it
    does nothing.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Runtime checks
//===----------------------------------------------------------------------===//

def Tile_AssertOp : Tile_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "report and stop when a condition is false";
  let description = [{
    Checks that `cond` (an i1 scalar or tensor) is true everywhere, like
    Triton's `tl.device_assert`. `message` is a printf format whose `%d`
    directives (and `%%` for a percent sign; nothing else) take, in order,
    the `args` (i32, shaped like `cond`) at the first false element.

    On the GPU every thread that holds a false element (one thread per
    element, and thread 0 for a scalar) prints `message` with the args of the
    first false element it holds, followed by ` in program (x, y, z)`, through
    `vprintf`, and executes `trap`: the launch fails. The interpreter reports
    the first false element in row-major order as an error. The op has a
    write effect so that it is neither removed nor moved.

    ```mlir
    tile.assert %ok, "entry %d at token %d is bad", %entry, %tok
      : tensor<64xi1>, tensor<64xi32>, tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$cond, StrAttr:$message,
                       Variadic<AnyTypeOf<[I32, RankedTensorOf<[I32]>]>>:$args);
  let assemblyFormat = [{
    $cond `,` $message (`,` $args^)? attr-dict `:` type($cond)
    (`,` type($args)^)?
  }];
  let hasVerifier = 1;
}

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "print values from the device";
  let description = [{
    Like Triton's `tl.device_print`: for each element of each operand (an
    integer of up to 64 bits or an f16, bf16, f32 or f64, scalar or tensor)
    one line
    `pid (x, y, z) idx (i, j) prefix: value` (no `idx` for a scalar; with
    several operands `prefix (operand k): value`); no operand prints
    `pid (x, y, z) prefix` once. Integers print in decimal (i1 as 0 or 1),
    or with `hex` as `0x` and their bits; floats with `%f` (as C's printf:
    six decimals). On the GPU each element is printed by the one thread that
    owns it, through `vprintf`, so lines of different elements and programs
    come in no particular order; the interpreter prints elements in
    row-major order, program after program. The op has a write effect so
    that it is neither removed nor moved.

    ```mlir
    tile.print "x", %x : tensor<16xf32>
    tile.print "bits" hex, %b : tensor<16xi32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, UnitAttr:$hex,
                       Variadic<AnyType>:$args);
  let assemblyFormat = [{
    $prefix (`hex` $hex^)? (`,` $args^)? attr-dict (`:` type($args)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Paged tile load
//===----------------------------------------------------------------------===//

def Tile_PagedLoadOp : Tile_Op<"paged_load", [
    MemoryEffects<[MemRead]>, AttrSizedOperandSegments,
    TypesMatchWith<"cache is a pointer to the result element type",
                   "result", "cache",
                   "::mlir::quire::tile::PointerType::get("
                   "::mlir::getElementTypeOrSelf($_self))">]> {
  let summary = "gather a tile of token rows from a paged cache";
  let description = [{
    Reads a `BLOCK_N x D` tile whose row `r` is token `t = first_token + r` of
    one sequence, stored in a cache of fixed-size pages addressed through that
    sequence's block-table row (vLLM's KV cache):

    ```
    result[r, c] = t < seq_len
        ? cache[block_table[t / page_size] * page_stride
                + (t % page_size) * token_stride
                + head * head_stride + c]
        : 0
    ```

    `cols`, when given, is how many leading columns hold data (a head
    dimension that is not a power of two, padded to the tile width): columns
    at or past `cols` read zero and issue no access, so a row never reads
    past its head.

    Offsets are computed in 64 bits (strides are i64): a cache is larger than
    4 GiB. Block-table entries are i32. Rows at or past `seq_len` read zero
    and issue no cache access; the block table is read only for pages that
    hold a token below `seq_len`.

    `tensormap`, when given, is a host-encoded tensor map of the cache (a
    `!tile.tensormap` kernel argument: a host `TensorDescriptor` of the
    4-D cache `[num_blocks, page_size, heads, D]` whose block is
    `[1, R, 1, width]`, R = min(page_size, BLOCK_N)): a producer warp may
    then copy the tile's pages with TMA (`tile.tensormap_pages`,
    `tile.tma_copy_pages`, quire-warp-specialize). It changes no value.

    `num_blocks`, when given, is the number of pages the cache holds: every
    entry a row below `seq_len` uses must lie in `[0, num_blocks)`. The
    interpreter reports the first entry that does not (in row order) as an
    error. On the GPU a bad entry reads out of bounds, unless the kernel is
    compiled in checked mode (`quire-lower-paged-loads{checked}`, `quirec
    --paged-checked`): then the rows of a bad entry issue no cache access and
    the kernel reports the entry and traps, so the launch fails.

    ```mlir
    %k = tile.paged_load %cache[%bt_row, %first, %head] {page_size = 16 : i32}
           strides(%page_stride, %token_stride, %head_stride)
           bound %seq_len : tensor<64x128xf16>
    %v = tile.paged_load %cache[%bt_row, %first, %head] {page_size = 16 : i32}
           strides(%page_stride, %token_stride, %head_stride)
           bound %seq_len num_blocks %num_blocks : tensor<64x128xf16>
    %k80 = tile.paged_load %cache[%bt_row, %first, %head] {cols = 80 : i32, page_size = 16 : i32}
           strides(%page_stride, %token_stride, %head_stride)
           bound %seq_len : tensor<64x128xf16>
    ```
  }];
  let arguments = (ins Tile_Ptr:$cache, Tile_I32Ptr:$blockTable,
                       I32:$firstToken, I32:$head,
                       I64:$pageStride, I64:$tokenStride, I64:$headStride,
                       I32:$seqLen, Optional<I32>:$numBlocks,
                       Optional<Tile_TensorMap>:$tensormap,
                       I32Attr:$page_size, OptionalAttr<I32Attr>:$cols);
  let results = (outs RankedTensorOf<[Tile_Int, Tile_Float]>:$result);
  let assemblyFormat = [{
    $cache `[` $blockTable `,` $firstToken `,` $head `]` attr-dict
    `strides` `(` $pageStride `,` $tokenStride `,` $headStride `)`
    `bound` $seqLen (`num_blocks` $numBlocks^)?
    (`tensormap` $tensormap^)? `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getBlockN() { return getResult().getType().getDimSize(0); }
    int64_t getHeadDim() { return getResult().getType().getDimSize(1); }
    /// Columns that hold data: `cols` when given, else the tile width.
    int64_t getValidCols() {
      if (auto c = getColsAttr())
        return c.getInt();
      return getHeadDim();
    }
  }];
}

#endif // QUIRE_DIALECT_TILE_IR_TILEOPS_TD
