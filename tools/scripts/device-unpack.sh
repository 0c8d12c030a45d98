#!/usr/bin/env bash
# Installs the wheel device-pack.sh carried into .device/site with pip (no
# dependencies, no index: the machine reaches no registry), unpacks the
# tools, and prints the environment that points the tests and bench/run.py
# at the installed package.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
for f in "$root"/.device/*.xz; do xz -dkf "$f"; done
chmod +x "$root/.device/quirec" "$root/.device/quire-run"
python3 -m pip install --quiet --no-deps --no-index --disable-pip-version-check \
  --root-user-action=ignore \
  --upgrade --target "$root/.device/site" "$root"/.device/quire-*.whl >&2
echo "export PYTHONPATH=$root/.device/site QUIRE_PYTHONPATH= QUIRE_QUIREC=$root/.device/quirec"
echo "unset QUIRE_LIBRARY"
