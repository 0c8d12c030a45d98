#!/usr/bin/env bash
# Session 5, eager refill: the decode kernels with quire-async-copies
# eager-refill (stages iterations in flight for the same shared memory).
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
cd bench && timeout 500 python3 decode_variants.py --eager 2>&1 | tee $OUT/decode_eager.log | grep -E "^\||triton"
