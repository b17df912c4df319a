#!/usr/bin/env bash
# Stress the recorder: 8 threads race schedules against cancels on Dispatch and OperationQueue
# through a recorder, then the trace is read back and checked (no contradiction, time never
# going back, end-marker counts equal to the file). SCALE 50 is 8 threads × 100,000 actions per
# family. Prints one "stress …" line per family with events/s.
#
#   scripts/stress.sh [SCALE]
set -euo pipefail
cd "$(dirname "$0")/.."
scale="${1:-50}"
CHRONOSCOPE_STRESS_SCALE="$scale" swift test -c release --filter RecordingStressTests 2>&1 \
  | grep -E "^stress |error|Executed .* tests" | sort -u
