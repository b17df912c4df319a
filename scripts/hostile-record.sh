#!/usr/bin/env bash
# `chronoscope record` at the process's edges, as a hostile or unlucky user would meet them: every
# kind of output path (FIFOs with and without a reader, a device node, links to files, to nothing
# and to streams, another recording's file, a directory), rotation onto each, signals at random
# moments, and odd program paths. Each run must end within its deadline, with the status it
# should have (the program's, 2 for a refused option), and leave every file it was not asked to
# write as it was. Nodes, FIFOs and links are made inside a temporary folder.
#
#   scripts/hostile-record.sh [ROUNDS]     # default 3; a release build is used
set -uo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
swift build -c release --product chronoscope >/dev/null
swift build -c release --product ChronoscopePreload >/dev/null
swift build -c release --product chronoscope-examples >/dev/null
B="$PWD/.build/release/chronoscope"
E="$PWD/.build/release/chronoscope-examples"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SWIFT_BACKTRACE=enable=no
failures=0
runs=0

fail() { failures=$((failures + 1)); echo "FAIL: $*"; }

# Runs record with a deadline; sets $status. 124 (the deadline) is a hang.
record() {
  runs=$((runs + 1))
  timeout -k 5 30 "$B" record "$@" >"$work/out" 2>&1
  status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then fail "hung: record $*"; fi
}

expect() {  # expect STATUS DESCRIPTION
  [ "$status" -eq "$1" ] || fail "$2: status $status, expected $1 ($(head -c 300 "$work/out" | tr '\n' ' '))"
}

# A file nobody asked to be written, and its fingerprint.
victim="$work/victim"
printf 'keep me\n' >"$victim"
chmod 600 "$victim"
fingerprint() { stat -c '%F %a %s %i' "$1" 2>/dev/null; sha256sum <"$1" 2>/dev/null; }
before=$(fingerprint "$victim")

for round in $(seq 1 "$rounds"); do
  dir="$work/r$round"
  mkdir -p "$dir"
  # Outputs of every kind.
  mkfifo "$dir/fifo-noreader"
  mkfifo "$dir/fifo-reader"
  ln -s "$victim" "$dir/link-to-file"
  ln -s "$dir/nothing-here" "$dir/link-to-nothing"
  ln -s "$dir/fifo-reader" "$dir/link-to-fifo"
  mkdir "$dir/a-directory"
  node=""
  if mknod "$dir/null" c 1 3 2>/dev/null; then node="$dir/null"; fi

  # Plain recordings onto each kind: the program runs to its end (status 0) whatever the path.
  for target in fifo-noreader link-to-file link-to-nothing a-directory; do
    record -o "$dir/$target" -- "$E" dispatch-semantics
    expect 0 "recording onto $target"
  done
  (cat "$dir/fifo-reader" >/dev/null &)
  record -o "$dir/link-to-fifo" -- "$E" dispatch-semantics
  expect 0 "recording through a link to a FIFO with a reader"
  if [ -n "$node" ]; then
    record -o "$node" -- "$E" dispatch-semantics
    expect 0 "recording onto a device node"
  fi

  # Rotation onto anything but a regular file is refused before the program runs.
  for target in fifo-noreader link-to-fifo ${node:+null}; do
    for keep in 0 1 3; do
      record --max-bytes 4K --keep "$keep" -o "$dir/$target" -- "$E" dispatch-semantics
      expect 2 "rotation onto $target (keep $keep)"
    done
  done
  # Through the variables, as an app would be started: it runs unrecorded.
  runs=$((runs + 1))
  CHRONOSCOPE_TRACE="$dir/fifo-noreader" CHRONOSCOPE_TRACE_MAX_BYTES=4K CHRONOSCOPE_TRACE_KEEP=0 \
    timeout 30 "$E" run message-loader >"$work/out" 2>&1
  status=$?
  expect 0 "rotation from the variables onto a FIFO"

  # Rotation under load keeps its cap; without %p, rotated files are found. (Each file opens
  # with the work live at its start, which can pass a cap this small by itself: 200 items queued
  # at once take about 19 KiB. A cap checked only between flushes made files of megabytes.)
  record --max-bytes 8K --keep 5 -o "$dir/rot.trace" -- "$E" dispatch-semantics
  expect 0 "rotation into a regular file"
  largest=$(find "$dir" -name 'rot*.trace' -printf '%s\n' | sort -n | tail -1)
  [ "${largest:-0}" -le $((32 << 10)) ] || fail "a rotated file of $largest bytes past an 8K cap"
  found=$(grep -c "trace written to" "$work/out")
  files=$(find "$dir" -name 'rot*.trace' | wc -l)
  [ "$found" -eq "$files" ] || fail "record reported $found of $files rotated files"

  # Two recordings given one fixed path at once: neither file is corrupt.
  runs=$((runs + 1))
  timeout 30 "$B" record -o "$dir/shared.trace" -- "$E" busy-dispatch --seconds 1 >"$work/a" 2>&1 &
  first=$!
  record -o "$dir/shared.trace" -- "$E" busy-dispatch --seconds 1
  wait "$first"
  "$B" validate "$dir/shared.trace" >"$work/v" 2>&1
  [ $? -le 1 ] || fail "two recordings on one path: $(head -3 "$work/v")"

  # Signals at random moments: each program ends by its signal, its trace with the crash line.
  for signal in TERM INT HUP QUIT SEGV ABRT; do
    runs=$((runs + 1))
    rm -f "$dir"/sig-*.trace
    env --default-signal LD_PRELOAD="$PWD/.build/release/libChronoscopePreload.so" \
      CHRONOSCOPE_TRACE="$dir/sig-%p.trace" "$E" busy-dispatch --seconds 20 >"$work/busy" 2>/dev/null &
    pid=$!
    for _ in $(seq 1 200); do grep -q busy "$work/busy" 2>/dev/null && break; sleep 0.02; done
    sleep "0.0$((RANDOM % 10))"
    kill -"$signal" "$pid"
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    if kill -0 "$pid" 2>/dev/null; then fail "SIG$signal: still running after 10 s"; kill -9 "$pid"; fi
    wait "$pid"
    status=$?
    expect $((128 + $(kill -l "$signal"))) "SIG$signal to a recorded program"
    tail -c 400 "$dir"/sig-*.trace | grep -q "\"signal\":\"SIG$signal\"" \
      || fail "SIG$signal: no crash line"
  done

  # Odd program paths: the program runs (or the shell's status when it cannot).
  mkdir -p "$dir/build=debug" "$dir/with space"
  cp "$E" "$dir/build=debug/app"
  cp "$E" "$dir/with space/app"
  record -o "$dir/odd-%p.trace" -- "$dir/build=debug/app" dispatch-semantics
  expect 0 "a program path holding ="
  record -o "$dir/odd-%p.trace" -- "$dir/with space/app" dispatch-semantics
  expect 0 "a program path holding a space"
  record -o "$dir/odd-%p.trace" -- "$dir/no-such-program"
  expect 127 "a missing program"
  record -o "$dir/odd-%p.trace" -- "$dir/a-directory"
  expect 126 "a directory as the program"
  printf 'exit 7\n' >"$dir/script"
  chmod +x "$dir/script"
  record -o "$dir/odd-%p.trace" -- "$dir/script"
  expect 7 "a script without #!"

  # Nothing it was not asked to write changed.
  [ "$(fingerprint "$victim")" = "$before" ] || fail "the victim file changed"
  [ -p "$dir/fifo-noreader" ] || fail "the FIFO is gone"
  [ -L "$dir/link-to-file" ] || fail "the link to a file is gone"
  [ ! -e "$dir/nothing-here" ] || fail "a file was made through a link to nothing"
  if [ -n "$node" ]; then [ -c "$node" ] || fail "the device node is gone"; fi
done
echo "$runs record runs, $failures failures"
[ "$failures" -eq 0 ]
