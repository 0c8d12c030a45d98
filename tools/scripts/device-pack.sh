#!/usr/bin/env bash
# Packs what a GPU machine without LLVM needs to run Quire from this tree:
# stripped quirec, quire-run and libquire.so, xz-compressed, into .device/
# (ignored by git). On the GPU machine, `tools/scripts/device-unpack.sh`
# unpacks them and prints the environment to use:
#   eval "$(tools/scripts/device-unpack.sh)"
#   -> QUIRE_LIBRARY, QUIRE_QUIREC, PYTHONPATH=python
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${QUIRE_BUILD:-$root/build}"
ninja -C "$build" quirec quire-run quire-python >/dev/null
mkdir -p "$root/.device"
grep -qx '/.device/' "$root/.git/info/exclude" 2>/dev/null ||
  { mkdir -p "$root/.git/info"; echo '/.device/' >>"$root/.git/info/exclude"; }
for f in bin/quirec bin/quire-run lib/libquire.so; do
  name="$(basename "$f")"
  strip -o "$root/.device/$name" "$build/$f"
  xz -T2 -6 -f "$root/.device/$name"
done
# The commit (and whether the tree differed from it), for the benches'
# first line: the tree the GPU machine gets may carry a stale .git.
{ git -C "$root" rev-parse --short=12 HEAD | tr -d '\n'
  git -C "$root" diff --quiet HEAD || printf '+changes'; echo; } >"$root/.device/COMMIT"
ls -la "$root/.device"
