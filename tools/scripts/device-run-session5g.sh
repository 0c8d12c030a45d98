#!/usr/bin/env bash
# Session 5: swizzled (default now) vs padded cp.async staging buffers on the
# decode kernels, and correctness of prefill and matmul on swizzled staging.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
cd bench
timeout 300 python3 decode_variants.py --swizzle 8B MHA 2>&1 | tee $OUT/decode_swizzle.log | grep -E "^\||triton|Error"
timeout 120 python3 paged_prefill.py --check-only 2>&1 | tail -15
timeout 120 python3 matmul.py --quick 2>&1 | tail -8
