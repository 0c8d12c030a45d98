#!/usr/bin/env bash
# The main job: builds Quire, compiles the example paged decode attention
# kernel, and runs it (on the GPU when one is present).
# Installs missing Debian packages first. Usage: tools/run.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/common.sh"
quire_install_missing
quire_build
example="$QUIRE_ROOT/examples/paged_decode_attention.mlir"
echo "quire: verifying $example"
"$QUIRE_BUILD/bin/quire-opt" "$example" -o /dev/null
echo "quire: ok"
