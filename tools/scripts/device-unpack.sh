#!/usr/bin/env bash
# Unpacks .device/*.xz (see device-pack.sh) and prints the environment that
# points the Python package, bench/run.py and the tests at them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
for f in "$root"/.device/*.xz; do xz -dkf "$f"; done
chmod +x "$root/.device/quirec" "$root/.device/quire-run"
echo "export QUIRE_LIBRARY=$root/.device/libquire.so QUIRE_QUIREC=$root/.device/quirec PYTHONPATH=$root/python"
