#!/usr/bin/env bash
# Stress the recorder: 8 threads race schedules against cancels on Dispatch and OperationQueue
# through a recorder, then the trace is read back and checked (no contradiction, time never
# going back, end-marker counts equal to the file). SCALE 50 is 8 threads × 100,000 actions per
# family. Prints one "stress …" line per family with events/s.
#
#   scripts/stress.sh [SCALE]              # SIGNAL_RUNS=1000 for more signalled programs
set -euo pipefail
cd "$(dirname "$0")/.."
scale="${1:-50}"
CHRONOSCOPE_STRESS_SCALE="$scale" swift test -c release --filter RecordingStressTests 2>&1 \
  | grep -E "^stress |error|Executed .* tests" | sort -u
# Signals at random moments to busy recorded programs (the preload's signal path): each must end
# by its signal with its crash line. SIGNAL_RUNS programs (default 300), in release.
CHRONOSCOPE_SIGNAL_STRESS_RUNS="${SIGNAL_RUNS:-300}" swift test -c release \
  --filter RecordSignalStressTests 2>&1 | grep -E "error|Executed .* tests" | sort -u
