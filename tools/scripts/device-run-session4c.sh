#!/usr/bin/env bash
# Session 4, GPU call: the prefill op (wgmma, staging buffers shared by its
# two loops) checked and timed against Triton and SDPA with a tile sweep;
# the decode benchmark table; compute-sanitizer on the wgmma kernels.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
(cd bench && timeout 230 python3 paged_prefill.py --tune 2>&1) | tee $OUT/paged_prefill.log
cp bench/out/paged_prefill.png $OUT/ 2>/dev/null
(cd bench && timeout 200 python3 paged_decode.py --out $OUT 2>&1) | tee $OUT/paged_decode.log
cp bench/out/paged_decode.png $OUT/ 2>/dev/null
for tool in memcheck racecheck; do
  (cd bench && timeout 70 compute-sanitizer --tool $tool python3 sanitize_checks.py 2>&1 | tail -4) | tee $OUT/sanitizer_$tool.log
done
