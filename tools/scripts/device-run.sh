#!/usr/bin/env bash
# Runs one benchmark or check on a GPU machine that has no LLVM: installs the
# wheel and unpacks the tools tools/scripts/device-pack.sh carried in
# .device/, then
# `bench/run.py BENCH ARGS...`. The output is also written to $OUT/BENCH.log
# and plots go to $OUT ($OUT defaults to bench/out).
#   tools/scripts/device-run.sh paged_decode
#   tools/scripts/device-run.sh wgmma_check 128 256 64 8
set -euo pipefail
(($# >= 1)) || { echo "usage: $0 BENCH [ARGS...]  (bench/run.py --list)" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
eval "$("$root/tools/scripts/device-unpack.sh")"
export BENCH_OUT="${OUT:-$root/bench/out}"
mkdir -p "$BENCH_OUT"
python3 "$root/bench/run.py" "$@" 2>&1 | tee "$BENCH_OUT/$1.log"
