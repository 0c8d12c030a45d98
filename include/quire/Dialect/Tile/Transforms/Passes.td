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

    A `tile.dot` of f16 or bf16 into f32 with M >= 16, N >= 8 and K >= 16
    (powers of two) is computed on tensor cores: its accumulator gets a
    `#tile.mma` layout before any other choice is made, its operands are
    converted to `#tile.dot_op` layouts. The warps split M and N so that each
    warp's share of A and B is smallest, except in a dot chain (a dot whose
    result feeds, elementwise, the A operand of another: attention's
    `softmax(Q K^T) V`), where all warps split M so that the probabilities
    become the next A operand without leaving their registers. Smaller f16
    dots (M <= 16, the decode case) are computed in registers with FMAs.
    With `warpgroup` (sm_90), a dot `wgmma` can compute (warps a multiple of
    4, M a multiple of 16 per warp, N a multiple of 8 up to 256, K of 16)
    has all warps split M, the layout of Hopper's warpgroup accumulators, so
    `quire-async-copies` can turn it into a `tile.warpgroup_dot`.

    With `wide-fp8-operands` (the default), a tensor-core dot whose B is an
    fp8 tile loaded in a loop and converted (`arith.extf`, through a
    `tile.trans` or not), which the warps splitting M do not share, so that
    `quire-async-copies` stages it as bytes, gets a `#tile.mma` whose lanes
    hold 16 consecutive bytes of B where the instruction's fragments hold 2
    or 1: `kWidth` when B's K is the loaded tile's contiguous dimension (K
    of `Q K^T`; A is renumbered alike, so A must not come from a dot),
    `nWidth` when its N is (V of `P V`; the accumulator is renumbered, so it
    must not feed another dot's A). The staged operand is then read with
    16-byte `ld.shared` instead of byte or byte-pair loads.

    With `gathered-rows` (off by default: timed, it moves no kernel), a 2-D load whose row offsets are
    computed from a loaded index vector (the block-table entries of a paged
    tile) that is constant over c consecutive rows, 1 < c < the tile's rows
    (AxisInfo's constancy of the index load's pointer and mask), gets up to
    c consecutive rows per thread (`sizePerThread[0]`) instead of rows the
    lanes and warps apart: each thread then loads one index for its rows and
    computes one page offset, where before each of its rows was in a page of
    its own. A warp's accesses are whole rows either way.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "warps per CTA (a power of two, 1 to 32)">,
    Option<"mma", "mma", "bool", "true",
           "give f16/bf16 dots with M >= 16 tensor-core (#tile.mma) layouts">,
    Option<"warpgroup", "warpgroup", "bool", "false",
           "lay out wgmma-shaped dots for warpgroups (all warps along M)">,
    Option<"wideFp8Operands", "wide-fp8-operands", "bool", "true",
           "renumber K or N of dots with a staged fp8 B so its lanes hold 16 "
           "consecutive bytes (#tile.mma kWidth, nWidth)">,
    Option<"gatheredRows", "gathered-rows", "bool", "false",
           "give each thread of a 2-D load with gathered rows (pages) "
           "consecutive rows of one page">
  ];
  let dependentDialects = ["::mlir::quire::tile::TileDialect"];
}

def LowerDescriptors : Pass<"quire-lower-descriptors", "::mlir::ModuleOp"> {
  let summary = "rewrite tensor-descriptor block accesses into masked pointer tiles";
  let description = [{
    Expects tile IR without layouts. Guarantees that no
    `tile.descriptor_load`, `tile.descriptor_store` or used
    `tile.make_descriptor` remains: the block at offsets (o_0, ...) of a
    descriptor with base b, shape s and strides t is the pointer tile
    `b + sum_k ext(o_k + range(0, B_k)) * t_k` (64-bit offsets) under the
    mask `and_k (0 <= o_k + range(0, B_k) < s_k)`; a load reads the
    descriptor's padding (zero, or NaN) where the mask is false, a store
    writes nothing there. Runs first in the pipeline and before the
    interpreter, so descriptor accesses compile (vector widths from the
    strides' divisibility, cp.async staging, wgmma) and run as the
    equivalent pointer code does.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::quire::tile::TileDialect"];
}

def StridedIterArgs : Pass<"quire-strided-iter-args", "::mlir::ModuleOp"> {
  let summary = "recompute values a loop advances by a fixed stride from the "
                "induction variable";
  let description = [{
    Expects tile IR without layouts. For every loop-carried value of an
    `scf.for` that the body advances by a loop-invariant amount, `%p =
    tile.addptr %p, %inc` or `%x = arith.addi %x, %inc` (as a Triton kernel
    writes `a_ptrs += BLOCK_K * stride_ak`), the body's uses read `%p0 +
    k * %inc` instead, k = (iv - lb) / step the iteration number: pointer
    offsets in 64 bits (a splat stride as one scalar product), integers in
    their own type. Guarantees that no use in the body depends on such a
    carried value, so addresses become functions of the induction variable
    that `quire-async-copies` and `quire-pipeline-loads` can issue ahead.
    The carried value itself is left for uses after the loop (dead ones are
    dropped by canonicalization). Values advanced any other way (in a
    branch, by a loop-variant amount) are left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::quire::tile::TileDialect"];
}

def ForwardStores : Pass<"quire-forward-stores", "::mlir::ModuleOp"> {
  let summary = "replace loads of what the program itself just stored by the "
                "stored values, and drop barriers that then order nothing";
  let description = [{
    Expects tile IR without layouts, canonicalized. A `tile.load` (a scalar
    or a 1-D tensor) is replaced by the values this program stored to
    exactly its addresses earlier in the same block, when
      - the stores are `tile.store`s of the load's block, or the one store
        through the load's kernel argument in an `scf.for` of the block
        with a constant trip count (the slices a Triton kernel writes in a
        `range` or `tl.static_range` loop), with no other write between
        them and the load that may reach its memory (stores through other
        kernel arguments are taken not to overlap, as Triton takes them;
        barriers and asserts write nothing the load reads);
      - every address the load reads under its mask was stored, the last
        store to it had its mask true there (masks are compared as
        conjunctions of integer comparisons of linear forms), and offsets
        differ from the load's by known constants;
      - the stored expression can be evaluated per element of the load:
        element j came from piece i(j), lane r(j) in one of the closed
        forms (one piece; blocks of M lanes, ((j + o) / M, (j + o) % M);
        interleaved, ((j + o) % n, (j + o) / n)), and the expression is
        built from arith and math ops, splat, range, addptr and loads of
        kernel arguments no store of the kernel writes; unrolled pieces
        must have the same expression up to integers that differ by an
        affine function of the piece index.
    The result is that expression with the loop's induction variable
    replaced by `lb + step * i(j)` and the stores' lane index by `r(j)`
    (scalar loads inside it become gathers), selected against the load's
    `other` where its mask is false. Then, in every load, a
    `select(c, a, b)` feeding the address where the load's mask implies
    `c` (the same condition along the same dimension) reads `a`: the
    forwarded `select(mask, offsets, 0)` becomes the natural gather that
    `quire-raise-paged-loads` recognizes.
    The stores stay: their memory is a kernel argument, and someone may
    read it after the kernel. With `sink-stores`, a store no load of the
    kernel reads moves to the end of its block (past ops that neither write
    its memory nor order memory), with the pure arithmetic only it uses,
    after loops of at most 16 iterations that only make such stores are
    unrolled: its value's loads are then issued a whole iteration's work
    before anything waits for them. Stores a load was forwarded from that
    wrote exactly its elements under its mask become, first, one store of
    the value rebuilt for the load, at its addresses. With `remove-barriers`, `tile.barrier`s are
    erased when they order nothing: no load of the kernel reads memory any
    of its stores writes, no op of the kernel accesses memory other than
    through loads and stores, no two store ops write one address, and each
    store's addresses are either the same in every iteration of the loops
    around the barrier (one address is written by the same threads each
    time, in program order) or move with one such loop by more than their
    span per iteration (no address is written twice).
    Like Triton, Quire orders nothing between programs without atomics: a
    value another program stores between this program's store and its load
    is a data race the kernel already had, and forwarding gives this
    program's own value. Integer offset and mask arithmetic is taken as
    exact (it does not wrap). Anything else is left as it is.
  }];
  let options = [
    Option<"removeBarriers", "remove-barriers", "bool", "true",
           "erase tile.barrier ops that order no memory access any more">,
    Option<"sinkStores", "sink-stores", "bool", "true",
           "move stores no load of the kernel reads to the end of their "
           "block (unrolling loops of at most 16 iterations that only make "
           "such stores), away from the loads their values wait for">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::quire::tile::TileDialect"];
}

def RaisePagedLoads : Pass<"quire-raise-paged-loads", "::mlir::ModuleOp"> {
  let summary = "rewrite natural paged gathers (offsets built from "
                "block-table entries) into tile.paged_load";
  let description = [{
    Expects tile IR without layouts, canonicalized. A 2-D `tile.load` of a
    kernel whose pointers are `base + entry * s0 + slot * s1 + u + col`, in
    any order of the terms, where
      - `entry` is a tile.load of `bt_row + tok / P` (or `tok >> log2 P`)
        or of `bt_row + q + tok / P` (q uniform: whole pages ahead, the form
        `start // P + j // P` takes), with or without a sign extension,
        `bt_row` a scalar pointer to i32 whose kernel argument no store of
        the kernel writes through;
      - `slot` is `tok % P` (or `tok & (P - 1)`) of the same `tok`, a
        token vector `splat(start) + range(a, a + T)` along one dimension
        (the tile's tokens are then `q * P + tok`);
      - `col` is `range(0, D)` along the other dimension (stride 1);
      - `u` is any sum of uniform (splat) scalars, and P a constant;
    becomes `tile.paged_load base + u [bt_row, start + a, 0] {page_size = P}
    strides(s0, s1, 0)`, followed by a `tile.trans` when the tokens run
    along the columns ([D, T] tiles, K^T read directly). The mask must be
    `tok < bound` along the tokens (the op's bound; without it the bound is
    start + T), optionally and-ed with `col < C` for a constant C (the op's
    `cols`); a mask written on another token vector `tokens + d` (d
    uniform, compared as linear forms) moves the bound by d; the block
    table must be read under the same condition, under the same comparison
    of each page's first token (`P * index < bound`), or not masked.
    `other` absent or zero is what the op returns for masked elements; a
    different uniform `other` is kept by a select after the op. The entries'
    load is erased when nothing else uses it. Offsets are taken as exact:
    32-bit offset arithmetic is assumed not to wrap (a wrapped offset would
    address memory outside the cache), and tokens are non-negative (so
    `(q * P + tok) / P` is `q + tok / P`). Anything else, a non-constant page
    size, a token vector that is not affine, a column mask with a run-time
    bound, a column stride other than 1, a block table the kernel stores
    to, is left as it is. Not run in checked mode (quirec --paged-checked),
    whose paged loads need a block count the natural form does not have.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::quire::tile::TileDialect"];
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

    With `checked`, every `tile.paged_load` must carry `num_blocks` (else a
    located error). A row below `seq_len` whose entry lies outside
    `[0, num_blocks)` is then masked like a row past `seq_len`, so no
    address computed from a bad entry is read, and a `tile.assert` reports
    the entry, its page and the first token of the tile in that page, with
    the location of the `tile.paged_load`; on the GPU it prints through
    `vprintf` and traps.
  }];
  let options = [
    Option<"prefetch", "prefetch", "bool", "true",
           "load the next iteration's block-table entries one iteration "
           "ahead (the Quire pipeline turns it off when quire-async-copies "
           "stages the loop's loads and issues the entries itself)">,
    Option<"singlePage", "single-page", "bool", "true",
           "one scalar entry per tile when the tile provably lies in one page">,
    Option<"shifts", "shifts", "bool", "true",
           "shifts and masks instead of divisions for power-of-two pages">,
    Option<"checked", "checked", "bool", "false",
           "mask out and report block-table entries outside [0, num_blocks)">
  ];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}


def PipelineLoads : Pass<"quire-pipeline-loads", "::mlir::ModuleOp"> {
  let summary = "issue the tile loads of a loop's next iteration at the top "
                "of the current one";
  let description = [{
    For every `scf.for` in a kernel and every tensor `tile.load` directly in
    its body whose pointers, mask and `other` are computed (by pure ops of the
    body) from the induction variable and loop invariants only: the load of
    the first iteration moves before the loop, and each iteration loads the
    next iteration's tile at its top and passes it on through a new
    loop-carried value (a register double buffer), so the load's latency
    overlaps the iteration's compute. The next iteration's mask is and-ed
    with `next < upper bound`: the prefetch after the last iteration issues
    no memory access. Loads that depend on loop-carried values, on other
    loads or on side effects are left alone (quire-lower-paged-loads already
    prefetches the block-table entries of paged loads). A loop whose body
    stores keeps in place every load from a kernel argument it stores
    through (iteration i's store could write what iteration i+1's load reads);
    loads from the other pointer arguments still move ahead: distinct
    arguments are taken not to overlap, as Triton's pipelining takes them (a
    kernel that reads through one argument what it wrote through another in
    the previous iteration must not alias them). A loop that writes memory
    any other way (an assert, a barrier) is left alone.

    The carried tiles live in registers: loads are taken in program order
    while the registers they add per thread (elements x bits / 32 over
    `num-warps` x 32 threads) stay within `max-registers`.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "warps per CTA the kernel will run with">,
    Option<"maxRegisters", "max-registers", "unsigned", "32",
           "32-bit registers per thread the carried tiles may take">,
    Option<"skipDotOperands", "skip-dot-operands", "bool", "false",
           "leave loads that feed a tile.dot (directly or through tile.trans "
           "and an arith.extf of fp8) and that quire-async-copies can stage "
           "(2-D, 16-bit or fp8, runs of 4 bytes or more AxisInfo proves "
           "aligned) to it">,
    Option<"tmaOperands", "tma-operands", "bool", "false",
           "with skip-dot-operands, also leave the dot operands read through "
           "tensor maps whatever their runs' width (quire-async-copies stages "
           "them with TMA)">
  ];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def AsyncCopies : Pass<"quire-async-copies", "::mlir::ModuleOp"> {
  let summary = "stage a loop's dot operands through shared memory with "
                "cp.async, `stages` iterations deep";
  let description = [{
    Expects laid-out tile IR (after `quire-assign-layouts`), for sm_80 and
    later. In every `scf.for` of a kernel whose body writes memory only
    through `tile.store`s to kernel arguments, a 2-D 16-bit `tile.load` of
    another kernel argument (distinct arguments are taken not to overlap;
    the loads its address comes from, too), blocked layout, `other` absent
    or zero, whose only
    use is a `tile.convert_layout` to a `#tile.dot_op` layout, directly or
    through a `tile.trans`, becomes an asynchronous copy into a ring of
    `stages` shared-memory buffers and a `tile.async_local_load` from it.
    So does an fp8 (`f8E4M3FN`, `f8E5M2`) load whose `arith.extf` to f16 or
    bf16 (before or after the `tile.trans`) feeds the conversion: its bytes
    are staged, read in the operand's layout and converted there:

      prologue:   async_copy of iterations 0 .. stages-2 into stages 0 ..
      iteration i: async_wait (copies of iteration i done; CTA barrier)
                   async_copy of iteration i + stages - 1 into the stage
                     iteration i - 1 used (all threads passed the barrier,
                     so nobody still reads it)
                   ... async_local_load of stage i % stages where the
                     conversion stood ...

    so the global loads of later iterations are in flight, without
    registers, while iteration i computes; the staging replaces the
    conversion's register -> shared -> register round trip. The addresses of
    iteration j are recomputed from the induction variable; loads they
    depend on (block-table entries of a paged tile, which must then not be
    prefetched by `quire-lower-paged-loads`) are issued `stages` iterations
    ahead and carried in the loop. Masks are and-ed with `j < upper bound`;
    masked elements are zero-filled without a global access. Loads whose
    addresses depend on other loop-carried values, whose accesses are
    narrower than 4 bytes per thread, or that have other uses stay.

    With `warpgroup` (sm_90): a `tile.dot` whose B operand is staged, whose
    accumulator has a warpgroup layout (`#tile.mma` with warps [4k, 1]) and
    whose shape `wgmma` takes becomes a `tile.warpgroup_dot` reading B (and
    A, when A is staged too) straight from the staging buffers, which are
    then written in the swizzled `nvmma` layout; its `async_wait` fences
    the copies for the async proxy.

    With `async-wgmma`, a loop whose wgmma dots all carry their accumulator
    from one iteration to the next and nothing else reads it (a matmul's K
    loop) keeps each iteration's dots running while the next one waits for
    its copies: the dots become `async`, a `tile.warpgroup_wait {pending =
    dots per iteration}` after the last one retires the previous
    iteration's, and a wait with pending 0 after the loop retires the rest.
    The stage of iteration i - 1 is read until that wait. With 4 or more
    stages the copies run `stages - 2` iterations ahead: iteration i refills
    at its top the stage iteration i - 2 read. With 2 or 3, where that would
    leave one iteration in flight or none, the refill of iteration i - 1's
    stage (the copies of iteration i + stages - 1) moves after the wait and
    a barrier (a `tile.async_wait` that completes nothing) at the end of the
    body: `stages - 1` ahead, at the price of a second barrier per
    iteration. Loops whose accumulators are read in
    the loop (attention's softmax) keep the synchronous dots.

    With `eager-refill`, iteration i refills its own stage with the copies
    of iteration i + stages at the end of its body, after a barrier, and the
    prologue issues iterations 0 .. stages-1: `stages` iterations' copies
    are in flight while an iteration waits, not `stages - 1`, for the same
    shared memory, at the price of one more barrier per iteration. Off by
    default: based on benchmarking, more copies in flight do not pay for
    the barrier on the paged decode kernels (docs/performance.md, "Decode:
    the L2-sector finding and swizzled staging"). Loops staged for wgmma
    keep the default schedule.

    With `tma` (the default), a loop whose staged loads are all wgmma
    operands (`nvmma`) read through tensor maps (their pointers from a
    `tile.tensormap_block`, which `quire-lower-descriptors` makes for a
    descriptor with a tensor map) stages them with TMA instead: each
    buffer gets one mbarrier per stage (`tile.tma_init` before the
    prologue, `tile.tma_inval` after the loop), one thread issues a
    `tile.tma_copy` per operand where the cp.async copies stood (predicated
    on `j < upper bound` instead of a mask: the tensor map zero-fills what
    lies outside the tensor), and every thread waits for the stage it reads
    with `tile.tma_wait` on the stage's phase, which the loop carries (it
    flips each time the stage index wraps). The barrier that orders the
    previous reads of a stage before its refill stays: a `tile.barrier`
    where the `tile.async_wait` stood. No registers hold addresses or
    masks, and no thread issues per-element copies.

    With `tma-release`, the barrier goes too: each staged buffer group has
    release mbarriers (one per stage, one arrival per warp); after its last
    read of a stage (after its dots, or with async wgmma after the wait
    that retires the previous iteration's dots) every warp arrives on the
    stage's (`tile.tma_release`), and the issuing thread waits for the
    stage's release phase before refilling it (`tile.tma_acquire`): the
    warps synchronize only through mbarriers.

    With `warpgroup` and `shared-invariant-operands` (the default), every
    loop reads a loop-invariant register A of its wgmma dots (attention's
    query) from a one-stage shared buffer, stored once before it
    (docs/passes.md, "Loop-invariant A operands of wgmma loops"). The
    pipeline turns it off where quire-warp-specialize follows, which moves
    them itself once it has split the kernel.
  }];
  let options = [
    Option<"stages", "stages", "unsigned", "2",
           "shared-memory buffers per staged operand (2 to 8)">,
    Option<"warpgroup", "warpgroup", "bool", "false",
           "compute staged dots with wgmma (tile.warpgroup_dot, sm_90)">,
    Option<"eagerRefill", "eager-refill", "bool", "false",
           "refill each stage at the end of the iteration that read it "
           "(stages iterations in flight instead of stages - 1; one more "
           "barrier per iteration; not for wgmma-staged loops)">,
    Option<"asyncWgmma", "async-wgmma", "bool", "false",
           "keep wgmma groups in flight across the iterations of a loop "
           "that only carries their accumulators">,
    Option<"tma", "tma", "bool", "true",
           "stage wgmma operands read through tensor maps with TMA "
           "(cp.async.bulk.tensor and mbarriers) instead of cp.async">,
    Option<"tmaRelease", "tma-release", "bool", "false",
           "with tma, each warp releases the stage it read through an "
           "mbarrier that the issuing thread waits on before refilling it, "
           "instead of a CTA barrier per iteration">,
    Option<"pingpong", "pingpong", "bool", "false",
           "with warpgroup and 3 or more stages, stage a two-warpgroup loop "
           "of two synchronous wgmma dots S - 2 iterations ahead and mark "
           "it tile.pingpong, for quire-pingpong">,
    Option<"sharedInvariantOperands", "shared-invariant-operands", "bool",
           "true",
           "with warpgroup, read the loop-invariant register A operands of "
           "every loop's wgmma dots from shared memory, stored once before "
           "the loop">
  ];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def WarpSpecialize : Pass<"quire-warp-specialize", "::mlir::ModuleOp"> {
  let summary = "give a staged loop's copies to producer warps";
  let description = [{
    Kernels with loops staged by `cp.async` (no tensor maps): see
    docs/passes.md, "Producer warps for cp.async loops"; producer warps
    issue every copy and complete each stage's mbarrier with
    `tile.async_arrive`, the consumers wait on it (`tile.tma_wait
    {async_proxy}`) and release it; with `pingpong` the two consumer
    warpgroups issue their dots in turn (`tile.warpgroup_turn`); with
    `producer-warpgroup` one producer warpgroup issues every consumer
    warpgroup's copies (its ops cloned per warpgroup with
    `tile.thread_offset`). A loop whose every copy is of a
    `tile.tensormap_pages` tile is copied by the producer's first thread
    with `tile.tma_copy_pages` instead (one arrival per fill), and its
    consumers clear the rows past the tile's bound after the wait
    (`tile.tma_zero_rows`; docs/passes.md, "Pages through TMA").

    TMA-staged kernels: expects the IR `quire-async-copies` makes with `tma`
    and `tma-release`.
    A kernel whose one TMA-staged loop sits in its body's top level, after
    ops that touch no memory and need no shared memory (scalars, constants,
    index tensors), gets one warp more (`tile.producer_warps = 1` on the
    function; the CTA runs `tile.num_warps + 1` warps), and the loop splits
    in two roles under `scf.if %p = tile.is_producer`:

      producer: for every iteration j of the loop, in order: wait for the
                release of the stage j fills (`tile.tma_acquire`, phase of
                the previous fill) and issue its copies (`tile.tma_copy`),
                both by the producer warp's first thread (`producer`);
      consumers: the loop without its copies and acquires (no prologue):
                 wait for the stage, compute, release it; then the rest of
                 the kernel.

    The mbarriers are still initialized before the split (every thread
    passes the barrier after it); every other barrier of the kernel is a
    named barrier of the consumer warps alone (the lowering's job). So the
    copies of later iterations are issued as soon as their stage is
    released, by a warp that waits for nothing else, and the consumers
    never wait for an issuing thread. Kernels with other shapes are left as
    they are.

    With `producer-warpgroup`, where the consumers are two or more whole
    warpgroups (`tile.num_warps` a multiple of 4, at least 8; with one,
    every thread may hold 255 registers already), the producer is a
    warpgroup (4 warps, `tile.producer_warps = 4`; its first thread issues)
    that gives
    its registers to the consumers: it starts with `tile.setmaxnreg dec`
    to 24 and the consumers with `tile.setmaxnreg inc` to their share of
    the CTA's registers once the producer keeps 24 (a multiple of 8, at
    most 256: 240 for two consumer warpgroups). The CTA starts with 64K /
    its threads each, at most 255, a multiple of 8 (168 for three
    warpgroups): the lowering marks such a kernel `.minnctapersm 1`, which
    ptxas needs to honour setmaxnreg, and the consumers never ask for more
    than the producer gives back. `producer-registers` sets what the
    producer keeps instead (24..256, a multiple of 8): fewer registers for
    the producer's copies (their addresses then spill) and more for the
    consumers (a second scores tile with `quire-early-dots`).

    In both forms the consumers' loops wait on mbarriers; a loop-invariant
    register A of their wgmma dots (the query) is stored once into a
    one-stage shared buffer and read from there (docs/passes.md,
    "Loop-invariant A operands of wgmma loops").
  }];
  let options = [
    Option<"producerWarpgroup", "producer-warpgroup", "bool", "false",
           "a producer warpgroup that gives its registers to the consumer "
           "warpgroups with setmaxnreg, where the consumers are two or more "
           "whole warpgroups">,
    Option<"producerRegisters", "producer-registers", "int32_t", "0",
           "with producer-warpgroup, the registers per thread the producer "
           "keeps (setmaxnreg dec; 24..256, a multiple of 8), the consumers "
           "sharing the rest; 0: 24 for TMA copies, an estimate of what "
           "the cp.async copies' addresses need">,
    Option<"pingpong", "pingpong", "bool", "false",
           "with cp.async producer warps and two consumer warpgroups, the "
           "warpgroups issue the staged loops' dots in turn "
           "(tile.warpgroup_turn)">
  ];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def EarlyDots : Pass<"quire-early-dots", "::mlir::ModuleOp"> {
  let summary = "issue a staged loop's first wgmma dot one iteration early, "
                "so it runs while the iteration computes on the one before";
  let description = [{
    Expects the IR `quire-async-copies` makes on sm_90 (`warpgroup`), with
    the default (not eager, not async-wgmma) schedule and 3 or more stages.
    In a staged loop whose first `tile.warpgroup_dot` reads a
    loop-invariant A, stage `%stage` of its B buffer, and a loop-invariant
    accumulator (attention's scores `S = Q K^T`, their accumulator zero),
    and whose result only this iteration uses (the softmax):

    ```mlir
    scf.for ... iter_args(..., %stage) {
      tile.async_wait {async_proxy, pending = (S-2) x copies}
      ...copies of iteration i + S - 1...
      %s = tile.warpgroup_dot a(%q) b_stage %stage acc %zero
      ...softmax(%s), the other dots...
    }
    ```

    becomes (FlashAttention-3's intra-warpgroup overlap)

    ```mlir
    tile.async_wait {async_proxy, pending = (S-2) x copies}
    %s0 = tile.warpgroup_dot a(%q) b_stage 0 acc %zero
    scf.for ... iter_args(..., %stage, %s = %s0) {
      tile.async_wait {async_proxy, pending = (S-3) x copies}
      %n = tile.warpgroup_dot a(%q) b_stage (%stage + 1) % S acc %zero
          {async}
      ...copies of iteration i + S - 1...
      ...softmax(%s), the other dots...
      %r = tile.warpgroup_wait %n {pending = 0}
      scf.yield ..., %r
    }
    ```

    The dot of iteration i + 1 runs on the tensor cores while iteration i
    computes its softmax. The loop-top wait now also completes iteration
    i + 1's copies (one iteration fewer in flight), and the stage the early
    dot reads is not the one the iteration refills ((i - 1) mod S, S >= 3).
    In the last iteration the early dot reads a stage whose copies were
    masked off (zero-filled) and its result is unused. The register cost is
    a second scores tile; the query is read from its one-stage buffer
    (`a_stages = 1`, `quire-async-copies`' `shared-invariant-operands`),
    and where it is still in registers this pass stores it once into one
    (`tile.local_store`) the same way.

    The consumers' loops of `quire-warp-specialize` (producer warps issue
    the copies; the loop waits on each stage's mbarrier and releases the
    stage) get the same transformation, also with 3 or more stages: the
    producer refills a stage only after its release, so iteration i + 1's
    stage is never the one being refilled while iteration i runs, but with
    2 its fill would start only when iteration i - 1 releases the stage,
    and the early dot would wait for the whole copy. The early dot
    follows the wait for iteration i + 1's stage of its B

    ```mlir
    tile.tma_wait stage %stage phase %p {async_proxy}
    scf.if (iteration i + 1 runs) {
      tile.tma_wait stage (%stage + 1) % S phase (%p, flipped at stage 0)
    }
    %n = tile.warpgroup_dot a(%q) b_stage (%stage + 1) % S acc %zero {async}
    ```

    The wait is guarded because the producer fills no stage past the
    loop's end; in the last iteration the dot reads a stage nothing
    refills before the loop ends, and its result is unused. The first
    scores wait on stage 0 in phase 0 and are computed where the loop runs
    (`scf.if lb < ub`, else the accumulator).
  }];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def OverlapSoftmax : Pass<"quire-overlap-softmax", "::mlir::ModuleOp"> {
  let summary = "issue an attention loop's P V in the next iteration, after "
                "its scores, so the tensor cores compute it during the "
                "softmax";
  let description = [{
    Expects the consumer loops of `quire-warp-specialize` (producer warps
    issue the copies; each iteration waits on its stage's mbarriers and
    releases the stage). A loop with two `tile.warpgroup_dot`s, the scores
    `S = Q K^T` (A loop-invariant, a loop-invariant accumulator)
    and the output `P V` whose accumulator is the loop-carried output
    rescaled by ops of the iteration (`alpha * O`), and whose result is
    only carried:

    ```mlir
    scf.for %i = %lb to %ub ... iter_args(..., %o, %stage) {
      tile.tma_wait stage %stage phase %pk {async_proxy, buffer = K}
      %s = tile.warpgroup_dot a(%q) b_stage %stage acc %zero
      ...softmax(%s): %p, %alpha...
      %c = arith.mulf %o, %alpha
      tile.tma_wait stage %stage phase %pv {async_proxy, buffer = V}
      %n = tile.warpgroup_dot a(%p) b_stage %stage acc %c
      tile.tma_release stage %stage
      scf.yield ..., %n, (%stage + 1) % S
    }
    ```

    becomes (FlashAttention-3's intra-warpgroup overlap of the softmax
    with the GEMMs)

    ```mlir
    %first:... = scf.if (iteration 0 runs) {
      ...iteration 0 without its P V: %o0 = %o_init * %alpha0, %p0...
    }
    %r:... = scf.for %i = %lb + %step to %ub ...
        iter_args(..., %o = %o0, %stage, %pp = %p0, %sp = 0, %vp = %pv0) {
      tile.tma_wait stage %stage phase %pk {async_proxy, buffer = K}
      %s = tile.warpgroup_dot a(%q) b_stage %stage acc %zero {async}
      tile.tma_wait stage %sp phase %vp {async_proxy, buffer = V}
      %n = tile.warpgroup_dot a(%pp) b_stage %sp acc %o {async}
      %s1 = tile.warpgroup_wait %s {older, pending = 1}
      ...softmax(%s1): %p, %alpha...
      %n1 = tile.warpgroup_wait %n {pending = 0}
      tile.tma_release stage %sp
      %c = arith.mulf %n1, %alpha
      scf.yield ..., %c, (%stage + 1) % S, %p, %stage, %pv
    }
    %out = scf.if (iteration 0 ran) {
      ...the last P V: wait V[%r#sp], dot(%r#pp, V[%r#sp], %r#o), release
    }
    ```

    The output of iteration i - 1 runs on the tensor cores while iteration
    i computes its softmax; `O_i = alpha_i (O_{i-1} + P_{i-1} V_{i-1})` is
    the same recurrence. The stage of iteration i - 1 is released one
    iteration later than before, so the producer's fills run one stage
    behind (3 stages keep two fills ahead). The registers: the carried P
    (16-bit, half a scores tile) beside the scores; the query is in
    shared memory, stored once (the dots read it with `a_stages = 1`).

    With `pingpong` and two consumer warpgroups, the two take turns
    (`tile.warpgroup_turn`) issuing each iteration's dots: a warpgroup
    waits for its turn before `S_i`, passes it once `P_{i-1} V_{i-1}` is
    issued, and computes its softmax while the other's two dots run
    (FlashAttention-3's ping-pong with its intra-warpgroup overlap). The
    peeled scores and the last `P V` take a turn each; `start` and `end`
    bracket the loop, and loops one after the other in a block share one
    pair (an end and then a start between them could let one warpgroup's
    start pass the other's end).

    Where K and V have release mbarriers of their own (quire-warp-specialize
    gives each buffer its own), `early-release` frees K's stage as soon as
    the scores that read it retire (after their `tile.warpgroup_wait`)
    rather than with V's after `P V`: the producer refills K an iteration
    sooner, so with 3 stages K's copies run two iterations ahead as V's
    do.

    With `ordered-release`, `P V`'s wait, and the release of V's stage
    after it, come after the softmax's row sums (`tile.warpgroup_wait ...
    after(%l)`, where a carried row statistic is `%l_new = %l * alpha +
    sum(p)`): ptxas otherwise hoists the wait to the softmax's start, so
    the softmax no longer runs while `P V` does (docs/passes.md,
    quire-overlap-softmax).

    With `convert-after-wait`, the ops that only turn the softmax's
    probabilities into P (their conversion to the dot's operand type and
    layout, which nothing else reads) move after the wait for `P V`, as
    FlashAttention-3 converts its P: the softmax keeps its exponentials in
    the scores' registers, and the new P is not live beside the old one that
    the `P V` in flight reads, so keeping that wait after the softmax
    (`ordered-release`) costs 32 registers a thread less at 128 x 128 tiles.

  }];
  let options = [
    Option<"pingpong", "pingpong", "bool", "false",
           "the two consumer warpgroups issue each iteration's dots in turn">,
    Option<"earlyRelease", "early-release", "bool", "true",
           "release K's stage once the scores retire">,
    Option<"orderedRelease", "ordered-release", "bool", "false",
           "wait for P V after the softmax's row sums">,
    Option<"convertAfterWait", "convert-after-wait", "bool", "false",
           "convert the softmax's P to the dot's operand after P V's wait">
  ];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def PingPong : Pass<"quire-pingpong", "::mlir::ModuleOp"> {
  let summary = "run the two warpgroups of an attention loop half an "
                "iteration apart, so one's softmax overlaps the other's dots";
  let description = [{
    Expects the IR `quire-async-copies` makes with `pingpong`: a loop marked
    `tile.pingpong`, staged for wgmma S >= 3 stages deep with its copies
    S - 2 iterations ahead, in a kernel of two warpgroups (8 warps), whose
    two synchronous `tile.warpgroup_dot`s are attention's `S = Q K^T` (the
    first) and `acc = P V` (the second, its A computed from the first's
    result):

    ```mlir
    scf.for %i ... iter_args(%m, %l, %acc, ..., %stage) {
      tile.async_wait ...                    (every thread, a barrier)
      ...copies of iteration i + S - 2...
      %s = tile.warpgroup_dot a(%q) b_stage %stage acc %zero
      ...softmax(%s, %m, %l) -> %p...
      %acc2 = tile.warpgroup_dot a(%p) b_stage %stage acc (%acc * alpha)
      scf.yield ...
    }
    ```

    Both warpgroups meet at the loop-top barrier, so with one schedule they
    run their softmax at the same time while the tensor cores idle. The
    pass gives warpgroup 1 the loop rotated by half an iteration: after the
    barrier of iteration i it runs the softmax and `P V` of iteration i - 1
    (whose scores it carries), then the scores of iteration i, and the last
    iteration's second half after the loop; warpgroup 0 keeps the loop as
    it is. So one warpgroup's softmax runs while the other's dots do
    (FlashAttention-3's ping-pong of two consumer warpgroups, as a
    rotation). Warpgroup 1's first iteration (its wait, copies and scores)
    runs before its loop, so the loop's `P V` is unconditional and, when
    nothing in the iteration reads its result, is issued `async` together
    with the scores: two wgmma groups in flight, retired by one wait.

    ```mlir
    %wg = tile.warpgroup_id
    %runs = arith.cmpi slt, %lb, %ub
    scf.if (%wg == 0) { the loop }
    else {
      %s0 = scf.if %runs { wait; copies; scores of iteration %lb }
      scf.for %i = %lb + %step ... iter_args(%m, %l, %acc, ..., %stage,
                                             %sp = %s0, %ip, %stp) {
        tile.async_wait ...; ...copies...
        ...second half of iteration %ip on %sp, stage %stp, up to
           %pv = tile.warpgroup_dot a(%p) b_stage %stp acc ... {async}
        %s = tile.warpgroup_dot a(%q) b_stage %stage acc %zero {async}
        %acc2, %s2 = tile.warpgroup_wait %pv, %s {pending = 0}
        scf.yield %m2, %l2, %acc2, ..., %s2, %i, %stage
      }
      scf.if %runs { second half of the last iteration }
    }
    ```

    Iteration i's copies refill the stage iteration i - 2 read, so the stage
    warpgroup 1 reads in iteration i (that of i - 1) is intact; the pass
    checks that schedule (the wait's pending count, each copy's stage). Every
    op of the loop must be one a warpgroup runs alone: elementwise ops,
    per-thread loads and copies, reductions whose axis no warps split,
    layout conversions that move nothing between warps (the wgmma A
    operand), and the two dots; and only the second half may read the
    scores and the carried values (the rest of a rotated iteration would see
    them an iteration late). A loop with anything else (which would reach a
    barrier in one warpgroup only, or compute with stale values) is left as
    it is, with the S - 2 schedule. The two loops' top waits become
    `unaligned`: each side reaches its own barrier instruction.
  }];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def SkipUnitRescale : Pass<"quire-skip-unit-rescale", "::mlir::ModuleOp"> {
  let summary = "skip an attention loop's rescale of its accumulator in a "
                "warp whose factors are all 1";
  let description = [{
    Online softmax rescales the running output by `alpha = exp(m - m_new)`
    every iteration, where `m_new` is the row maximum so far: a multiply
    per accumulator element (a thread's whole share of the output tile),
    although `alpha` is exactly 1 in every row whose maximum did not change
    (most rows, once a row has seen some keys). In a kernel's loop, the
    pass finds the rescale of a loop-carried accumulator that feeds a dot's
    accumulator (directly or through the loop's yield),

    ```mlir
    %b = tile.broadcast (tile.expand_dims %alpha)   (%alpha = exp2/exp(%x - %y))
    %r = arith.mulf %acc, %b
    ```

    and multiplies only in a warp where some row it holds has `alpha != 1`
    (or NaN):

    ```mlir
    %ne = arith.cmpf une, %alpha, dense<1.0>
    %any = tile.warp_any %ne
    %r = scf.if %any { arith.mulf %acc, %b } else { %acc }
    ```

    `x * 1.0 == x` for every float, so the results are the same; a warp
    tests its own rows (a few compares and one `vote.sync`) and skips its
    multiplies, 64 a thread for a 128 x 128 f32 output tile in 8 warps. Run
    it after the passes that match the loop's ops (quire-overlap-softmax,
    quire-pingpong), which do not expect the branch.
  }];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def SplitIterations : Pass<"quire-split-iterations", "::mlir::ModuleOp"> {
  let summary = "split a dot loop at the iteration where a branch on its "
                "induction variable turns, the iterations before it without "
                "the branch";
  let description = [{
    An attention loop masks only its last tiles (the causal diagonal, the
    sequence's end): its body branches on the induction variable,

    ```mlir
    scf.for %i = %lb to %ub step %s {
      %e = arith.addi %i, %c          (or %i itself)
      %t = arith.cmpi sgt, %e, %x     (%x defined outside the loop)
      %r = scf.if %t { mask } else { no mask }
      ...
    }
    ```

    and the branch costs every iteration: the code around it cannot be
    scheduled across it (in the overlapped softmax, the row maximum waits
    for it). In a kernel's loop that holds a dot (`tile.dot`,
    `tile.warpgroup_dot`), with a constant positive step and a signed i32
    or narrower induction variable, the pass finds the first `scf.if` of the
    body whose condition is a signed compare of `%i + constant` (or `%i`)
    with a loop-invariant value, so it holds one value up to an iteration
    and the other after it, and splits the loop there:

    ```mlir
    %k = first iteration (on the loop's grid, within [%lb, %ub]) whose
         condition differs from the first's, computed before the loop in i64
    %a = scf.for %i = %lb to %k step %s { no mask, inline }
    %b = scf.for %i = %k to %ub step %s iter_args(%a) { the branch, as before }
    ```

    The second loop keeps the branch, so it is exact whatever its
    condition does; the first runs only iterations where `%i + c` neither
    wraps nor reaches the other side of `%x`. Both loops carry the same
    state, so a loop software-pipelined before (quire-overlap-softmax's
    peeled first scores and last `P V`) stays one pipeline: no second
    prologue or drain, unlike two loops in the kernel's source. Run it last
    among the loop passes: the others match one loop.
  }];
  let dependentDialects = ["::mlir::quire::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_TD
