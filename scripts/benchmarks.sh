#!/usr/bin/env bash
# Runs every benchmark with --check, collects their JSON lines in one file, then counts
# instructions with callgrind on three hot paths and the preload library's start-up. Exits 1 if any benchmark missed a target or
# failed, but only after running all of them. See Benchmarks/README.md.
#
#   scripts/benchmarks.sh            # quick sizes: about four minutes on two cores
#   FULL=1 scripts/benchmarks.sh     # the benchmarks' own default sizes (10M-event replays)
#   CALLGRIND=0 scripts/benchmarks.sh
#
# Quick sizes, each overridable by its variable [full size]:
#   VT_N=16000 VT_OURS_ONLY_N=1000000    virtual time [1000,4000,16000 and 100000,1000000]; the
#                                        targets apply at 16,000 and 1,000,000 actions, and the
#                                        two anchors take about a minute each at 16,000
#   RECORDING_ACTIONS=200000 RECORDING_EVENTS=300000 RECORDING_REPEAT=3  [1000000 1000000 5]
#   REPLAY_EVENTS=2000000 REPLAY_SEEKS=500                               [10000000 2000]
#   PIPELINE_EVENTS=2000000    events in the trace file ReplayBenchmark --file reads [10000000]
#   CG_VT_N=10000 CG_RECORDING_N=20000 CG_READER_EVENTS=100000   callgrind sizes N (and 2N)
#
# The JSON lines go to Benchmarks/.build/benchmarks-<date>.jsonl (or $BENCHMARKS_OUTPUT), and to
# stdout as they come; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${FULL:-0}" == 1 ]]; then
  : "${VT_N:=1000,4000,16000}" "${VT_OURS_ONLY_N:=100000,1000000}"
  : "${RECORDING_ACTIONS:=1000000}" "${RECORDING_EVENTS:=1000000}" "${RECORDING_REPEAT:=5}"
  : "${REPLAY_EVENTS:=10000000}" "${REPLAY_SEEKS:=2000}" "${PIPELINE_EVENTS:=10000000}"
fi
: "${VT_N:=16000}" "${VT_OURS_ONLY_N:=1000000}"
: "${RECORDING_ACTIONS:=200000}" "${RECORDING_EVENTS:=300000}" "${RECORDING_REPEAT:=3}"
: "${REPLAY_EVENTS:=2000000}" "${REPLAY_SEEKS:=500}" "${PIPELINE_EVENTS:=2000000}"
: "${CG_VT_N:=10000}" "${CG_RECORDING_N:=20000}" "${CG_READER_EVENTS:=100000}"

output="${BENCHMARKS_OUTPUT:-Benchmarks/.build/benchmarks-$(date +%Y%m%d-%H%M%S).jsonl}"
bin=Benchmarks/.build/release
scratch="$(mktemp -d /tmp/chronoscope-benchmarks.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT

echo "== building the Benchmarks package and the preload library (release)" >&2
swift build -c release --package-path Benchmarks >&2
swift build -c release --product ChronoscopePreload >&2
mkdir -p "$(dirname "$output")"
: >"$output"

missed=()
failed=()
# run NAME COMMAND…: runs a benchmark, its JSON lines to stdout and $output. Exit status 1 with
# a "met":false line is a missed target; any other non-zero status is a failure (an error also
# exits 1, but prints no such line). Never stops the script.
run() {
  local name="$1" status=0
  shift
  echo "== $name: ${*#"$bin/"}" >&2
  "$@" | tee "$scratch/lines" | tee -a "$output" || status=$?
  if ((status == 1)) && grep -q '"met":false' "$scratch/lines"; then
    missed+=("$name")
  elif ((status != 0)); then
    failed+=("$name (exit status $status)")
  fi
}

run virtual-time "$bin/VirtualTimeBenchmark" --check \
  --n "$VT_N" --ours-only-n "$VT_OURS_ONLY_N"
run virtual-time-explore "$bin/VirtualTimeBenchmark" explore --check
run test-trace "$bin/TestTraceBenchmark" --actions 100000
run recording "$bin/RecordingBenchmark" --check \
  --actions "$RECORDING_ACTIONS" --events "$RECORDING_EVENTS" --repeat "$RECORDING_REPEAT"
run replay "$bin/ReplayBenchmark" --check --events "$REPLAY_EVENTS" --seeks "$REPLAY_SEEKS"
run trace-for-check-pipeline "$bin/RecordingBenchmark" \
  --child generate "$scratch/pipeline.trace" "$PIPELINE_EVENTS"
run check-pipeline "$bin/ReplayBenchmark" --check --file "$scratch/pipeline.trace"
rm -f "$scratch/pipeline.trace"
run frame "$bin/FrameBenchmark" --check
run preload "$bin/PreloadBenchmark" --check --actions "$RECORDING_ACTIONS" \
  --repeat "$RECORDING_REPEAT"

# Instruction counts: stable where wall time is not. Each path runs as a child measurement (no
# processes of its own) at N and 2N under callgrind; (I(2N) - I(N)) / N cancels start-up and
# everything else that does not grow with N.
callgrind_lines() {
  # Valgrind 3.19 cannot read the DWARF 5 that Swift emits; symbols are enough for counting.
  local stripped="$scratch/bin"
  mkdir -p "$stripped"
  for name in VirtualTimeBenchmark RecordingBenchmark; do
    strip --strip-debug -o "$stripped/$name" "$bin/$name"
  done

  # collected OUT COMMAND…: instructions callgrind collected running COMMAND (its "Collected :"
  # line); the command's stdout goes to OUT.
  collected() {
    local out="$1" count
    shift
    count=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >"$out" |
      awk '/Collected :/ { print $NF }') || true
    if [[ ! "$count" =~ ^[0-9]+$ ]]; then
      echo "callgrind: no instruction count for: $*" >&2
      return 1
    fi
    echo "$count"
  }
  # instructions_per_unit UNITS I(N) I(2N): (I(2N) - I(N)) / UNITS, one decimal.
  per() {
    awk -v units="$1" -v small="$2" -v large="$3" 'BEGIN { printf "%.1f", (large - small) / units }'
  }
  minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }
  # (This function runs on the left of a pipe and a ||, where set -e does not apply: every
  # count is checked.)
  local n small large ours floor
  # Virtual time: N actions scheduled and run (their seeded delays generated too).
  n="$CG_VT_N"
  echo "== callgrind virtual-time: ours and floor at $n and $((2 * n)) actions" >&2
  vt() { collected /dev/null "$stripped/VirtualTimeBenchmark" --child "$@"; }
  small=$(vt ours "$n") && large=$(vt ours "$((2 * n))") || return 1
  ours=$(per "$n" "$small" "$large")
  small=$(vt floor "$n") && large=$(vt floor "$((2 * n))") || return 1
  floor=$(per "$n" "$small" "$large")
  echo "{\"benchmark\":\"callgrind\",\"path\":\"virtual-time\",\"n\":$n,\"instructions_per_action\":$ours,\"floor_instructions_per_action\":$floor}"

  # Recording: what recording adds per event, recorded minus bare, 3 events per action. On the
  # recording thread alone: collection only inside the timed loop (callgrind keeps a collection
  # state per thread). For the whole process: the writer thread's encoding and writing too. N is
  # at least the child's 20,000-action warm-up, so that the warm-up cancels out.
  n="$CG_RECORDING_N"
  local events=$((3 * n)) loop bare recorded thread_field=""
  echo "== callgrind recording: the hot path at $n and $((2 * n)) actions" >&2
  # hot_path VARIANT ACTIONS [VALGRIND OPTION…]
  hot_path() {
    local variant="$1" actions="$2"
    shift 2
    collected /dev/null "$@" "$stripped/RecordingBenchmark" --child hot-path 1 "$actions" 1 \
      "$variant" --cold-ring
  }
  small=$(hot_path bare "$n") && large=$(hot_path bare "$((2 * n))") || return 1
  bare=$(per "$events" "$small" "$large")
  small=$(hot_path recorded "$n") && large=$(hot_path recorded "$((2 * n))") || return 1
  recorded=$(per "$events" "$small" "$large")
  local process
  process=$(minus "$recorded" "$bare")
  small=$(hot_path floor "$n") && large=$(hot_path floor "$((2 * n))") || return 1
  floor=$(per "$events" "$small" "$large")
  loop=$(nm "$stripped/RecordingBenchmark" | awk '{ print $3 }' |
    grep 'HotPathO20scheduleEmptyActions' | grep -v 'cfU_' | head -n 1) || true
  if [[ -n "$loop" ]]; then
    small=$(hot_path bare "$n" --toggle-collect="$loop") &&
      large=$(hot_path bare "$((2 * n))" --toggle-collect="$loop") || return 1
    bare=$(per "$events" "$small" "$large")
    small=$(hot_path recorded "$n" --toggle-collect="$loop") &&
      large=$(hot_path recorded "$((2 * n))" --toggle-collect="$loop") || return 1
    recorded=$(per "$events" "$small" "$large")
    thread_field="\"instructions_per_event\":$(minus "$recorded" "$bare"),"
  else
    echo "callgrind: the hot path's loop symbol was not found; the thread figure is left out" >&2
  fi
  echo "{\"benchmark\":\"callgrind\",\"path\":\"recording\",\"actions\":$n,$thread_field\"process_instructions_per_event\":$process,\"floor_instructions_per_event\":$floor}"

  # Reader: TraceReader.read on a trace of about N events and one of 2N (recorded natively
  # first), every thread it reads on counted; divided by the difference in events read.
  n="$CG_READER_EVENTS"
  echo "== callgrind reader: traces of about $n and $((2 * n)) events" >&2
  "$bin/RecordingBenchmark" --child generate "$scratch/small.trace" "$n" >/dev/null &&
    "$bin/RecordingBenchmark" --child generate "$scratch/large.trace" "$((2 * n))" >/dev/null ||
    return 1
  read_trace() {
    collected "$scratch/$1.json" "$stripped/RecordingBenchmark" --child read chronoscope \
      "$scratch/$1.trace" 1
  }
  small=$(read_trace small) && large=$(read_trace large) || return 1
  local small_events large_events
  small_events=$(grep -o '"events":[0-9]*' "$scratch/small.json" | head -n 1 | cut -d: -f2)
  large_events=$(grep -o '"events":[0-9]*' "$scratch/large.json" | head -n 1 | cut -d: -f2)
  [[ -n "$small_events" && -n "$large_events" ]] || return 1
  echo "{\"benchmark\":\"callgrind\",\"path\":\"reader\",\"events\":$small_events,\"instructions_per_event\":$(per "$((large_events - small_events))" "$small" "$large")}"

  # Preload start-up: what loading the library adds to starting a shell that is not Swift (it
  # stays inert there: nothing is recorded), `sh -c true` preloaded minus bare. One run of each:
  # nothing here grows with a size.
  echo "== callgrind preload-startup: sh -c true, bare and preloaded" >&2
  strip --strip-debug -o "$stripped/libChronoscopePreload.so" \
    .build/release/libChronoscopePreload.so || return 1
  local preloaded
  bare=$(collected /dev/null /bin/sh -c true) &&
    preloaded=$(LD_PRELOAD="$stripped/libChronoscopePreload.so" \
      collected /dev/null /bin/sh -c true) || return 1
  echo "{\"benchmark\":\"callgrind\",\"path\":\"preload-startup\",\"program\":\"sh -c true\",\"instructions_added\":$((preloaded - bare)),\"bare_instructions\":$bare}"
}

if [[ "${CALLGRIND:-1}" == 0 ]]; then
  echo "== callgrind skipped (CALLGRIND=0)" >&2
elif ! command -v valgrind >/dev/null; then
  echo "== callgrind skipped: valgrind is not installed" >&2
else
  status=0
  callgrind_lines | tee -a "$output" || status=$?
  ((status == 0)) || failed+=("callgrind (exit status $status)")
fi

echo "== results: $output ($(wc -l <"$output") lines)" >&2
if ((${#missed[@]} + ${#failed[@]} > 0)); then
  ((${#missed[@]} == 0)) ||
    echo "== missed targets in: ${missed[*]} (each named above; \"met\":false in the results)" >&2
  ((${#failed[@]} == 0)) || echo "== failed: ${failed[*]}" >&2
  exit 1
fi
echo "== every target met" >&2
