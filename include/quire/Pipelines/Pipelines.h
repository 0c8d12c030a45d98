//===- Pipelines.h - Quire's pass pipelines and compile driver --*- C++ -*-===//
//
// The pipelines quire-opt registers and quirec/libquire run, so the three
// compile exactly the same way:
//   quire-tile-pipeline   verify, canonicalize, lower paged loads, layouts
//   quire-llvm-pipeline   the above, then tile -> LLVM + NVVM
// and `compileKernel`, which runs them and the NVPTX backend on a source.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_PIPELINES_PIPELINES_H
#define QUIRE_PIPELINES_PIPELINES_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "quire/Target/NVPTX/EmitPTX.h"
#include "llvm/Support/MemoryBuffer.h"

#include <string>
#include <vector>

namespace mlir::quire {

/// Stages of cp.async staging for dot operands in loops (quire-async-copies).
constexpr unsigned kDefaultAsyncStages = 2;

struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<unsigned> sm{*this, "sm", llvm::cl::desc("compute capability"),
                      llvm::cl::init(90)};
  Option<unsigned> numWarps{*this, "num-warps", llvm::cl::desc("warps per CTA"),
                            llvm::cl::init(4)};
  Option<bool> pagedPrefetch{*this, "paged-prefetch",
                             llvm::cl::desc("quire-lower-paged-loads prefetch "
                                            "(only without async staging)"),
                             llvm::cl::init(true)};
  Option<bool> pagedSinglePage{
      *this, "paged-single-page",
      llvm::cl::desc("quire-lower-paged-loads single-page"),
      llvm::cl::init(true)};
  Option<bool> pagedShifts{*this, "paged-shifts",
                           llvm::cl::desc("quire-lower-paged-loads shifts"),
                           llvm::cl::init(true)};
  Option<bool> pagedChecked{*this, "paged-checked",
                            llvm::cl::desc("quire-lower-paged-loads checked"),
                            llvm::cl::init(false)};
  Option<unsigned> pipelineMaxRegisters{
      *this, "pipeline-max-registers",
      llvm::cl::desc("quire-pipeline-loads max-registers (0: off; with "
                     "async staging, for the loads it does not stage)"),
      llvm::cl::init(32)};
  Option<unsigned> sharedBuffers{
      *this, "shared-buffers",
      llvm::cl::desc("quire-convert-tile-to-llvm shared-buffers"),
      llvm::cl::init(1)};
  Option<bool> mma{*this, "mma",
                   llvm::cl::desc("quire-assign-layouts mma (tensor cores)"),
                   llvm::cl::init(true)};
  Option<unsigned> asyncStages{
      *this, "async-stages",
      llvm::cl::desc("quire-async-copies stages (0 or 1: off; on sm_80+ it "
                     "replaces the paged prefetch, and quire-pipeline-loads "
                     "for the dot operands it can stage)"),
      llvm::cl::init(kDefaultAsyncStages)};
  Option<bool> asyncEagerRefill{
      *this, "async-eager-refill",
      llvm::cl::desc("quire-async-copies eager-refill"), llvm::cl::init(false)};
  Option<bool> swizzleStaging{
      *this, "swizzle-staging",
      llvm::cl::desc("quire-convert-tile-to-llvm swizzle-staging"),
      llvm::cl::init(true)};
  Option<unsigned> maxRegisters{
      *this, "max-registers",
      llvm::cl::desc("quire-convert-tile-to-llvm max-registers (0: no cap)"),
      llvm::cl::init(0)};
  Option<bool> stridedIterArgs{
      *this, "strided-iter-args",
      llvm::cl::desc("quire-strided-iter-args (loop-carried strides as "
                     "functions of the induction variable)"),
      llvm::cl::init(true)};
  Option<bool> forwardStores{
      *this, "forward-stores",
      llvm::cl::desc("quire-forward-stores (a program's loads of what it "
                     "stored read the stored values; barriers that order "
                     "nothing removed)"),
      llvm::cl::init(true)};
  Option<bool> raisePagedLoads{
      *this, "raise-paged-loads",
      llvm::cl::desc("quire-raise-paged-loads (natural paged gathers -> "
                     "tile.paged_load)"),
      llvm::cl::init(true)};
  Option<bool> wgmma{
      *this, "wgmma",
      llvm::cl::desc("on sm_90 with async staging, compute staged dots with "
                     "wgmma (quire-assign-layouts/quire-async-copies "
                     "warpgroup)"),
      llvm::cl::init(true)};
  Option<bool> asyncWgmma{
      *this, "async-wgmma",
      llvm::cl::desc("keep wgmma groups in flight across the iterations of "
                     "a loop that only carries their accumulators "
                     "(quire-async-copies async-wgmma)"),
      llvm::cl::init(false)};
  Option<bool> tma{
      *this, "tma",
      llvm::cl::desc("on sm_90, stage wgmma operands read through tensor "
                     "maps with TMA and mbarriers (quire-async-copies tma)"),
      llvm::cl::init(true)};
  Option<bool> tmaRelease{
      *this, "tma-release",
      llvm::cl::desc("with tma, warps release the stages they read through "
                     "mbarriers instead of a CTA barrier per iteration "
                     "(quire-async-copies tma-release)"),
      llvm::cl::init(false)};
  Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("with tma-release, a producer warp issues a TMA-staged "
                     "loop's copies; producer warps issue the copies of "
                     "cp.async-staged loops (quire-warp-specialize)"),
      llvm::cl::init(false)};
  Option<bool> producerWarpgroup{
      *this, "producer-warpgroup",
      llvm::cl::desc("with warp-specialize, the producer is a warpgroup that "
                     "gives its registers to the consumer warpgroups with "
                     "setmaxnreg (quire-warp-specialize producer-warpgroup)"),
      llvm::cl::init(false)};
  Option<unsigned> producerRegisters{
      *this, "producer-registers",
      llvm::cl::desc("with producer-warpgroup, the registers per thread the "
                     "producer keeps (0: the pass's estimate; else 24..256, "
                     "a multiple of 8; quire-warp-specialize "
                     "producer-registers)"),
      llvm::cl::init(0)};
  Option<bool> earlyDots{
      *this, "early-dots",
      llvm::cl::desc("issue a wgmma-staged loop's first dot (attention's "
                     "scores) one iteration early, so it runs during the "
                     "softmax (quire-early-dots; 3+ async stages)"),
      llvm::cl::init(false)};
  Option<bool> overlapSoftmax{
      *this, "overlap-softmax",
      llvm::cl::desc("with producer warps, issue an attention loop's P V in "
                     "the next iteration after its scores, so it runs during "
                     "the softmax (quire-overlap-softmax)"),
      llvm::cl::init(false)};
  Option<bool> earlyRelease{
      *this, "early-release",
      llvm::cl::desc("with overlap-softmax, release K's stage once the "
                     "scores retire, before V's (quire-overlap-softmax "
                     "early-release)"),
      llvm::cl::init(true)};
  Option<bool> orderedRelease{
      *this, "ordered-release",
      llvm::cl::desc("with overlap-softmax, wait for P V and release V's "
                     "stage after the softmax's row sums (quire-overlap-"
                     "softmax ordered-release)"),
      llvm::cl::init(false)};
  Option<bool> convertAfterWait{
      *this, "convert-after-wait",
      llvm::cl::desc("with overlap-softmax, convert the softmax's P to the "
                     "dot's operand after P V's wait (quire-overlap-softmax "
                     "convert-after-wait)"),
      llvm::cl::init(false)};
  Option<bool> skipUnitRescale{
      *this, "skip-unit-rescale",
      llvm::cl::desc("skip an attention loop's rescale of its accumulator in "
                     "a warp whose factors are all 1 "
                     "(quire-skip-unit-rescale)"),
      llvm::cl::init(false)};
  Option<bool> splitIterations{
      *this, "split-iterations",
      llvm::cl::desc("split a dot loop where a branch on its induction "
                     "variable turns, the iterations before it without the "
                     "branch (quire-split-iterations)"),
      llvm::cl::init(false)};
  Option<bool> pingpong{
      *this, "pingpong",
      llvm::cl::desc("run the two warpgroups of a wgmma attention loop half "
                     "an iteration apart, one's softmax beside the other's "
                     "dots (quire-pingpong; 3+ async stages, 8 warps)"),
      llvm::cl::init(false)};
  Option<bool> gatheredRows{
      *this, "gathered-rows",
      llvm::cl::desc("give each thread of a load with gathered rows "
                     "consecutive rows of one page (quire-assign-layouts "
                     "gathered-rows)"),
      llvm::cl::init(false)};
  Option<bool> wideFp8Operands{
      *this, "wide-fp8-operands",
      llvm::cl::desc("renumber the fragments of dots over staged fp8 tiles "
                     "so each lane reads 16 consecutive bytes "
                     "(quire-assign-layouts wide-fp8-operands)"),
      llvm::cl::init(true)};
};

/// Deepest bracket nesting ((, [, {, <) a kernel source may have. The MLIR
/// parser recurses per level; without a bound a hostile input overflows the
/// stack instead of getting a diagnostic.
constexpr unsigned kMaxNestingDepth = 1000;

/// Fails with "<name>:<line>:<col>: error: ..." on `diag` if `source`
/// nests brackets deeper than `limit` (outside strings and comments).
LogicalResult checkNestingDepth(llvm::StringRef source, llvm::StringRef name,
                                unsigned limit, llvm::raw_ostream &diag);
/// Fails with a located error on a NUL byte or text that is not UTF-8 (the
/// lexer would take a NUL for whitespace, and either into a name).
LogicalResult checkSourceBytes(llvm::StringRef source, llvm::StringRef name,
                               llvm::raw_ostream &diag);
/// Both checks, at kMaxNestingDepth: what every entry point runs on a source
/// before the parser sees it.
LogicalResult checkSource(llvm::StringRef source, llvm::StringRef name,
                          llvm::raw_ostream &diag);

/// The most columns of a source line a diagnostic shows.
constexpr size_t kMaxShownColumns = 240;

/// Diagnostics as mlir::SourceMgrDiagnosticHandler prints them, but a
/// source line longer than kMaxShownColumns shows only the columns around
/// the location (an error on a line of megabytes printed the whole line,
/// twice its size with the caret's).
class ClippedDiagnosticHandler : public SourceMgrDiagnosticHandler {
public:
  ClippedDiagnosticHandler(llvm::SourceMgr &mgr, MLIRContext *ctx,
                           llvm::raw_ostream &os);

private:
  void emit(Diagnostic &diag);
  /// The source line `loc` points into where it is too long to show whole.
  std::optional<llvm::StringRef> longLine(Location loc);
  void emitClipped(Location loc, const Twine &message, DiagnosticSeverity kind,
                   llvm::StringRef line);
};

/// The most bytes a kernel source read from a file or stdin may hold.
constexpr uint64_t kMaxSourceBytes = uint64_t(1) << 30;

/// The contents of file `path` ("-": stdin), read up to kMaxSourceBytes:
/// null with `error` set when it cannot be read or is larger (a device such
/// as /dev/zero never ends).
std::unique_ptr<llvm::MemoryBuffer> readSource(llvm::StringRef path,
                                               std::string &error);

void buildTilePipeline(OpPassManager &pm, const PipelineOptions &options);
void buildLLVMPipeline(OpPassManager &pm, const PipelineOptions &options);
void registerPipelines();

/// What `compileKernel` stops at and returns.
enum class EmitKind { Tile, LLVMMLIR, LLVMIR, PTX, Cubin, Meta };

struct CompileOptions {
  unsigned sm = 90;
  unsigned numWarps = 4;
  EmitKind emit = EmitKind::PTX;
  bool printIRAfterAll = false;
  /// Where printIRAfterAll prints (null: stderr).
  llvm::raw_ostream *irDumpStream = nullptr;
  bool timePasses = false;
  /// The steps of quire-lower-paged-loads (to measure each one); the
  /// prefetch only without async staging (asyncStages < 2 or sm < 80).
  bool pagedPrefetch = true;
  bool pagedSinglePage = true;
  bool pagedShifts = true;
  /// Check block-table entries against num_blocks (the kernel reports the
  /// first bad one and traps); every paged_load then needs num_blocks.
  bool pagedChecked = false;
  /// Registers per thread quire-pipeline-loads may carry (0: no pipelining);
  /// with async staging, for the loads it does not stage.
  unsigned pipelineMaxRegisters = 32;
  /// Tensor-core (mma.sync) layouts for f16/bf16 dots.
  bool mma = true;
  /// Shared-memory buffers staging ops take in turn (1 or 2).
  unsigned sharedBuffers = 1;
  /// cp.async stages for dot operands loaded in loops (0 or 1: off).
  unsigned asyncStages = kDefaultAsyncStages;
  /// On sm_90 with async staging: dots on wgmma (warpgroup tensor cores).
  bool wgmma = true;
  /// wgmma groups stay in flight across loop iterations
  /// (quire-async-copies async-wgmma).
  bool asyncWgmma = false;
  /// wgmma operands read through tensor maps staged with TMA
  /// (quire-async-copies tma).
  bool tma = true;
  /// With tma, stages released through mbarriers (quire-async-copies
  /// tma-release).
  bool tmaRelease = false;
  /// With tmaRelease, a producer warp issues the copies
  /// (quire-warp-specialize).
  bool warpSpecialize = false;
  /// With warpSpecialize, a producer warpgroup and setmaxnreg
  /// (quire-warp-specialize producer-warpgroup).
  bool producerWarpgroup = false;
  /// With producerWarpgroup, the registers per thread the producer keeps;
  /// 0: the pass's estimate (quire-warp-specialize producer-registers).
  unsigned producerRegisters = 0;
  /// A wgmma-staged loop's first dot issued one iteration early
  /// (quire-early-dots).
  bool earlyDots = false;
  /// With producer warps, an attention loop's P V issued in the next
  /// iteration after its scores (quire-overlap-softmax).
  bool overlapSoftmax = false;
  /// With overlapSoftmax, K's stage released once the scores retire
  /// (quire-overlap-softmax early-release).
  bool earlyRelease = true;
  /// With overlapSoftmax, V's stage released after the softmax's row sums
  /// (quire-overlap-softmax ordered-release).
  bool orderedRelease = false;
  /// With overlapSoftmax, P converted to the dot's operand after P V's wait
  /// (quire-overlap-softmax convert-after-wait).
  bool convertAfterWait = false;
  /// An attention loop's rescale skipped in a warp whose factors are all 1
  /// (quire-skip-unit-rescale).
  bool skipUnitRescale = false;
  /// A dot loop split where a branch on its induction variable turns
  /// (quire-split-iterations).
  bool splitIterations = false;
  /// The two warpgroups of a wgmma attention loop half an iteration apart
  /// (quire-async-copies pingpong, quire-pingpong).
  bool pingpong = false;
  /// Loads with gathered rows give each thread consecutive rows of one
  /// page (quire-assign-layouts gathered-rows).
  bool gatheredRows = false;
  /// Dots over staged fp8 tiles renumber their fragments so each lane reads
  /// 16 consecutive bytes (quire-assign-layouts wide-fp8-operands).
  bool wideFp8Operands = true;
  /// Async staging refills a stage at the end of the iteration that read it
  /// (quire-async-copies eager-refill).
  bool asyncEagerRefill = false;
  /// cp.async staging buffers XOR-swizzled instead of padded where they can
  /// be (quire-convert-tile-to-llvm swizzle-staging).
  bool swizzleStaging = true;
  /// Registers per thread ptxas may use (.maxnreg); 0: no cap.
  unsigned maxRegisters = 0;
  /// Loop-carried strides rewritten from the induction variable
  /// (quire-strided-iter-args).
  bool stridedIterArgs = true;
  /// Natural paged gathers raised to tile.paged_load
  /// (quire-raise-paged-loads).
  bool raisePagedLoads = true;
  /// A program's loads of what it stored read the stored values
  /// (quire-forward-stores).
  bool forwardStores = true;
  /// LLVM's loop strength reduction in the NVPTX code generator (Auto: left
  /// out where that gives a kernel more resident CTAs, EmitPTX.h).
  LoopStrengthReduction loopStrengthReduction = LoopStrengthReduction::Auto;
  /// Multiplies and adds contract into fma (PTXOptions::fpFusion).
  bool fpFusion = true;
};

struct KernelArgInfo {
  std::string kind;  // "ptr", "int" or "float"
  std::string type;  // MLIR spelling: "!tile.ptr<f16>", "i32", "f32"
  unsigned bits = 0; // scalar bit width (64 for pointers)
  int64_t divisibility = 1;
};

struct KernelInfo {
  std::string name;
  std::vector<KernelArgInfo> args;
  unsigned threads = 0;
  int64_t sharedBytes = 0;
};

struct CompileResult {
  std::string output;              // text (or cubin bytes) of `emit`
  std::string ptx;                 // PTX, when the pipeline got that far
  std::vector<KernelInfo> kernels; // metadata of every kernel
};

/// Parses `source` (named `bufferName` in diagnostics), verifies and compiles
/// it. On failure returns failure and `diagnostics` holds every message with
/// its location; on success `diagnostics` holds warnings, if any.
LogicalResult compileKernel(llvm::StringRef source, llvm::StringRef bufferName,
                            const CompileOptions &options,
                            CompileResult &result, std::string &diagnostics);

/// The metadata as JSON (one object with a "kernels" array).
std::string kernelInfoToJSON(const std::vector<KernelInfo> &kernels);

} // namespace mlir::quire

#endif // QUIRE_PIPELINES_PIPELINES_H
