#!/usr/bin/env bash
#===- fuzz.sh - Build and run the libFuzzer target quire-fuzz ------------===#
#
# usage: tools/scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]
#
# Configures build-fuzz/ with clang-22, -fsanitize=fuzzer,address,undefined
# (QUIRE_BUILD_FUZZER=ON, QUIRE_ENABLE_SANITIZERS=ON), builds quire-fuzz at
# the lowest priority, gathers a seed corpus from examples/*.mlir and
# test/**/*.mlir (split at `// -----`) and from the MLIR the Python frontend
# generates for its tests, and fuzzes parse + verify + the full
# pipeline to PTX for SECONDS (default 600). Crashes, timeouts, leaks and
# out-of-memory inputs land in build-fuzz/fuzz/artifacts/; the growing corpus
# in build-fuzz/fuzz/corpus/. Reproduce one with
#   build-fuzz/bin/quire-fuzz build-fuzz/fuzz/artifacts/crash-...
#
# By default libFuzzer runs in fork mode (FORK=1 child) and keeps going
# after a crash, a timeout or an out-of-memory input, so one run collects
# every distinct failure; FORK=0 stops at the first one.
#
# Environment: BUILD_DIR (default build-fuzz), JOBS (default 2), FORK
# (default 1), CC/CXX (default clang-22/clang++-22), FUZZ_SKIP_BUILD=1.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-fuzz}"
JOBS="${JOBS:-2}"
SECONDS_TO_RUN="${1:-600}"
shift || true
CC="${CC:-clang-22}"
CXX="${CXX:-clang++-22}"

if ! command -v "$CXX" >/dev/null; then
  echo "fuzz.sh: $CXX not found; apt-get install -y clang-22 libclang-rt-22-dev" >&2
  exit 1
fi

if [[ "${FUZZ_SKIP_BUILD:-0}" != 1 ]]; then
  if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
    nice -n 19 cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
      -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
      -DQUIRE_ENABLE_SANITIZERS=ON -DQUIRE_BUILD_FUZZER=ON
  fi
  nice -n 19 ninja -C "$BUILD_DIR" -j"$JOBS" quire-fuzz
fi

FUZZ="$BUILD_DIR/fuzz"
SEEDS="$FUZZ/seeds"
mkdir -p "$FUZZ/corpus" "$FUZZ/artifacts" "$SEEDS"
# One seed per file and per `// -----` section; RUN/CHECK lines are kept
# (they are comments to the parser).
python3 - "$ROOT" "$SEEDS" <<'PY'
import glob, hashlib, os, sys
root, out = sys.argv[1], sys.argv[2]
files = glob.glob(f"{root}/examples/*.mlir") + glob.glob(f"{root}/test/**/*.mlir", recursive=True)
# The kernels of the staging tests also under the options that reshape them
# (an options line first: tools/quire-fuzz/quire-fuzz.cpp).
OPTIONS = [b"// quire-fuzz: sm=90 num-warps=8 async-stages=3 warp-specialize=1\n",
           b"// quire-fuzz: sm=90 num-warps=8 async-stages=4 async-wgmma=1 "
           b"producer-warpgroup=1\n",
           b"// quire-fuzz: sm=90 num-warps=8 async-stages=3 early-dots=1\n",
           b"// quire-fuzz: sm=90 num-warps=8 producer-warpgroup=1 "
           b"overlap-softmax=1 producer-registers=40\n",
           b"// quire-fuzz: sm=90 num-warps=8 async-stages=3 pingpong=1\n",
           b"// quire-fuzz: sm=90 num-warps=8 gathered-rows=1\n"]
n = 0
for f in sorted(files):
    data = open(f, "rb").read()
    staged = "/Transforms/" in f or "/Target/" in f
    for part in data.split(b"// -----"):
        if not part.strip():
            continue
        for prefix in [b""] + (OPTIONS if staged else []):
            seed = prefix + part
            name = hashlib.sha1(seed).hexdigest()
            with open(os.path.join(out, name), "wb") as fh:
                fh.write(seed)
            n += 1
print(f"fuzz.sh: {n} seeds from {len(files)} files")
PY

# The frontend's output: every kernel the Python tests generate, written by
# QUIRE_DUMP_DIR (needs the regular build's libquire.so, QUIRE_BUILD).
LIB="${QUIRE_BUILD:-$ROOT/build}/lib/libquire.so"
if [[ -f "$LIB" ]]; then
  QUIRE_LIBRARY="$LIB" QUIRE_DUMP_DIR="$SEEDS" QUIRE_NO_CACHE=1 \
    PYTHONPATH="$ROOT/python" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
    "$ROOT"/python/test/test_frontend_*.py "$ROOT/python/test/test_tutorials.py" \
    "$ROOT/python/test/test_raise_paged_loads.py" >/dev/null 2>&1 || true
  echo "fuzz.sh: $(ls "$SEEDS" | grep -c '\.mlir$') seeds from the frontend"
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}"
FORK="${FORK:-1}"
FORK_FLAGS=()
if [[ "$FORK" != 0 ]]; then
  FORK_FLAGS=(-fork="$FORK" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
cd "$FUZZ"
exec nice -n 19 "$BUILD_DIR/bin/quire-fuzz" \
  -max_total_time="$SECONDS_TO_RUN" -timeout=20 -rss_limit_mb=4096 \
  -max_len=16384 -print_final_stats=1 "${FORK_FLAGS[@]}" \
  -dict="$ROOT/tools/quire-fuzz/tile.dict" \
  -artifact_prefix="$FUZZ/artifacts/" "$@" "$FUZZ/corpus" "$SEEDS"
