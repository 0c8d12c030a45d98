#!/usr/bin/env bash
# The main job: builds Quire, compiles the example paged decode attention
# kernel to PTX, runs it in the CPU interpreter against a float64 NumPy
# reference, runs examples/hello.py (a @quire.jit kernel), and on the GPU
# against torch when a GPU (and torch) is present.
# Installs missing Debian packages first. Usage: tools/run.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/common.sh"
quire_install_missing
quire_build
example="$QUIRE_ROOT/examples/paged_decode_attention.mlir"
out="$QUIRE_BUILD/paged_decode_attention.ptx"
echo "quire: compiling $example -> $out"
"$QUIRE_BUILD/bin/quirec" "$example" --sm 90 -o "$out" --meta-out "$out.json"
echo "quire: $(grep -c 'ld.global.v4' "$out") 128-bit loads in the PTX; metadata in $out.json"
echo "quire: running it in the interpreter (16 sequences, ragged lengths, random block tables)"
tmp="$(mktemp -d)"
/usr/bin/python3 "$QUIRE_ROOT/test/Interpreter/Inputs/differential.py" paged_decode_attention \
  --quire-run "$QUIRE_BUILD/bin/quire-run" --source "$example" --tmp "$tmp"
rm -rf "$tmp"
echo "quire: examples/hello.py (a Triton-style kernel through @quire.jit)"
PYTHONPATH="$QUIRE_BUILD/python" /usr/bin/python3 "$QUIRE_ROOT/examples/hello.py"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 &&
   python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "quire: GPU found: running the examples on it"
  PYTHONPATH="$QUIRE_BUILD/python" QUIRE_PYTHONPATH="$QUIRE_BUILD/python" \
    python3 "$QUIRE_ROOT/bench/run.py" gpu_check
else
  echo "quire: no GPU (or no torch with CUDA): skipped the GPU run"
fi
