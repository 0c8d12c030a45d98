#!/usr/bin/env bash
# Packs what a GPU machine without LLVM needs to run Quire from this tree:
# the wheel (dist/quire-*.whl, the package with libquire.so inside) and the
# stripped quirec and quire-run, xz-compressed, into .device/ (ignored by
# git). On the GPU machine, `tools/scripts/device-unpack.sh` installs the
# wheel with pip into .device/site, as a user would, unpacks the tools and
# prints the environment to use:
#   eval "$(tools/scripts/device-unpack.sh)"
#   -> PYTHONPATH=.device/site, QUIRE_PYTHONPATH= (bench/run.py: the
#      installed package), QUIRE_QUIREC
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${QUIRE_BUILD:-$root/build}"
ninja -C "$build" quirec quire-run quire-wheel >/dev/null
mkdir -p "$root/.device"
grep -qx '/.device/' "$root/.git/info/exclude" 2>/dev/null ||
  { mkdir -p "$root/.git/info"; echo '/.device/' >>"$root/.git/info/exclude"; }
# Only what is carried: not an unpacked copy (device-unpack.sh run here).
rm -rf "$root"/.device/*.whl "$root"/.device/libquire.so* "$root/.device/site" \
  "$root/.device/quirec" "$root/.device/quire-run"
cp "$root"/dist/quire-*-py3-none-linux_x86_64.whl "$root/.device/"
for f in bin/quirec bin/quire-run; do
  name="$(basename "$f")"
  strip -o "$root/.device/$name" "$build/$f"
  xz -T2 -6 -f "$root/.device/$name"
done
# The commit (and whether the tree differed from it), for the benches'
# first line: the tree the GPU machine gets may carry a stale .git.
{ git -C "$root" rev-parse --short=12 HEAD | tr -d '\n'
  git -C "$root" diff --quiet HEAD || printf '+changes'; echo; } >"$root/.device/COMMIT"
ls -la "$root/.device"
