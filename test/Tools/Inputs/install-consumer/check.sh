#!/usr/bin/env bash
# usage: check.sh BUILD_DIR TMP KERNEL.mlir
# Installs BUILD_DIR into TMP/prefix with cmake --install, checks the tree,
# then builds hello.c against it twice, with find_package(Quire) and with
# pkg-config, and runs both on KERNEL.mlir (their output goes to stdout).
set -euo pipefail
build="$1" tmp="$2" kernel="$3"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$tmp" && mkdir -p "$tmp"
prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
for f in bin/quirec bin/quire-opt bin/quire-run; do
  [[ -x "$prefix/$f" ]] || { echo "missing $f" >&2; exit 1; }
done
"$prefix/bin/quirec" --version >/dev/null
[[ -f "$prefix/include/quire-c/Quire.h" ]] || { echo "missing Quire.h" >&2; exit 1; }
lib="$(find "$prefix" -name 'libquire.so' -path '*/lib*')"
[[ -L "$lib" ]] || { echo "libquire.so is not the SONAME link" >&2; exit 1; }
soname="$(objdump -p "$lib" | awk '/SONAME/ {print $2}')"
echo "SONAME $soname"
[[ -e "$(dirname "$lib")/$soname" ]] || { echo "missing $soname" >&2; exit 1; }
# find_package(Quire) -> Quire::quire
cmake -G Ninja -S "$here" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_RPATH="$(dirname "$lib")" >"$tmp/configure.log"
cmake --build "$tmp/consumer" >"$tmp/build.log"
echo "find_package:"
"$tmp/consumer/quire-hello" "$kernel"
# pkg-config (the .pc file finds its prefix from where it is)
pc="$(dirname "$(find "$prefix" -name quire.pc)")"
flags="$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs quire)"
# shellcheck disable=SC2086
cc "$here/hello.c" -o "$tmp/hello-pc" $flags -Wl,-rpath,"$(dirname "$lib")"
echo "pkg-config: $(PKG_CONFIG_PATH="$pc" pkg-config --modversion quire)"
"$tmp/hello-pc" "$kernel"
