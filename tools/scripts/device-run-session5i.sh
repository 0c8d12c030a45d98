#!/usr/bin/env bash
# Session 5, final (in priority order, short device budget): the issue's
# decode benchmark table, correctness of the decode op (transposed GQA
# kernel, swizzled staging) on every combination, compute-sanitizer on
# ragged runs, the GPU tests.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/gpu.txt
(cd bench && timeout 170 python3 paged_decode.py --out $OUT 2>&1) | tee $OUT/paged_decode.log
(cd bench && timeout 80 python3 decode_check.py 2>&1 | tail -6) | tee $OUT/decode_check.log
for tool in memcheck racecheck; do
  (cd bench && timeout 70 compute-sanitizer --tool $tool python3 sanitize_checks.py 2>&1 | tail -3) | tee $OUT/sanitizer_$tool.log
done
(cd python/test && timeout 80 python3 -m pytest -q test_gpu.py test_packing.py 2>&1 | tail -4) | tee $OUT/pytest_gpu.log
