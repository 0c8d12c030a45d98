#!/usr/bin/env bash
# Session 4, first GPU call: the GPU test suite, the prefill op's checks and
# tile sweep against Triton, and Nsight Compute on both prefill kernels.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/gpu.txt
(cd python/test && timeout 300 python3 -m pytest -q -x . 2>&1 | tail -15) | tee $OUT/pytest_gpu.log
(cd bench && timeout 400 python3 paged_prefill.py --tune 2>&1) | tee $OUT/paged_prefill_tune.log
(cd bench && timeout 150 ncu --clock-control none --kernel-name regex:'paged_prefill|_prefill_kernel' \
   --launch-skip 2 --launch-count 2 --section SpeedOfLight --section ComputeWorkloadAnalysis \
   --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
   python3 prefill_profile.py > $OUT/ncu_prefill.txt 2>&1; echo "ncu rc $?"; grep -E "Duration|Throughput|Pipe|Registers|Achieved Occupancy|Stall" $OUT/ncu_prefill.txt | head -60)
