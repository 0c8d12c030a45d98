//===- quire-fuzz.cpp - libFuzzer target over the whole compiler ---------===//
//
// Feeds arbitrary bytes to compileKernel as a kernel source: parse, verify,
// the tile and LLVM pipelines and the NVPTX backend down to PTX, exactly as
// quirec and libquire run them. Any input may be rejected with diagnostics;
// what the fuzzer looks for is everything else: crashes, assertions, LLVM
// fatal errors, sanitizer reports, hangs and leaks.
//
// The first line of an input may pick the options, so the fuzzer also
// explores them: `// quire-fuzz: sm=80 num-warps=8`. Without it, sm 90 and
// 4 warps. Values outside the supported sets must be rejected cleanly too.
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  CompileOptions options;
  options.emit = EmitKind::PTX;
  llvm::StringRef first = source.take_until([](char c) { return c == '\n'; });
  if (first.starts_with("// quire-fuzz:")) {
    readOption(first, "sm=", options.sm);
    readOption(first, "num-warps=", options.numWarps);
  }
  CompileResult result;
  std::string diagnostics;
  (void)compileKernel(source, "fuzz.mlir", options, result, diagnostics);
  return 0;
}
