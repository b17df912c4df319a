#!/usr/bin/env bash
# What runs in parallel, under ThreadSanitizer, in its own build folder: the schedulers, the
# recorder, the virtual clocks (async one included) and the parallel trace reader.
#
#   scripts/tsan.sh [extra swift test arguments]
#
# Reports inside Synchronization.Mutex are a toolchain false positive and are suppressed (see
# scripts/tsan.supp); anything else TSan prints is a real race. Wall-clock bounds in the tests
# scale with CHRONOSCOPE_TIME_SCALE, since TSan slows the code several times. TSan leaves the
# crash signals to the program, so the crash-flush tests see them as they would without it.
set -euo pipefail
cd "$(dirname "$0")/.."
export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan.supp halt_on_error=0 handle_segv=0 handle_sigbus=0 handle_sigill=0 handle_abort=0 handle_sigfpe=0 ${TSAN_OPTIONS:-}"
export CHRONOSCOPE_TIME_SCALE="${CHRONOSCOPE_TIME_SCALE:-10}"
export CHRONOSCOPE_SANITIZER=thread
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift test --sanitize=thread --build-path .build-tsan \
  --filter 'ChronoscopeSchedulingTests|ChronoscopeRecordingTests|ChronoscopeVirtualTimeTests|ParallelReadingTests|TraceParserTests' "$@" 2>&1 | tee "$log"
races=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "ThreadSanitizer reports (after suppressions): $races"
[ "$races" -eq 0 ]
