//===- quirec.cpp - The Quire compiler driver -----------------------------===//
//
// quirec kernel.mlir --sm 90 --num-warps 4 --emit=ptx -o kernel.ptx
//
// Parses flags and calls compileKernel (lib/Pipelines); nothing else.
//
//===----------------------------------------------------------------------===//

#include "quire/Pipelines/Pipelines.h"

#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir::quire;

static cl::OptionCategory category("quirec options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<kernel.mlir | - for stdin>"),
                                      cl::cat(category));
static cl::opt<std::string>
    outputFile("o", cl::desc("output file (default: stdout)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(category));
static cl::opt<unsigned>
    sm("sm",
       cl::desc("target compute capability: 80, 86, 89 or 90 (default 90)"),
       cl::init(90), cl::cat(category));
static cl::opt<unsigned>
    numWarps("num-warps",
             cl::desc("warps per CTA, a power of two in [1, 32] (default 4)"),
             cl::init(4), cl::cat(category));
static cl::opt<EmitKind> emit(
    "emit", cl::desc("what to produce (default ptx)"), cl::init(EmitKind::PTX),
    cl::values(clEnumValN(EmitKind::Tile, "tile",
                          "tile IR after the tile pipeline (layouts assigned)"),
               clEnumValN(EmitKind::LLVMMLIR, "llvm-mlir",
                          "LLVM + NVVM dialect MLIR"),
               clEnumValN(EmitKind::LLVMIR, "llvm", "optimized LLVM IR"),
               clEnumValN(EmitKind::PTX, "ptx", "PTX assembly"),
               clEnumValN(EmitKind::Cubin, "cubin",
                          "cubin through ptxas (needs the CUDA toolkit)"),
               clEnumValN(EmitKind::Meta, "meta",
                          "kernel metadata as JSON: name, arguments, threads, "
                          "shared memory")),
    cl::cat(category));
static cl::opt<bool>
    printIRAfterAll("print-ir-after-all",
                    cl::desc("print the IR after every pass to stderr"),
                    cl::cat(category));
static cl::opt<bool> pagedPrefetch(
    "paged-prefetch", cl::init(true),
    cl::desc("load the next iteration's block-table entries one iteration "
             "ahead; only without cp.async staging (--async-stages 0 or 1, "
             "or below sm_80), which issues the entries its copies need "
             "itself (default true)"),
    cl::cat(category));
static cl::opt<bool>
    pagedSinglePage("paged-single-page", cl::init(true),
                    cl::desc("one scalar block-table entry for tiles that lie "
                             "in one page (default true)"),
                    cl::cat(category));
static cl::opt<bool> pagedShifts(
    "paged-shifts", cl::init(true),
    cl::desc("shifts and masks for power-of-two pages (default true)"),
    cl::cat(category));
static cl::opt<bool> pagedChecked(
    "paged-checked", cl::init(false),
    cl::desc("check block-table entries against num_blocks: rows of a bad "
             "entry read nothing and the kernel prints the first bad entry "
             "and traps (every tile.paged_load needs num_blocks; default "
             "false)"),
    cl::cat(category));
static cl::opt<unsigned> pipelineMaxRegisters(
    "pipeline-max-registers", cl::init(32),
    cl::desc("registers per thread the tiles loaded one loop iteration ahead "
             "may take (quire-pipeline-loads; with cp.async staging, for the "
             "loads it does not stage: those that feed no dot, or whose "
             "runs are under 4 bytes; 0 turns it off; default 32)"),
    cl::cat(category));
static cl::opt<bool>
    mma("mma", cl::init(true),
        cl::desc("run f16/bf16 dots with M >= 16 on tensor cores (mma.sync; "
                 "default true)"),
        cl::cat(category));
static cl::opt<unsigned> sharedBuffers(
    "shared-buffers", cl::init(1),
    cl::desc("shared-memory buffers that layout conversions, reductions and "
             "dots stage through in turn: 2 lets consecutive ones share "
             "barriers (1 or 2; default 1)"),
    cl::cat(category));
static cl::opt<unsigned> asyncStages(
    "async-stages", cl::init(kDefaultAsyncStages),
    cl::desc("stage dot operands loaded in loops through shared memory with "
             "cp.async, this many iterations deep (quire-async-copies, sm_80+; "
             "0 or 1 turns it off and the register prefetches of dot "
             "operands and block-table entries back on; at most 8; default "
             "2)"),
    cl::cat(category));
static cl::opt<bool> wgmma(
    "wgmma", cl::init(true),
    cl::desc("on sm_90, run dots whose B operand is staged by cp.async on "
             "wgmma (warpgroup tensor cores, read from shared memory; PTX "
             "for sm_90a); false keeps mma.sync (default true)"),
    cl::cat(category));
static cl::opt<bool> asyncWgmma(
    "async-wgmma", cl::init(false),
    cl::desc("with --wgmma, keep the wgmma groups of a loop that only "
             "carries their accumulators (a matmul's K loop) in flight while "
             "the next iteration waits for its copies; with fewer than 4 "
             "stages each iteration refills the stage the previous one read "
             "after its wait and a barrier (quire-async-copies async-wgmma; "
             "default false)"),
    cl::cat(category));
static cl::opt<bool>
    tma("tma", cl::init(true),
        cl::desc("on sm_90, stage the wgmma operands a kernel reads through "
                 "tensor maps (!tile.tensormap arguments) with TMA "
                 "(cp.async.bulk.tensor) and mbarriers instead of cp.async "
                 "(quire-async-copies tma; default true)"),
        cl::cat(category));
static cl::opt<bool> tmaRelease(
    "tma-release", cl::init(false),
    cl::desc("with --tma, each warp releases the stage it read through an "
             "mbarrier, and the thread that refills it waits for that, "
             "instead of a CTA barrier per iteration (quire-async-copies "
             "tma-release; default false)"),
    cl::cat(category));
static cl::opt<bool> warpSpecialize(
    "warp-specialize", cl::init(false),
    cl::desc("with --tma-release, a kernel's TMA-staged loop gets a producer "
             "warp (one warp more per CTA) that issues its copies as stages "
             "are released, while the other warps only compute; loops "
             "staged with cp.async get a producer warp per warp (with "
             "--pingpong and 8 warps the consumer warpgroups issue their "
             "dots in turn) (quire-warp-specialize; default false)"),
    cl::cat(category));
static cl::opt<bool> producerWarpgroup(
    "producer-warpgroup", cl::init(false),
    cl::desc("with --warp-specialize (implied), the producer is a warpgroup "
             "(four warps more per CTA) that gives its registers to the "
             "consumer warpgroups with setmaxnreg, where the kernel's warps "
             "are two or more whole warpgroups; for cp.async loops it issues "
             "every consumer warpgroup's copies (quire-warp-specialize "
             "producer-warpgroup; default false)"),
    cl::cat(category));
static cl::opt<unsigned> producerRegisters(
    "producer-registers", cl::init(0),
    cl::desc("with --producer-warpgroup, the registers per thread the "
             "producer keeps (setmaxnreg dec), the consumers sharing the "
             "rest: 0 for the estimate (24 for TMA copies, more for cp.async "
             "copies' addresses), else a multiple of 8 in [24, 256] "
             "(quire-warp-specialize producer-registers; default 0)"),
    cl::cat(category));
static cl::opt<bool> overlapSoftmax(
    "overlap-softmax", cl::init(false),
    cl::desc("with --warp-specialize, issue an attention loop's P V in the "
             "next iteration after its scores, both async, so the tensor "
             "cores compute it during the softmax (quire-overlap-softmax; "
             "default false)"),
    cl::cat(category));
static cl::opt<bool> earlyDots(
    "early-dots", cl::init(false),
    cl::desc("with --wgmma and --async-stages=3 or more, issue the first dot "
             "of a staged loop (attention's scores Q K^T) one iteration "
             "early, asynchronously, so it runs while the iteration computes "
             "its softmax (quire-early-dots; default false)"),
    cl::cat(category));
static cl::opt<bool> earlyRelease(
    "early-release", cl::init(true),
    cl::desc("with --overlap-softmax, release K's stage as soon as the "
             "scores that read it retire, before V's "
             "(quire-overlap-softmax early-release; default true)"),
    cl::cat(category));
static cl::opt<bool> orderedRelease(
    "ordered-release", cl::init(false),
    cl::desc("with --overlap-softmax, wait for P V and release V's stage "
             "after the softmax's row sums, so P V runs during the softmax "
             "(quire-overlap-softmax ordered-release; default false)"),
    cl::cat(category));
static cl::opt<bool> convertAfterWait(
    "convert-after-wait", cl::init(false),
    cl::desc("with --overlap-softmax, convert the softmax's P to the dot's "
             "operand after the wait for P V, so the new P is not live "
             "beside the old one in flight (quire-overlap-softmax "
             "convert-after-wait; default false)"),
    cl::cat(category));
static cl::opt<bool> skipUnitRescale(
    "skip-unit-rescale", cl::init(false),
    cl::desc("skip an attention loop's rescale of its accumulator by "
             "exp(m - m_new) in a warp whose factors are all 1, with the "
             "same results (quire-skip-unit-rescale; default false)"),
    cl::cat(category));
static cl::opt<bool> splitIterations(
    "split-iterations", cl::init(false),
    cl::desc("split a dot loop where a branch on its induction variable "
             "turns (a mask of the last tiles), the iterations before it "
             "without the branch (quire-split-iterations; default false)"),
    cl::cat(category));
static cl::opt<bool> pingpong(
    "pingpong", cl::init(false),
    cl::desc("with --wgmma, --async-stages=3 or more and 8 warps, run the two "
             "warpgroups of an attention loop (two wgmma dots, the second's A "
             "from the first's result) half an iteration apart, so one's "
             "softmax runs beside the other's dots (quire-pingpong; default "
             "false)"),
    cl::cat(category));
static cl::opt<bool> gatheredRows(
    "gathered-rows", cl::init(false),
    cl::desc("give each thread of a load whose rows are gathered through a "
             "loaded index (a paged tile's block-table entries) consecutive "
             "rows of one page (quire-assign-layouts gathered-rows; default "
             "false)"),
    cl::cat(category));
static cl::opt<bool> wideFp8Operands(
    "wide-fp8-operands", cl::init(true),
    cl::desc("renumber the fragments of mma.sync dots over fp8 tiles staged "
             "as bytes so each lane reads 16 consecutive bytes of them "
             "(#tile.mma kWidth, nWidth, mWidth; quire-assign-layouts "
             "wide-fp8-operands; default true)"),
    cl::cat(category));
static cl::opt<bool> fpFusion(
    "fp-fusion", cl::init(true),
    cl::desc("let floating-point multiplies and adds contract into fma, as "
             "nvcc --fmad=true and Triton's enable_fp_fusion do; false rounds "
             "each on its own (default true)"),
    cl::cat(category));
static cl::opt<bool> asyncEagerRefill(
    "async-eager-refill", cl::init(false),
    cl::desc("with --async-stages, refill each stage at the end of the "
             "iteration that read it: as many iterations' copies in flight "
             "as stages, one barrier more per iteration (quire-async-copies "
             "eager-refill; not for wgmma-staged loops; default false)"),
    cl::cat(category));
static cl::opt<bool> swizzleStaging(
    "swizzle-staging", cl::init(true),
    cl::desc("XOR-swizzle the cp.async staging buffers (16-byte chunks, "
             "conflict-free) instead of padding their rows, where the "
             "contiguous dimension is a power of two of 32 bytes or more "
             "(default true)"),
    cl::cat(category));
static cl::opt<unsigned> maxRegisters(
    "max-registers", cl::init(0),
    cl::desc("registers per thread ptxas may give a kernel (.maxnreg): "
             "fewer registers, more resident warps, possibly spills; 0 or "
             "24..255 (default 0: no cap)"),
    cl::cat(category));
static cl::opt<bool> stridedIterArgs(
    "strided-iter-args", cl::init(true),
    cl::desc("rewrite values a loop advances by a fixed stride (p += s) as "
             "functions of the induction variable, so their loads can be "
             "staged (quire-strided-iter-args; default true)"),
    cl::cat(category));
static cl::opt<bool> raisePagedLoads(
    "raise-paged-loads", cl::init(true),
    cl::desc("rewrite tile.loads whose offsets are built from block-table "
             "entries (bt[tok / P] * s0 + tok % P * s1 + col) into "
             "tile.paged_load (quire-raise-paged-loads; default true)"),
    cl::cat(category));
static cl::opt<bool> forwardStores(
    "forward-stores", cl::init(true),
    cl::desc("read the values a program stored in place of loading them "
             "back from memory, and remove barriers that then order nothing "
             "(quire-forward-stores; default true)"),
    cl::cat(category));
static cl::opt<LoopStrengthReduction> loopStrengthReduction(
    "loop-strength-reduction", cl::init(LoopStrengthReduction::Auto),
    cl::desc("LLVM's loop strength reduction in the NVPTX code generator"),
    cl::values(clEnumValN(LoopStrengthReduction::Auto, "auto",
                          "on, except for kernels without tensor-core "
                          "instructions that ptxas fits more CTAs per SM "
                          "without it (default)"),
               clEnumValN(LoopStrengthReduction::On, "on", "always"),
               clEnumValN(LoopStrengthReduction::Off, "off", "never")),
    cl::cat(category));
static cl::opt<std::string>
    metaFile("meta-out",
             cl::desc("also write the kernel metadata JSON to this file"),
             cl::value_desc("file"), cl::cat(category));

/// Flushes `file` and keeps it; a write that failed (a full disk) is an
/// error naming the file, not LLVM's fatal "IO failure on output stream".
static LogicalResult finish(ToolOutputFile &file, StringRef path) {
  file.os().flush();
  if (std::error_code ec = file.os().error()) {
    WithColor::error(errs(), "quirec")
        << "cannot write '" << path << "': " << ec.message() << "\n";
    file.os().clear_error();
    return failure();
  }
  file.keep();
  return success();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // --time-passes is LLVM's own flag (it also times LLVM's O3 and codegen);
  // show it in --help and read it after parsing.
  if (cl::Option *opt = cl::getRegisteredOptions().lookup("time-passes")) {
    opt->addCategory(category);
    opt->setDescription("print the time of every MLIR and LLVM pass to stderr");
  }
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "Quire tile-language compiler\n");

  std::string readError;
  std::unique_ptr<MemoryBuffer> input = readSource(inputFile, readError);
  if (!input) {
    WithColor::error(errs(), "quirec") << readError << "\n";
    return 1;
  }
  if (input->getBuffer().trim().empty()) {
    WithColor::error(errs(), "quirec") << "'" << inputFile << "' is empty\n";
    return 1;
  }
  CompileOptions options;
  options.sm = sm;
  options.numWarps = numWarps;
  options.emit = emit;
  options.printIRAfterAll = printIRAfterAll;
  options.pagedPrefetch = pagedPrefetch;
  options.pagedSinglePage = pagedSinglePage;
  options.pagedShifts = pagedShifts;
  options.pagedChecked = pagedChecked;
  options.pipelineMaxRegisters = pipelineMaxRegisters;
  options.mma = mma;
  options.sharedBuffers = sharedBuffers;
  options.asyncStages = asyncStages;
  options.wgmma = wgmma;
  options.asyncWgmma = asyncWgmma;
  options.tma = tma;
  options.tmaRelease = tmaRelease;
  options.warpSpecialize = warpSpecialize;
  options.producerWarpgroup = producerWarpgroup;
  options.producerRegisters = producerRegisters;
  options.earlyDots = earlyDots;
  options.overlapSoftmax = overlapSoftmax;
  options.earlyRelease = earlyRelease;
  options.orderedRelease = orderedRelease;
  options.convertAfterWait = convertAfterWait;
  options.skipUnitRescale = skipUnitRescale;
  options.splitIterations = splitIterations;
  options.pingpong = pingpong;
  options.wideFp8Operands = wideFp8Operands;
  options.gatheredRows = gatheredRows;
  options.fpFusion = fpFusion;
  options.asyncEagerRefill = asyncEagerRefill;
  options.swizzleStaging = swizzleStaging;
  options.maxRegisters = maxRegisters;
  options.stridedIterArgs = stridedIterArgs;
  options.raisePagedLoads = raisePagedLoads;
  options.forwardStores = forwardStores;
  options.loopStrengthReduction = loopStrengthReduction;
  options.timePasses = llvm::TimePassesIsEnabled;
  CompileResult result;
  std::string diagnostics;
  bool ok =
      succeeded(compileKernel(input->getBuffer(), input->getBufferIdentifier(),
                              options, result, diagnostics));
  errs() << diagnostics;
  if (!ok)
    return 1;

  std::error_code ec;
  auto out = std::make_unique<ToolOutputFile>(
      outputFile, ec,
      emit == EmitKind::Cubin ? sys::fs::OF_None : sys::fs::OF_Text);
  if (ec) {
    WithColor::error(errs(), "quirec")
        << "cannot write '" << outputFile << "': " << ec.message() << "\n";
    return 1;
  }
  out->os() << result.output;
  if (failed(finish(*out, outputFile)))
    return 1;
  if (!metaFile.empty()) {
    auto meta =
        std::make_unique<ToolOutputFile>(metaFile, ec, sys::fs::OF_Text);
    if (ec) {
      WithColor::error(errs(), "quirec")
          << "cannot write '" << metaFile << "': " << ec.message() << "\n";
      return 1;
    }
    meta->os() << kernelInfoToJSON(result.kernels) << "\n";
    if (failed(finish(*meta, metaFile)))
      return 1;
  }
  return 0;
}
