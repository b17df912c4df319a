#!/usr/bin/env bash
# Builds a package that depends on this checkout as a user's app does, from the Swift samples of
# README.md and of the DocC catalogs, and fails when a sample does not compile or when building
# Chronoscope as a dependency prints a warning. The consumer has its own `Analysis`, `Screen` and
# `Replay` targets (module names are global across a package graph: none of Chronoscope's may be
# a name an app may have).
#
#   scripts/consumer-check.sh [folder]    (default: $TMPDIR/chronoscope-consumer, kept for reuse)
#
# Each ```swift block becomes a file: declarations stay at file scope, statements go into a
# function of their own (a block is a fragment, not a program), and `func test…` methods into an
# XCTestCase. Blocks with `…` (elided code) and the manifest fragments are skipped. The names a
# sample takes from the reader's own app (`Contact`, `addressBook`, `upload()`…) are stubbed in
# Stubs.swift. The samples' own warnings (a fragment's unused `let`) are not the library's, so
# their targets build with -suppress-warnings; every other warning fails the check.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-${TMPDIR:-/tmp}/chronoscope-consumer}"
identity="$(basename "$repo" | tr '[:upper:]' '[:lower:]')"
mkdir -p "$dir"

python3 - "$repo" "$dir" "$identity" <<'PYTHON'
import os, re, shutil, sys

repo, out, identity = sys.argv[1:4]
# The supported products (README, "Products"): all a user can import.
products = [
    "ChronoscopeScheduling", "ChronoscopeSchedulingTesting", "ChronoscopeVirtualTime",
    "ChronoscopeRecording", "ChronoscopeTraceFormat", "ChronoscopeVirtualTimeTesting",
    "ChronoscopeReplayTesting",
]
supported_catalogs = {f"{p}.docc" for p in products}
# Targets of the consumer's own with names an app may well have: SwiftPM module names are global
# across a dependency graph, so one of Chronoscope's named so would stop this package building.
own = {
    "Analysis": "public func appAnalysis(_ values: [Int]) -> Int { values.max() ?? 0 }\n",
    "Screen": "public func appScreenTitle() -> String { \"main\" }\n",
    "Replay": "public func appReplay(_ steps: [String]) -> Int { steps.count }\n",
}
for name, source in own.items():
    folder = os.path.join(out, "Sources", name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    open(os.path.join(folder, f"{name}.swift"), "w").write(f"// The consumer's own {name}.\n" + source)

# The example apps the samples test (`Stock`, `StaleResponseSearch`, `Account`) are the reader's
# own code there, not Chronoscope's API: the consumer gets a copy of them as a module of its own,
# `AppModels`, and imports those types one by one (the module's other names, `Contact` or
# `withTimeout`, are the reader's own in the samples).
models = os.path.join(out, "Sources", "AppModels")
shutil.rmtree(models, ignore_errors=True)
shutil.copytree(os.path.join(repo, "Sources", "ChronoscopeExamples"), models)
# What Chronoscope's benchmarks reach as SPI is plain public in the reader's copy.
for root, _, files in os.walk(models):
    for name in files:
        path = os.path.join(root, name)
        text = open(path, encoding="utf-8").read()
        open(path, "w", encoding="utf-8").write(text.replace("@_spi(Benchmarks) ", ""))
examples = "".join(f"import {kind} AppModels.{name}\n" for kind, name in [
    ("class", "Stock"), ("class", "StaleResponseSearch"), ("class", "Account")])
imports = "import Foundation\nimport Testing\nimport XCTest\n" + "".join(f"import {p}\n" for p in products)
imports += examples
declaration = re.compile(
    r"^(import |public |final |struct |class |enum |actor |extension |@|///|func (?!test))")

def blocks(path):
    text = open(path, encoding="utf-8").read()
    return re.findall(r"^```swift\n(.*?)^```", text, flags=re.S | re.M)

def items(block):
    """Top-level items: a line at column 0 starts one, indented lines and closers continue it."""
    result = []
    for line in block.splitlines():
        starts = line and not line[0].isspace() and not line.startswith(("}", ")", "]"))
        if starts or not result:
            result.append([line])
        else:
            result[-1].append(line)
    return ["\n".join(item) for item in result]

def write_target(name, sources, stubs, extra=""):
    folder = os.path.join(out, "Sources" if name == "App" else "Tests", name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    header = imports + extra
    open(os.path.join(folder, "Stubs.swift"), "w").write(header + stubs)
    for index, (origin, block) in enumerate(sources, 1):
        decls, statements, tests = [], [], []
        for item in items(block):
            head = item.lstrip()
            if head.startswith("func test"):
                tests.append(item)
            elif declaration.match(head) or (head.startswith("//") and not statements):
                decls.append(item)
            else:
                statements.append(item)
        body = f"// From {origin}.\n" + header + "\n".join(
            d for d in decls if not d.startswith("import ")) + "\n"
        if statements:
            # Async when a statement itself awaits (not only a closure inside it).
            awaits = any(re.search(r"^\s*(try )?await |= (try )?await ", item.splitlines()[0])
                         for item in statements if item.strip())
            effects = "async throws" if awaits else "throws"
            body += f"\nfunc sample{index}() {effects} {{\n" + "\n".join(statements) + "\n}\n"
        if tests:
            body += f"\nfinal class Sample{index}Tests: XCTestCase {{\n" + "\n".join(tests) + "\n}\n"
        open(os.path.join(folder, f"Sample{index}.swift"), "w").write(body)

def usable(block):
    first = block.lstrip().splitlines()[0] if block.strip() else ""
    return "…" not in block and not first.startswith(("// Package.swift", ".package("))

readme = [(f"README.md block {i}", b) for i, b in enumerate(blocks(os.path.join(repo, "README.md")), 1)]
app = [(o, b) for o, b in readme if usable(b) and declaration.match(b.lstrip()) and "XCT" not in b]
tests = [(o, b) for o, b in readme if usable(b) and (o, b) not in app]
docc = []
for root, _, files in sorted(os.walk(os.path.join(repo, "Sources"))):
    if root.endswith(".docc") and os.path.basename(root) in supported_catalogs:
        for name in sorted(files):
            if name.endswith(".md"):
                path = os.path.join(root, name)
                docc += [(f"{os.path.relpath(path, repo)} block {i}", b)
                         for i, b in enumerate(blocks(path), 1) if usable(b)]

write_target("App", app, """
import Analysis
import Replay
import Screen

/// The app's own modules, beside Chronoscope's.
public func ownModules() -> (Int, String, Int) { (appAnalysis([1]), appScreenTitle(), appReplay([])) }

/// The reader's own app: what the samples take from it.
public struct Contact: Sendable {
  public var name: String
  public init(name: String) { self.name = name }
}
""")
write_target("AppTests", tests, """
enum addressBook { static func readAll() -> [Contact] { [] } }
struct SoldTwice: Error { let sales: [String] }
""", extra="@testable import App\n")
write_target("DocSampleTests", docc, """
func upload() {}
func giveUp() {}
func refresh() {}
func fetch() -> [String] { [] }
let pending: [Int] = []
let factory: any SchedulerFactory = ImmediateSchedulerFactory()
struct SoldTwice: Error { let sales: [String] }
struct Overdrawn: Error {}
struct TimedOut: Error {}
func withTimeout<Success: Sendable>(
  _ limit: Duration, clock: some Clock<Duration>,
  operation: @escaping @Sendable () async throws -> Success
) async throws -> Success { try await operation() }
/// A search field the trace-keeping samples test.
final class SearchModel: Sendable {
  let searches: [String] = []
  init(factory: any SchedulerFactory, clock: RecordingClock<VirtualAsyncClock>? = nil) {}
  func type(_ text: String) {}
}
let failed = false
func body(_ factory: any SchedulerFactory, _ clock: VirtualClock) throws {}
func report(_ message: String) {}
""")

deps = ", ".join(['"AppModels"'] + [f'.product(name: "{p}", package: "{identity}")' for p in products])
quiet = 'swiftSettings: [.unsafeFlags(["-suppress-warnings"])]'
open(os.path.join(out, "Package.swift"), "w").write(f"""// swift-tools-version: 6.0
// Made by scripts/consumer-check.sh: the README's and DocC's samples against Chronoscope.
import PackageDescription

let package = Package(
  name: "Consumer",
  platforms: [.macOS(.v15)],
  dependencies: [.package(path: "{repo}")],
  targets: [
    .target(name: "Analysis"),
    .target(name: "Screen"),
    .target(name: "Replay"),
    .target(
      name: "AppModels",
      dependencies: [{", ".join(f'.product(name: "{p}", package: "{identity}")' for p in ["ChronoscopeScheduling", "ChronoscopeSchedulingTesting"])}],
      {quiet}),
    .target(name: "App", dependencies: ["Analysis", "Screen", "Replay", {deps}], {quiet}),
    .testTarget(name: "AppTests", dependencies: ["App", {deps}], {quiet}),
    .testTarget(name: "DocSampleTests", dependencies: [{deps}], {quiet}),
  ]
)
""")
print(f"{len(app)} README declaration blocks, {len(tests)} README statement and test blocks, "
      f"{len(docc)} DocC blocks -> {out}")
PYTHON

cd "$dir"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift build --build-tests 2>&1 | tee "$log" || status=$?
warnings=$(grep -c "warning:" "$log" || true)
echo "consumer build: status $status, $warnings warning line(s)"
[ "$status" -eq 0 ] && [ "$warnings" -eq 0 ]
