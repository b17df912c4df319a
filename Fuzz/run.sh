#!/usr/bin/env bash
# Builds the libFuzzer targets and runs one (or each in turn) for a bounded time.
#
#   Fuzz/run.sh                    # every target, 60 s each
#   Fuzz/run.sh reader 600         # one target for ten minutes
#   Fuzz/run.sh build              # build only
#   Fuzz/run.sh smoke              # build, then every target for 5 s (CI: after `swift test`)
#   FUZZ_RUNS=10000000 Fuzz/run.sh replay 3600   # stop at 10M executions or an hour
#
# One fuzzing process at a time (no -jobs/-workers): the machine is shared. Crashes land in
# Fuzz/.build/artifacts/TARGET/; the growing corpus in Fuzz/.build/corpus/TARGET/; the binaries
# are Fuzz/.build/fuzz-TARGET (links into Fuzz/.build/asan or Fuzz/.build/plain).
#
# Why swiftc and not a SwiftPM package: libFuzzer supplies `main`, so every module must be built
# with -parse-as-library and -sanitize=fuzzer, and only the modules under test should carry the
# coverage instrumentation. A second package under Fuzz/ would have to re-resolve the remote
# dependencies into its own scratch path and could not see the ChronoscopeInspector module (no product).
# Compiling our modules straight from Sources/ with the package name SwiftPM gives them keeps
# `package` access working and leaves the main .build untouched; HeapModule, which ChronoscopeReplay uses,
# is taken already built from the main package's debug build.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="Fuzz/.build"
targets=(reader replay inspector show)
target="${1:-all}"
if [[ "$target" == smoke ]]; then seconds="${2:-5}"; else seconds="${2:-60}"; fi

# Our modules, in dependency order (each imports only modules before it, and HeapModule).
# Package.swift is the authority: a module a target needs and this list lacks fails the build
# (it is not on the include path), so a new dependency cannot go unnoticed.
modules=(ChronoscopeCore ChronoscopeFatalSignals ChronoscopeTraceFormat ChronoscopeReplay
  ChronoscopeAnalysis ChronoscopeScreen ChronoscopeInspector)

# How many of `modules` a target links: those up to the one it tests.
module_count() {
  case "$1" in
    reader) echo 3 ;;     # … ChronoscopeTraceFormat
    replay) echo 4 ;;     # … ChronoscopeReplay
    *) echo "${#modules[@]}" ;;
  esac
}

# `package` declarations are visible only between modules compiled with the same -package-name.
# SwiftPM passes the root package's identity, which is the name of the folder it sits in
# (lowercased), not the `name:` in Package.swift, made a C identifier (a character that cannot be
# in one, a leading digit included, becomes `_`): a clone in `wt-misc` builds with
# `-package-name wt_misc`, one in `1My Pkg.v2` with `_my_pkg_v2`. `swift build -v` prints it.
package_name() {
  local name
  name="$(basename "$(pwd -P)")"
  name="${name,,}"
  name="${name//[^[:alnum:]_]/_}"
  [[ "$name" == [0-9]* ]] && name="_${name:1}"
  echo "$name"
}

# The reader works on raw buffers, so its target runs under AddressSanitizer. The targets above
# it run pure Swift, whose memory safety is checked by the language; they are built without ASan
# by default, which doubles their speed. FUZZ_ASAN=1 puts every target under ASan.
variant() {
  if [[ "$1" == reader || -n "${FUZZ_ASAN:-}" ]]; then echo asan; else echo plain; fi
}

build_variant() {
  local kind="$1" dir="$out/$1"
  local sanitize=fuzzer
  [[ "$kind" == asan ]] && sanitize=fuzzer,address
  mkdir -p "$dir/Modules"
  local heap=(.build/debug/HeapModule.build/*.swift.o .build/debug/InternalCollectionsUtilities.build/*.swift.o)
  # Only HeapModule's interfaces from the debug build: with all of .build/debug/Modules on the
  # include path, a module missing from `modules` would be found there, built another way, and
  # fail only at link time (or, with another package name, as "no member named").
  local deps="$out/deps"
  mkdir -p "$deps"
  ln -sfn "$root/.build/debug/Modules/HeapModule.swiftmodule" "$deps/HeapModule.swiftmodule"
  ln -sfn "$root/.build/debug/Modules/InternalCollectionsUtilities.swiftmodule" \
    "$deps/InternalCollectionsUtilities.swiftmodule"
  local flags=(-O -wmo -g -DDEBUG -sanitize="$sanitize" -parse-as-library -swift-version 6
    -package-name "$(package_name)" -I "$dir/Modules" -I "$deps")
  # A change of flags (another package name, after a move) makes every object stale.
  local stamp="$dir/flags" stale=0
  if [[ "$(cat "$stamp" 2>/dev/null)" != "${flags[*]}" ]]; then
    stale=1
    rm -f "$dir"/*.o "$dir"/fuzz-*
  fi
  # The modules this variant's targets need, no more: ASan's build of the inspector is slow.
  local name count=0
  for name in "${targets[@]}"; do
    [[ "$(variant "$name")" == "$kind" ]] || continue
    (($(module_count "$name") > count)) && count=$(module_count "$name")
  done
  local module
  # In dependency order; once one is rebuilt, every later one is too (it imports the new module).
  for module in "${modules[@]:0:count}"; do
    # Every Swift file of the module, in its subfolders too (Inspector's Panels/, Keys/), in a
    # stable order, as SwiftPM takes them.
    local sources=()
    while IFS= read -r file; do sources+=("$file"); done \
      < <(find Sources/"$module" -name '*.swift' | LC_ALL=C sort)
    local object="$dir/$module.o"
    if ((stale)) || [[ ! -f "$object" ]] \
      || [[ -n "$(find Sources/"$module" -newer "$object" -name '*.swift')" ]]; then
      stale=1
      echo "compiling $module ($kind)" >&2
      swiftc "${flags[@]}" -c -num-threads 0 -module-name "$module" \
        -emit-module -emit-module-path "$dir/Modules/$module.swiftmodule" \
        -o "$object" "${sources[@]}"
      # Dependants must be rebuilt against the new module.
      rm -f "$dir"/fuzz-*
    fi
  done
  echo "${flags[*]}" >"$stamp"
  for name in "${targets[@]}"; do
    [[ "$(variant "$name")" == "$kind" ]] || continue
    local objects=()
    for module in "${modules[@]:0:$(module_count "$name")}"; do objects+=("$dir/$module.o"); done
    (($(module_count "$name") > 3)) && objects+=("${heap[@]}")  # ChronoscopeReplay and above use HeapModule
    local file="Fuzz/Targets/Fuzz${name^}.swift"
    local binary="$dir/fuzz-$name"
    if [[ ! -f "$binary" ]] || [[ "$file" -nt "$binary" ]] || [[ Fuzz/Support/FuzzInput.swift -nt "$binary" ]]; then
      echo "linking fuzz-$name ($kind)" >&2
      swiftc "${flags[@]}" -use-ld=lld -module-name "Fuzz${name^}" Fuzz/Support/FuzzInput.swift \
        "$file" "${objects[@]}" -o "$binary"
    fi
    ln -sf "$kind/fuzz-$name" "$out/fuzz-$name"
  done
}

build() {
  # HeapModule and its utilities, from the main package's checkout and debug build.
  swift build --target HeapModule >/dev/null
  local only="${1:-}" kind
  for kind in asan plain; do
    if [[ -z "$only" ]] || [[ "$(variant "$only")" == "$kind" ]]; then build_variant "$kind"; fi
  done
}

# Seeds: each recording whole, and small slices of it (the header plus its first lines), so the
# fuzzer starts from short valid traces; for the targets that take choices, the same traces
# followed by a NUL and a few choice bytes.
seed() {
  local name="$1" corpus="$out/corpus/$1"
  mkdir -p "$corpus"
  local trace base lines
  for trace in Recordings/*.trace Tests/ChronoscopeInspectorTests/Fixtures/*.trace; do
    base="$(basename "$trace" .trace)"
    cp "$trace" "$corpus/$base"
    for lines in 2 4 8 16 40; do
      head -n "$lines" "$trace" >"$corpus/$base-$lines"
      if [[ "$name" != reader ]]; then
        { head -n "$lines" "$trace"; printf '\0\1\0\0\2\3\5\7\13\21\1\1\1\4\4\16\0'; } \
          >"$corpus/$base-$lines-steps"
      fi
    done
  done
}

run() {
  local name="$1"
  # Swift's own backtracer would race libFuzzer's crash handler (and trip ASan reading memory):
  # let libFuzzer report traps and write the crashing input.
  export SWIFT_BACKTRACE=enable=no
  seed "$name"
  mkdir -p "$out/artifacts/$name"
  echo "== fuzz-$name for ${seconds}s" >&2
  "$out/fuzz-$name" -max_total_time="$seconds" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} \
    -dict=Fuzz/trace.dict -max_len="${FUZZ_MAX_LEN:-2048}" -timeout=20 -rss_limit_mb=4096 \
    -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$out/artifacts/$name/" \
    "$out/corpus/$name"
}

case "$target" in
  build) build ;;
  all | smoke) build; for name in "${targets[@]}"; do run "$name"; done ;;
  reader | replay | inspector | show) build "$target"; run "$target" ;;
  *) echo "usage: Fuzz/run.sh [build|smoke|all|reader|replay|inspector|show] [seconds]" >&2; exit 2 ;;
esac
