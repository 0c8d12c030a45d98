#!/usr/bin/env bash
# Session 5: source counters (uncoalesced / excessive sectors per
# instruction) of Quire's decode split kernel.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
cd bench && timeout 300 ncu --clock-control none --kernel-name regex:'decode_split' \
  --launch-skip 2 --launch-count 1 --section SourceCounters --section MemoryWorkloadAnalysis_Tables \
  --print-details all python3 decode_profile.py > $OUT/ncu_src.txt 2>&1
echo "ncu rc $?"
grep -vE "^==PROF==" $OUT/ncu_src.txt | sed -n 1,200p | cut -c1-220
