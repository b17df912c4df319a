#!/usr/bin/env bash
# Runs every command that reads traces over hostile inputs — the fuzzers' corpora (Fuzz/run.sh)
# and the bundled recordings — and reports any run that does not end with status 0, 1 or 2 (a
# trap or a crash), export JSON that does not parse, a redaction that does not validate or is not
# idempotent, and control bytes in `show` output; then `record`'s surfaces (scripts/hostile-record.sh).
#
#   scripts/hostile-sweep.sh [FILES_PER_CORPUS]     # default 100; a release build is used
set -uo pipefail
cd "$(dirname "$0")/.."
per="${1:-100}"
swift build -c release --product chronoscope >/dev/null
B=.build/release/chronoscope
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
runs=0
run() {
  timeout 20 "$@" >"$work/out" 2>"$work/err"
  status=$?
  runs=$((runs + 1))
  if [ "$status" -gt 2 ]; then
    failures=$((failures + 1))
    echo "status $status: $*"
    head -3 "$work/err"
  fi
}
inputs=$(ls Recordings/*.trace; for corpus in Fuzz/.build/corpus/*/; do
  ls -d "$corpus"* 2>/dev/null | head -n "$per"
done)
previous=Recordings/contact-loader.trace
for file in $inputs; do
  run $B export "$file" -o "$work/e.json"
  if [ "$status" -eq 0 ] && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/e.json"; then
    failures=$((failures + 1)); echo "export JSON does not parse: $file"
  fi
  run $B export "$file" "$previous" -o "$work/e.json.gz" --gzip
  run $B redact "$file" -o "$work/r.trace"
  if [ "$status" -eq 0 ]; then
    run $B validate "$work/r.trace"
    [ "$status" -le 1 ] || { failures=$((failures + 1)); echo "redacted trace invalid: $file"; }
    timeout 20 $B redact "$work/r.trace" -o "$work/r2.trace" >/dev/null 2>&1
    cmp -s "$work/r.trace" "$work/r2.trace" || { failures=$((failures + 1)); echo "redact not idempotent: $file"; }
  fi
  run $B slice "$file" -o "$work/s.trace" --from 0ms --to 1ms
  run $B diff "$file" "$previous"
  run $B check --merge "$file" "$previous"
  run $B stats --merge "$file" "$previous" --json
  run $B show "$file" "$previous" --size 100x30
  if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f]' "$work/out"; then
    failures=$((failures + 1)); echo "control bytes in show output: $file"
  fi
  previous=$file
done
echo "$runs runs, $failures failures"
# `record`'s own surfaces: output kinds, rotation, signals, FIFOs, links, odd program paths.
scripts/hostile-record.sh || failures=$((failures + 1))
[ "$failures" -eq 0 ]
