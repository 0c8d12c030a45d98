#!/usr/bin/env bash
# Session 4, GPU call: wgmma correctness (matmul shapes, each in its own
# process), the GPU test suite, the matmul and prefill benchmarks with
# wgmma on and off. Logs under $OUT.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/gpu.txt
(cd bench && timeout 110 python3 wgmma_check.py 2>&1) | tee $OUT/wgmma_check.log
(cd python/test && timeout 120 python3 -m pytest -q . 2>&1 | tail -15) | tee $OUT/pytest_gpu.log
(cd bench && timeout 150 python3 matmul.py 2>&1) | tee $OUT/matmul.log
cp bench/out/matmul.png $OUT/ 2>/dev/null
(cd bench && timeout 190 python3 paged_prefill.py --tune 2>&1) | tee $OUT/paged_prefill.log
cp bench/out/paged_prefill.png $OUT/ 2>/dev/null
