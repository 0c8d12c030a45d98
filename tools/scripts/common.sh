# Shared by run.sh and test.sh: install what is missing, configure, build.
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail

QUIRE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
QUIRE_BUILD="${QUIRE_BUILD:-$QUIRE_ROOT/build}"

# Debian packages the build and the tests need (DESIGN.md, "Build facts").
QUIRE_APT_PACKAGES=(
  cmake ninja-build g++ pkg-config
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  libzstd-dev zlib1g-dev
  python3 python3-pytest python3-numpy python3-pip python3-setuptools python3-wheel
)

quire_install_missing() {
  local missing=() p
  for p in "${QUIRE_APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  echo "quire: installing missing packages: ${missing[*]}"
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
}

quire_build() {
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  if [[ ! -f "$QUIRE_BUILD/build.ninja" ]]; then
    cmake -G Ninja -S "$QUIRE_ROOT" -B "$QUIRE_BUILD" \
      -DCMAKE_BUILD_TYPE=Release \
      -DPython3_EXECUTABLE=/usr/bin/python3 \
      -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
      "${launcher[@]}" ${QUIRE_CMAKE_ARGS:-}
  fi
  ninja -C "$QUIRE_BUILD" "$@"
}
