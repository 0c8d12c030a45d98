//===- TileAttrs.td - Distributed layout encodings ---------*- tablegen -*-===//
//
// Layouts say which thread of a CTA holds which element of a tensor. They are
// the encoding of builtin ranked tensor types after `quire-assign-layouts`
// (Triton's blocked and slice layouts).
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_DIALECT_TILE_IR_TILEATTRS_TD
#define QUIRE_DIALECT_TILE_IR_TILEATTRS_TD

include "quire/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_BlockedEncodingAttr : Tile_Attr<"BlockedEncoding", "blocked"> {
  let summary = "elements tiled over registers, lanes and warps";
  let description = [{
    Along dimension `d`, a thread holds `sizePerThread[d]` consecutive
    elements, a warp's lanes cover `threadsPerWarp[d]` such chunks and the
    CTA's warps `warpsPerCTA[d]` warp tiles. The CTA tile repeats to cover a
    larger tensor and wraps around (replicates) on a smaller one. `order`
    lists dimensions fastest-varying first: lanes, warps and a thread's
    registers are numbered along `order[0]` first, so registers adjacent in
    `order[0]` are adjacent in memory for a row-major tensor.

    ```mlir
    #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16],
                   warpsPerCTA = [4, 1], order = [1, 0]}>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
            `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getSizePerThread().size(); }
    unsigned getNumWarps() const;
  }];
}

def Tile_SliceEncodingAttr : Tile_Attr<"SliceEncoding", "slice"> {
  let summary = "the parent layout with one dimension removed";
  let description = [{
    A tensor of rank r-1 laid out as the rank-r `parent` with dimension `dim`
    collapsed: a thread holds element `c` if it holds any parent element that
    equals `c` with `dim` removed. Reductions along `dim` produce it and
    `tile.expand_dims` at `dim` consumes it, without moving data.

    ```mlir
    #tile.slice<{dim = 1, parent = #tile.blocked<...>}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `{` `dim` `=` $dim `,` `parent` `=` $parent `}` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const;
  }];
}


def Tile_MmaEncodingAttr : Tile_Attr<"MmaEncoding", "mma"> {
  let summary = "accumulator layout of mma.sync m16n8k16 (sm_80+)";
  let description = [{
    A rank-2 tensor tiled in 16x8 accumulator fragments of the warp-level
    `mma.sync.m16n8k16` instruction: lane `l` holds columns `2*(l%4)` and
    `+1` of rows `l/4` and `l/4 + 8`. The CTA's warps cover
    `warpsPerCTA = [wm, wn]` fragments (warp id `w`: `w % wm` along M, then
    `w / wm` along N); the `16*wm x 8*wn` CTA tile then repeats in registers,
    along N first, and wraps around (replicates) on a smaller tensor.

    ```mlir
    #tile.mma<{warpsPerCTA = [2, 2]}>
    ```

    Three optional parameters renumber M, N and K, so that the elements a
    lane holds of an operand are consecutive in memory and load as one
    vector (fp8 operands read from shared memory). A lane `l` has
    `g = l / 4` and `t = l % 4`:

    - `kWidth` (2, 4, 8 or 16; default 2): each lane of an operand holds
      `kWidth` consecutive K elements where the instruction's fragment has
      2. In each block of `max(16, 4*kWidth)` K elements, the `j`-th K
      position lane `t` holds (`2t`, `+1`, `+8`, `+9`, `+16`, ... in
      order) stands for element `(j / kWidth) * 4*kWidth + t*kWidth +
      j % kWidth`. A and B are renumbered alike, so the dot computes the
      same sum; the accumulator does not change.
    - `nWidth` (1, 2, 4, 8 or 16; default 1): in each block of `8*nWidth`
      columns, the `j`-th column position lane `g` holds in B (`g`,
      `g+8`, ...: one per 8-column fragment) stands for column
      `(j / nWidth) * 8*nWidth + g*nWidth + j % nWidth`, so a B lane holds
      `nWidth` consecutive columns and an accumulator lane `2*nWidth`.
    - `mWidth` (1, 2, 4, 8 or 16; default 1): the same for rows, in blocks
      of `max(16, 8*mWidth)`: the `j`-th row position lane `g` holds in A
      and the accumulator (`g`, `g+8`, `g+16`, ...) stands for row
      `(j / mWidth) * 8*mWidth + g*mWidth + j % mWidth`.

    Warps step by whole blocks along M and N. A renumbered dimension must
    be a multiple of its block.

    ```mlir
    #tile.mma<{warpsPerCTA = [1, 1], kWidth = 16}>
    #tile.mma<{warpsPerCTA = [1, 1], mWidth = 16, nWidth = 2}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA,
                    DefaultValuedParameter<"unsigned", "2">:$kWidth,
                    DefaultValuedParameter<"unsigned", "1">:$nWidth,
                    DefaultValuedParameter<"unsigned", "1">:$mWidth);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumWarps() const;
    /// True without kWidth, nWidth and mWidth: the instruction's own
    /// fragments.
    bool isPlain() const {
      return getKWidth() == 2 && getNWidth() == 1 && getMWidth() == 1;
    }
    /// True if operand `opIdx` (0: A, 1: B) has the instruction's own
    /// fragments (A does not depend on nWidth, B on mWidth).
    bool isPlainOperand(unsigned opIdx) const {
      return getKWidth() == 2 &&
             (opIdx == 0 ? getMWidth() == 1 : getNWidth() == 1);
    }
    /// The renumbering blocks along M, N and K (see above).
    int64_t mBlock() const { return std::max<int64_t>(16, 8 * getMWidth()); }
    int64_t nBlock() const { return 8 * getNWidth(); }
    int64_t kBlock() const { return std::max<int64_t>(16, 4 * getKWidth()); }
    /// The element a fragment position stands for along K, N or M, and
    /// back (N, M).
    int64_t kElement(int64_t p) const;
    int64_t nElement(int64_t p) const;
    int64_t nPosition(int64_t n) const;
    int64_t mElement(int64_t p) const;
    int64_t mPosition(int64_t m) const;
  }];
}

def Tile_DotOperandEncodingAttr : Tile_Attr<"DotOperandEncoding", "dot_op"> {
  let summary = "operand layout of mma.sync m16n8k16";
  let description = [{
    The layout an operand of a `tile.dot` with a `#tile.mma` accumulator must
    have: `opIdx = 0` is A (M x K, 16x16 fragments: lane `l` holds rows
    `l/4`, `+8` and columns `2*(l%4)`, `+1`, `+8`, `+9`), `opIdx = 1` is B
    (K x N, 16x8 fragments: lane `l` holds column `l/4` of rows `2*(l%4)`,
    `+1`, `+8`, `+9`). A is replicated across the warps that split N, B
    across those that split M. Consecutive-K pairs are the 32-bit registers
    the instruction takes.

    ```mlir
    #tile.dot_op<{opIdx = 0, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent);
  let assemblyFormat =
      "`<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `}` `>`";
  let genVerifyDecl = 1;
}

#endif // QUIRE_DIALECT_TILE_IR_TILEATTRS_TD
