#!/usr/bin/env bash
# The replay and inspector tests with the replay's invariants checked after every step
# (`CHRONOSCOPE_INTERNAL_CHECKS`, as swift-collections' `COLLECTIONS_INTERNAL_CHECKS`), in their
# own build folder so the ordinary build stays as it is.
#
#   scripts/internal-checks.sh [extra swift test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
swift test -Xswiftc -DCHRONOSCOPE_INTERNAL_CHECKS --scratch-path .build-checks \
  --filter 'ChronoscopeReplayTests|ChronoscopeInspectorTests' "$@"
