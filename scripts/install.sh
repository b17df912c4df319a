#!/usr/bin/env bash
# Builds chronoscope and its preload library in release and installs them under PREFIX (default
# ~/.local): PREFIX/bin/chronoscope, PREFIX/lib/chronoscope/libChronoscopePreload.so (where
# `chronoscope record` looks for it) and the bundled recording in PREFIX/share/chronoscope/ (what
# `chronoscope` alone opens).
#
#   scripts/install.sh            # ~/.local; put ~/.local/bin on PATH
#   scripts/install.sh /usr/local # needs write access there
set -euo pipefail
prefix="${1:-$HOME/.local}"
cd "$(dirname "$0")/.."
swift build -c release --product chronoscope
swift build -c release --product ChronoscopePreload
products="$(swift build -c release --show-bin-path)"
install -d "$prefix/bin" "$prefix/lib/chronoscope" "$prefix/share/chronoscope"
install -m 755 "$products/chronoscope" "$prefix/bin/chronoscope"
install -m 644 "$products/libChronoscopePreload.so" "$prefix/lib/chronoscope/libChronoscopePreload.so"
install -m 644 Recordings/busy-app.trace "$prefix/share/chronoscope/busy-app.trace"
echo "installed chronoscope in $prefix/bin, its preload library in $prefix/lib/chronoscope"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "add $prefix/bin to PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
