#!/usr/bin/env bash
# Session 4, last GPU call: the GPU test suite (the packed launch path),
# decode correctness (31 cases) and benchmark (host time per call), and the
# prefill benchmark with its new default tiles.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
(cd python/test && timeout 100 python3 -m pytest -q . 2>&1 | tail -6) | tee $OUT/pytest_gpu.log
(cd bench && timeout 90 python3 decode_check.py 2>&1 | tail -8) | tee $OUT/decode_check.log
(cd bench && timeout 150 python3 paged_decode.py --out $OUT 2>&1) | tee $OUT/paged_decode.log
(cd bench && timeout 150 python3 paged_prefill.py 2>&1) | tee $OUT/paged_prefill.log
cp bench/out/paged_prefill.png $OUT/ 2>/dev/null
