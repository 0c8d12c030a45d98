//===- quire-fuzz.cpp - libFuzzer target over the whole compiler ---------===//
//
// Feeds arbitrary bytes to compileKernel as a kernel source: parse, verify,
// the tile and LLVM pipelines and the NVPTX backend down to PTX, exactly as
// quirec and libquire run them. Any input may be rejected with diagnostics;
// what the fuzzer looks for is everything else: crashes, assertions, LLVM
// fatal errors, sanitizer reports, hangs and leaks.
//
// The first line of an input may pick the options, so the fuzzer also
// explores them: `// quire-fuzz: sm=80 num-warps=8 async-stages=3
// warp-specialize=1` (the numbers sm, num-warps, async-stages,
// max-registers, producer-registers; the flags async-wgmma, tma-release,
// warp-specialize, producer-warpgroup, overlap-softmax, early-dots,
// pingpong, gathered-rows, checked, as 0 or 1). Without it, sm 90, 4 warps and the defaults. Values outside the
// supported sets must be rejected cleanly too.
//
// Built by tools/scripts/fuzz.sh (QUIRE_BUILD_FUZZER=ON with clang).
//
//===----------------------------------------------------------------------===//

#include "quire/Pipelines/Pipelines.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir::quire;

/// Reads `key=N` from the options line, if present.
static void readOption(llvm::StringRef line, llvm::StringRef key,
                       unsigned &value) {
  size_t pos = line.find(key);
  if (pos == llvm::StringRef::npos)
    return;
  llvm::StringRef rest = line.drop_front(pos + key.size());
  unsigned parsed;
  if (!rest.consumeInteger(10, parsed))
    value = parsed;
}

/// Reads `key=0` or `key=1` from the options line, if present.
static void readFlag(llvm::StringRef line, llvm::StringRef key, bool &value) {
  unsigned parsed = value;
  readOption(line, key, parsed);
  value = parsed != 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  CompileOptions options;
  options.emit = EmitKind::PTX;
  llvm::StringRef first = source.take_until([](char c) { return c == '\n'; });
  if (first.starts_with("// quire-fuzz:")) {
    readOption(first, "sm=", options.sm);
    readOption(first, "num-warps=", options.numWarps);
    readOption(first, "async-stages=", options.asyncStages);
    readOption(first, "max-registers=", options.maxRegisters);
    readOption(first, "producer-registers=", options.producerRegisters);
    readFlag(first, "async-wgmma=", options.asyncWgmma);
    readFlag(first, "tma-release=", options.tmaRelease);
    readFlag(first, "warp-specialize=", options.warpSpecialize);
    readFlag(first, "producer-warpgroup=", options.producerWarpgroup);
    readFlag(first, "overlap-softmax=", options.overlapSoftmax);
    readFlag(first, "early-release=", options.earlyRelease);
    readFlag(first, "ordered-release=", options.orderedRelease);
    readFlag(first, "convert-after-wait=", options.convertAfterWait);
    readFlag(first, "skip-unit-rescale=", options.skipUnitRescale);
    readFlag(first, "split-iterations=", options.splitIterations);
    readFlag(first, "early-dots=", options.earlyDots);
    readFlag(first, "pingpong=", options.pingpong);
    readFlag(first, "gathered-rows=", options.gatheredRows);
    readFlag(first, "checked=", options.pagedChecked);
  }
  CompileResult result;
  std::string diagnostics;
  (void)compileKernel(source, "fuzz.mlir", options, result, diagnostics);
  return 0;
}
