#!/usr/bin/env bash
# Session 4, profile: Nsight Compute on Quire's and Triton's decode kernels
# (Llama-3-8B 64 x 4096): throughput, memory, warp stalls, occupancy.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
cd bench && timeout 240 ncu --clock-control none --kernel-name regex:'decode|combine' \
  --launch-skip 4 --launch-count 4 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
  python3 decode_profile.py > $OUT/ncu_decode.txt 2>&1
echo "ncu rc $?"
grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Eligible Warps|Issued Warp|No Eligible|Stall|Waves Per SM|Dynamic Shared" $OUT/ncu_decode.txt | head -120
