#!/usr/bin/env bash
# Builds Quire and runs every test: lit/FileCheck (check-quire) and pytest.
# Installs missing Debian packages first. Usage: tools/test.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/common.sh"
quire_install_missing
quire_build
ninja -C "$QUIRE_BUILD" check-quire
