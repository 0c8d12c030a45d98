/*===- quire-c/Quire.h - Quire's C API ---------------------------*- C -*-===*\
|*                                                                            *|
|* The stable boundary of libquire.so: compile a tile-dialect module to PTX   *|
|* (or cubin, or an intermediate form) with its kernel metadata, read a       *|
|* module's kernel signatures, run a kernel on host buffers in the CPU        *|
|* reference interpreter, and make a recorded sequence of CUDA launches.      *|
|* Python binds it with ctypes (python/quire/_lib.py); any language with a C  *|
|* FFI can.                                                                   *|
|*                                                                            *|
|* Conventions:                                                               *|
|*  - Plain C types only; no C++ exception or STL object crosses it.          *|
|*  - Every object the library returns is owned by the caller and released    *|
|*    with the matching Destroy function. Destroy functions accept NULL.      *|
|*  - Strings handed out stay valid until the object that holds them is       *|
|*    destroyed; they are NUL-terminated, and binary outputs (cubin) also     *|
|*    report their size.                                                      *|
|*  - Source text is passed with an explicit size: a NUL byte or text that   *|
|*    is not UTF-8 is a located error, never a crash.                         *|
|*  - Failures are results, not return codes: a QuireResult that did not     *|
|*    succeed carries located diagnostics                                     *|
|*    (`kernel.mlir:12:7: error: ...`) as text.                               *|
|*  - Functions may be called from several threads; compilations are         *|
|*    serialized inside the library, interpreter runs are not.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUIRE_C_QUIRE_H
#define QUIRE_C_QUIRE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define QUIRE_CAPI_EXPORTED __declspec(dllexport)
#else
#define QUIRE_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a declaration in this file changes incompatibly. Bindings
 * compare it with quireGetAPIVersion() before calling anything else. */
#define QUIRE_CAPI_VERSION 1

/*===----------------------------------------------------------------------===*
 * Versions
 *===----------------------------------------------------------------------===*/

/* The API version the library was built with (QUIRE_CAPI_VERSION). */
QUIRE_CAPI_EXPORTED int quireGetAPIVersion(void);

/* The compiler version, e.g. "0.1.0". */
QUIRE_CAPI_EXPORTED const char *quireGetVersion(void);

/* The GNU build ID of libquire.so as lowercase hex, a hash of the linked
 * code: it changes whenever any part of the compiler does, so caches of
 * compiled kernels key on it. "" when the library has no build ID. */
QUIRE_CAPI_EXPORTED const char *quireGetBuildID(void);

/*===----------------------------------------------------------------------===*
 * Results
 *===----------------------------------------------------------------------===*/

/* The outcome of one call: success or failure, diagnostics, and outputs. */
typedef struct QuireResult QuireResult;

/* 1 when the call succeeded, 0 otherwise (and for NULL). */
QUIRE_CAPI_EXPORTED int quireResultSucceeded(const QuireResult *result);

/* Every diagnostic, one per line with its location and the source line;
 * warnings on success, errors on failure. "" when there are none. */
QUIRE_CAPI_EXPORTED const char *
quireResultGetDiagnostics(const QuireResult *result);

/* What was asked for (quireCompile: the emit kind's text or cubin bytes).
 * `size`, when not NULL, receives its length in bytes. */
QUIRE_CAPI_EXPORTED const char *quireResultGetOutput(const QuireResult *result,
                                                     size_t *size);

/* quireCompile: the PTX whenever the pipeline got that far, whatever the
 * emit kind (empty for QUIRE_EMIT_TILE and QUIRE_EMIT_LLVM_MLIR). */
QUIRE_CAPI_EXPORTED const char *quireResultGetPTX(const QuireResult *result,
                                                  size_t *size);

/* quireCompile and quireGetKernelInfo: the kernels' metadata as JSON,
 * {"kernels": [{"name", "args": [{"kind", "type", "bits", "divisibility"}],
 * "threads", "shared_bytes"}]}. "" on failure. */
QUIRE_CAPI_EXPORTED const char *
quireResultGetMetadata(const QuireResult *result);

/* The IR after every pass when the options asked for it
 * (quireCompileOptionsSetDumpIR), also of a failed compilation up to the
 * failure; "" otherwise. */
QUIRE_CAPI_EXPORTED const char *quireResultGetIRDump(const QuireResult *result,
                                                     size_t *size);

QUIRE_CAPI_EXPORTED void quireResultDestroy(QuireResult *result);

/*===----------------------------------------------------------------------===*
 * Compiling
 *===----------------------------------------------------------------------===*/

/* What quireCompile stops at. Values are stable. */
typedef enum QuireEmitKind {
  QUIRE_EMIT_PTX = 0,       /* PTX assembly (text) */
  QUIRE_EMIT_CUBIN = 1,     /* cubin through ptxas (needs the CUDA toolkit) */
  QUIRE_EMIT_META = 2,      /* the metadata JSON as the output */
  QUIRE_EMIT_TILE = 3,      /* tile IR after the tile pipeline */
  QUIRE_EMIT_LLVM_MLIR = 4, /* LLVM + NVVM dialect MLIR */
  QUIRE_EMIT_LLVM_IR = 5    /* optimized LLVM IR */
} QuireEmitKind;

/* Options of one compilation; an object so fields can be added without
 * breaking callers. Defaults: sm 90, 4 warps, QUIRE_EMIT_PTX, unchecked
 * paged loads. */
typedef struct QuireCompileOptions QuireCompileOptions;

QUIRE_CAPI_EXPORTED QuireCompileOptions *quireCompileOptionsCreate(void);
QUIRE_CAPI_EXPORTED void
quireCompileOptionsDestroy(QuireCompileOptions *options);
/* Values are checked by quireCompile, which reports bad ones as
 * diagnostics; the setters store anything. */
QUIRE_CAPI_EXPORTED void quireCompileOptionsSetSM(QuireCompileOptions *options,
                                                  uint32_t sm);
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetNumWarps(QuireCompileOptions *options, uint32_t numWarps);
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetEmit(QuireCompileOptions *options, int32_t emit);
/* Nonzero: checked paged loads (quirec --paged-checked). Every
 * tile.paged_load must then have num_blocks; a block-table entry outside
 * [0, num_blocks) is never dereferenced, and the kernel prints it (vprintf,
 * on the process's stdout) and traps, so the launch fails. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetPagedChecked(QuireCompileOptions *options,
                                   int32_t checked);
/* Stages of cp.async staging for dot operands loaded in loops (quirec
 * --async-stages; sm_80+). 0 or 1 turns it off; at most 8; default 2. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetAsyncStages(QuireCompileOptions *options,
                                  uint32_t stages);
/* Nonzero (the default): on sm_90, dots whose B operand the cp.async
 * staging holds run on wgmma, reading shared memory (quirec --wgmma; the
 * PTX then targets sm_90a). Zero keeps mma.sync. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetWgmma(QuireCompileOptions *options, int32_t wgmma);
/* Nonzero: with wgmma and async staging, a loop that only carries
 * its wgmma accumulators (a matmul's K loop) keeps each iteration's wgmma
 * groups running while the next iteration waits for its copies (quirec
 * --async-wgmma). Zero (the default) waits for every group in its
 * iteration. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetAsyncWgmma(QuireCompileOptions *options,
                                 int32_t asyncWgmma);
/* Nonzero (the default): on sm_90, the wgmma operands a kernel reads
 * through tensor maps (!tile.tensormap arguments) are staged with TMA and
 * mbarriers (quirec --tma). Zero stages them with cp.async. */
QUIRE_CAPI_EXPORTED void quireCompileOptionsSetTma(QuireCompileOptions *options,
                                                   int32_t tma);
/* Nonzero: with TMA staging, each warp releases the stage it read through
 * an mbarrier that the thread refilling it waits on, instead of a CTA
 * barrier per iteration (quirec --tma-release). Zero (the default) keeps
 * the barrier. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetTmaRelease(QuireCompileOptions *options,
                                 int32_t tmaRelease);
/* Nonzero: with TMA release, a kernel's TMA-staged loop gets a producer
 * warp (one more warp per CTA) that issues its copies, and a kernel's
 * cp.async-staged loops get producer warps (as many as the kernel's warps)
 * that issue theirs (quirec --warp-specialize). Zero (the default) leaves
 * the copies to the warps that compute. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetWarpSpecialize(QuireCompileOptions *options,
                                     int32_t warpSpecialize);
/* Nonzero: warp specialization (implied) with a producer warpgroup (four
 * warps more per CTA) that gives its registers to the consumer warpgroups
 * through setmaxnreg, where the kernel's warps are two or more whole
 * warpgroups (quirec --producer-warpgroup). Zero (the default): a producer warp
 * when warp specialization is on. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetProducerWarpgroup(QuireCompileOptions *options,
                                        int32_t producerWarpgroup);
/* With a producer warpgroup, the registers per thread it keeps
 * (setmaxnreg.dec), the consumer warpgroups sharing the rest (quirec
 * --producer-registers): 0 (the default) for the compiler's estimate (24
 * for TMA copies, more for cp.async copies' addresses), else a multiple
 * of 8 in [24, 256]; other values are a diagnostic of quireCompile. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetProducerRegisters(QuireCompileOptions *options,
                                        uint32_t producerRegisters);
/* Nonzero: with wgmma and 3 or more async stages, a staged loop's first
 * dot (attention's scores Q K^T: A in registers from before the loop, a
 * loop-invariant accumulator) is issued one iteration early, so the tensor
 * cores compute iteration i + 1's scores during iteration i's softmax
 * (quirec --early-dots). Zero (the default) issues it in its iteration. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetEarlyDots(QuireCompileOptions *options,
                                int32_t earlyDots);
/* Nonzero: with warp specialization, an attention loop's P V (its second
 * wgmma dot, the accumulator the carried output rescaled) is issued in the
 * next iteration right after that iteration's scores, both async, so the
 * tensor cores compute it during the softmax (quirec --overlap-softmax).
 * Zero (the default) issues it in its own iteration. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetOverlapSoftmax(QuireCompileOptions *options,
                                     int32_t overlapSoftmax);
/* Nonzero (the default): with the softmax overlap, K's stage is released as
 * soon as the scores that read it retire, before V's, so the producer
 * refills it an iteration sooner (quirec --early-release). Zero releases
 * both after P V. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetEarlyRelease(QuireCompileOptions *options,
                                   int32_t earlyRelease);
/* Nonzero: with the softmax overlap, the wait for P V, and V's release
 * after it, come after the softmax's row sums, so P V runs during the
 * softmax (quirec --ordered-release). Zero (the default) leaves the wait's
 * place to ptxas. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetOrderedRelease(QuireCompileOptions *options,
                                     int32_t orderedRelease);
/* Nonzero: with the softmax overlap, the conversion of the softmax's P to
 * the dot's operand goes after the wait for P V, so the new P is not live
 * beside the old one in flight (quirec --convert-after-wait). Zero (the
 * default) leaves it where the softmax computes it. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetConvertAfterWait(QuireCompileOptions *options,
                                       int32_t convertAfterWait);
/* Nonzero: an attention loop's rescale of its accumulator by
 * exp(m - m_new) is skipped in a warp whose factors are all 1, with the same
 * results (quirec --skip-unit-rescale). Zero (the default) always
 * multiplies. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetSkipUnitRescale(QuireCompileOptions *options,
                                      int32_t skipUnitRescale);
/* Nonzero: a dot loop whose body branches on its induction variable (a
 * mask of the last tiles) is split where the branch turns, the iterations
 * before it without the branch (quirec --split-iterations). Zero (the
 * default) keeps one loop. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetSplitIterations(QuireCompileOptions *options,
                                      int32_t splitIterations);
/* Nonzero: with wgmma, 3 or more async stages and 8 warps, the two
 * warpgroups of an attention loop (two wgmma dots, the second's A computed
 * from the first's result) run half an iteration apart, one's softmax beside
 * the other's dots (quirec --pingpong). Zero (the default) runs them in step.
 */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetPingpong(QuireCompileOptions *options, int32_t pingpong);
/* Nonzero: a load whose rows are gathered through a loaded index (a paged
 * tile's block-table entries) gives each thread consecutive rows of one
 * page (quirec --gathered-rows). Zero (the default; timed, it moves no
 * kernel) keeps the rows of a thread the lanes and warps apart. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetGatheredRows(QuireCompileOptions *options,
                                   int32_t gatheredRows);
/* Nonzero (the default): mma.sync dots over fp8 tiles staged as bytes
 * renumber their fragments so each lane reads 16 consecutive bytes of them
 * (quirec --wide-fp8-operands). Zero keeps the instruction's own fragments,
 * read one or two bytes at a time. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetWideFp8Operands(QuireCompileOptions *options,
                                      int32_t wideFp8Operands);
/* Nonzero (the default): floating-point multiplies and adds may contract
 * into fma, as nvcc's --fmad=true and Triton's enable_fp_fusion do (quirec
 * --fp-fusion). Zero rounds each multiply and add on its own. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetFpFusion(QuireCompileOptions *options, int32_t fpFusion);
/* Registers per thread ptxas may give each kernel (quirec --max-registers,
 * PTX .maxnreg): 0 (the default) for no cap, else 24..255; other values are
 * a diagnostic of quireCompile. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetMaxRegisters(QuireCompileOptions *options,
                                   uint32_t maxRegisters);

/* Nonzero (the default): tile.loads whose offsets a kernel builds from
 * block-table entries (`bt[tok / P] * s0 + (tok % P) * s1 + col`, the
 * natural form of a Triton paged kernel) become tile.paged_load (quirec
 * --raise-paged-loads); zero leaves them as written. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetRaisePagedLoads(QuireCompileOptions *options,
                                      int32_t raise);

/* Nonzero (the default): a tile.load of what the program itself stored
 * earlier in the same block (a scratch buffer written and read back, with a
 * barrier between) reads the stored values instead, and barriers that then
 * order nothing are removed (quirec --forward-stores); zero leaves them as
 * written. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetForwardStores(QuireCompileOptions *options,
                                    int32_t forward);

/* Nonzero: the compilation records the IR after every pass of its pipeline
 * (quirec --print-ir-after-all), read with quireResultGetIRDump. */
QUIRE_CAPI_EXPORTED void
quireCompileOptionsSetDumpIR(QuireCompileOptions *options, int32_t dump);

/* Parses, verifies and compiles `source` (`size` bytes; it needs no NUL
 * terminator). `bufferName` names it in diagnostics (NULL: "<source>").
 * NULL options mean the defaults. Never returns NULL. */
QUIRE_CAPI_EXPORTED QuireResult *
quireCompile(const char *source, size_t size, const char *bufferName,
             const QuireCompileOptions *options);

/* Parses and verifies `source` and returns the signature of each kernel as
 * metadata JSON, without running any pipeline: "threads" and
 * "shared_bytes" are 0. For interpreting kernels the GPU backend cannot
 * compile yet. Never returns NULL. */
QUIRE_CAPI_EXPORTED QuireResult *
quireGetKernelInfo(const char *source, size_t size, const char *bufferName);

/*===----------------------------------------------------------------------===*
 * Interpreting
 *===----------------------------------------------------------------------===*/

typedef enum QuireInterpArgKind {
  QUIRE_INTERP_ARG_BUFFER = 0, /* host memory for a !tile.ptr argument */
  QUIRE_INTERP_ARG_INT = 1,    /* an integer argument */
  QUIRE_INTERP_ARG_FLOAT = 2   /* a float argument */
} QuireInterpArgKind;

/* One kernel argument. A buffer's `data`/`bytes` is the memory the pointer
 * may reach, starting at the address the kernel receives; the caller owns it
 * and keeps it valid during the call. Writes land in it directly. */
typedef struct QuireInterpArg {
  int32_t kind;      /* a QuireInterpArgKind */
  int32_t readOnly;  /* buffer: a store into it is reported as an error */
  void *data;        /* buffer: first byte (NULL only when bytes is 0) */
  uint64_t bytes;    /* buffer: size in bytes */
  int64_t intValue;  /* int: the value (two's complement for unsigned) */
  double floatValue; /* float: the value, rounded to the argument type */
} QuireInterpArg;

/* Runs kernel `kernelName` of `source` (NULL or "": the only kernel) over
 * `grid` (x, y, z, each >= 1) in the reference interpreter, with one entry of
 * `args` per kernel argument. Out-of-bounds, misaligned or read-only
 * accesses fail the call with the op's location and the program id; buffers
 * keep the writes of the programs that ran before. Never returns NULL. */
QUIRE_CAPI_EXPORTED QuireResult *
quireInterpret(const char *source, size_t size, const char *bufferName,
               const char *kernelName, const int64_t grid[3],
               const QuireInterpArg *args, size_t numArgs);

/*===----------------------------------------------------------------------===*
 * Launching
 *===----------------------------------------------------------------------===*/

/* One recorded kernel launch (a plan's: python/quire/ops/plan.py). The
 * library does not link the CUDA driver: `function` is a CUfunction and the
 * caller passes the driver's cuLaunchKernel. `buffer` holds the kernel's
 * parameters packed as the kernel expects them and `params[i]` points at
 * parameter i inside it (cuLaunchKernel's kernelParams). Before the launch,
 * `numSlots` 8-byte pointer parameters are written: the little-endian
 * addresses[slotIndices[s]] at buffer + slotOffsets[s]. */
typedef struct QuireLaunch {
  void *function;
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t sharedBytes;
  void **params;
  unsigned char *buffer;
  const uint32_t *slotOffsets;
  const uint32_t *slotIndices;
  uint32_t numSlots;
} QuireLaunch;

/* The driver's cuLaunchKernel, as quireLaunchKernels calls it. */
typedef int (*QuireCuLaunchKernel)(void *function, unsigned gridX,
                                   unsigned gridY, unsigned gridZ,
                                   unsigned blockX, unsigned blockY,
                                   unsigned blockZ, unsigned sharedBytes,
                                   void *stream, void **params, void **extra);

/* Fills each launch's pointer slots from `addresses` (which has an entry for
 * every slot index) and launches it on `stream`, in order. Returns 0, or the
 * CUresult of the first launch that failed, whose index goes to *failed
 * (when not NULL); the launches after it are not made. A NULL
 * cuLaunchKernel or launches (with numLaunches > 0), or a launch with slots
 * and a NULL addresses, buffer or slot array, fails that launch with 1
 * (CUDA_ERROR_INVALID_VALUE) before it is made. The caller serializes calls
 * that share a QuireLaunch (its buffer is written). */
QUIRE_CAPI_EXPORTED int quireLaunchKernels(QuireCuLaunchKernel cuLaunchKernel,
                                           const QuireLaunch *launches,
                                           size_t numLaunches,
                                           const uint64_t *addresses,
                                           void *stream, size_t *failed);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_C_QUIRE_H */
