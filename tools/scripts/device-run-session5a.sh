#!/usr/bin/env bash
# Session 5, decode occupancy sweep: register caps x split counts x staging
# depth of the split kernel, and the transposed (swap-AB) kernel, against the
# Triton peer (bench/decode_variants.py).
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cd bench && timeout 540 python3 decode_variants.py 2>&1 | tee $OUT/decode_regcap.log | tail -80
