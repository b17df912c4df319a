// swift-tools-version: 6.0
import PackageDescription

// The module graph follows the data: scheduler → recorder → trace file → reader → replay model →
// screen model → terminal. Each stage is one target, named by what it does (see docs/Architecture.md).
let package = Package(
  name: "Chronoscope",
  // `Mutex` and `Atomic` (Synchronization) need these.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Scheduling", targets: ["Scheduling"]),
    .library(name: "SchedulingTesting", targets: ["SchedulingTesting"]),
    .library(name: "VirtualTime", targets: ["VirtualTime"]),
    .library(name: "VirtualTimeTesting", targets: ["VirtualTimeTesting"]),
    .library(name: "TraceFormat", targets: ["TraceFormat"]),
    .library(name: "Recording", targets: ["Recording"]),
    .library(name: "Replay", targets: ["Replay"]),
    .library(name: "Analysis", targets: ["Analysis"]),
    .library(name: "Sharing", targets: ["Sharing"]),
    .library(name: "ReplayTesting", targets: ["ReplayTesting"]),
    .library(name: "Screen", targets: ["Screen"]),
    .library(name: "Terminal", targets: ["Terminal"]),
    .library(name: "Inspector", targets: ["Inspector"]),
    // The example apps the documentation and tests use, bugs on purpose included: for the
    // benchmarks (exploration finds their bugs) and for reading.
    .library(name: "Examples", targets: ["Examples"]),
    .executable(name: "chronoscope", targets: ["chronoscope"]),
    // What `chronoscope record` preloads into a program (docs/RecordAnyProgram.md).
    .library(
      name: "ChronoscopePreload", type: .dynamic, targets: ["ChronoscopePreload", "CPreload"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    // HMAC-SHA256 and HKDF for redaction's tokens: keyed hashes a salt guess cannot reverse
    // without the salt, from the ecosystem's audited implementation rather than a hand-written
    // one (it adds BoringSSL's C build, about a few minutes of a clean CI build).
    .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
    // `swift package generate-documentation` for the DocC catalogs; a plugin, built only when run.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
  ],
  targets: [
    // Small algorithms every stage shares: saturating arithmetic (values from files and callers
    // never trap), the one binary search, and display widths and sanitizing of untrusted text
    // (every text output). Package API only; depends on nothing.
    .target(name: "CoreAlgorithms"),
    // What Swift cannot spell or call: membarrier(2), a prefetch hint, malloc_trim. One C target,
    // a header each (Sources/CShims/include).
    .target(name: "CShims"),
    // Stage 1: the scheduler abstraction and its live and immediate families.
    .target(name: "Scheduling", dependencies: ["CoreAlgorithms"]),
    // Test support for live schedulers: `waitUntil` (woken by each finished action, no polling)
    // and `Locked`. Apart, as swift-nio keeps its test helpers, so apps need not link it.
    .target(name: "SchedulingTesting", dependencies: ["Scheduling"]),
    // Stage 1b: a simulated clock and its schedulers, for deterministic tests.
    .target(
      name: "VirtualTime",
      dependencies: ["CoreAlgorithms", "CShims", "Scheduling"]
    ),
    // The Swift Testing trait `.virtualTime`: a clock per test, its failures recorded as issues;
    // and `VirtualTimeTestCase` for XCTest. Both keep a failing test's trace (recorded, with a
    // frame of the inspector in the message). Apart, so that only test targets link Swift
    // Testing and XCTest (the toolchain's own).
    .target(
      name: "VirtualTimeTesting",
      dependencies: ["Inspector", "Recording", "Replay", "Scheduling", "VirtualTime"]),
    // Stage 3: the trace file format — events, encoder, and the strict streaming reader.
    .target(name: "TraceFormat", dependencies: ["CoreAlgorithms", "FatalSignals"]),
    // Stage 2: the recording decorator and the trace writer.
    .target(
      name: "Recording",
      dependencies: [
        "CoreAlgorithms", "CShims", "FatalSignals", "Scheduling", "TraceFormat",
        .product(name: "HeapModule", package: "swift-collections"),
      ]
    ),
    // The one chain of crash-signal handlers, on an alternate stack, that Recording and Terminal
    // share.
    .target(name: "FatalSignals"),
    // Stage 5: the replay model — the state of every action and queue at any instant of a trace.
    // `-Xswiftc -DCHRONOSCOPE_INTERNAL_CHECKS` checks its invariants after every step (slow).
    .target(
      name: "Replay",
      dependencies: [
        "CoreAlgorithms", "TraceFormat",
        .product(name: "HeapModule", package: "swift-collections"),
      ]),
    // Stage 6: the screen model — styled cells drawn from replay state; no terminal code.
    .target(name: "Screen", dependencies: ["CoreAlgorithms"]),
    // Stage 7: the terminal — ncursesw through a system-library shim, and a thin adapter that
    // copies a screen grid to it and turns keys into events. No pkgConfig: see the shim header.
    .systemLibrary(name: "CNCursesW", path: "Sources/CNCursesW"),
    .target(
      name: "Terminal", dependencies: ["CNCursesW", "CoreAlgorithms", "FatalSignals", "Screen"]),
    // zlib, for `chronoscope export --gzip` (a system library: no build cost; Debian's
    // zlib1g-dev, which .ci/run installs when missing).
    .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
    // Findings: what in a replayed trace points at a bug (lost work, late timers, blocked
    // queues, hangs…), for the CLI, the inspector and tests.
    .target(
      name: "Analysis",
      dependencies: [
        "CoreAlgorithms", "Replay", "TraceFormat",
        .product(name: "HeapModule", package: "swift-collections"),
      ]),
    // The inspector's logic: UI state, key handling and views, from replay state to a screen.
    .target(
      name: "Inspector",
      dependencies: ["Analysis", "CoreAlgorithms", "Replay", "Screen", "TraceFormat"]),
    // Sharing traces: export to other tools, redaction, slices, differences, several processes
    // on one timeline. Plain Swift over the reader, the replay model and the findings.
    .target(
      name: "Sharing",
      dependencies: [
        "Analysis", "CoreAlgorithms", "Replay", "TraceFormat",
        .product(name: "Crypto", package: "swift-crypto"),
      ]),
    // Stage 5b: a recorded order replayed on virtual time — the code under test runs each action
    // at its recorded time, matched as `diff` matches actions; a test fails the same way each run.
    .target(
      name: "ReplayTesting",
      dependencies: [
        "CoreAlgorithms", "Replay", "Scheduling", "Sharing", "TraceFormat", "VirtualTime",
      ]
    ),
    // The seeds' example programs, written against `SchedulerFactory`; used by tests and recordings.
    .target(name: "Examples", dependencies: ["Scheduling", "SchedulingTesting"]),
    // The preload library: recording switched on in a program that was not written for it.
    .target(
      name: "ChronoscopePreload",
      dependencies: ["CPreload", "FatalSignals", "Recording", "Scheduling", "TraceFormat"]),
    // What Swift cannot spell: its constructor, frame-pointer walks, the ELF facts of loaded modules.
    // `_Unwind_Backtrace` for call sites: libgcc_s, which the Swift runtime loads anyway.
    // `_Block_copy`: the blocks runtime, which libdispatch loads anyway.
    .target(
      name: "CPreload", linkerSettings: [.linkedLibrary("gcc_s"), .linkedLibrary("BlocksRuntime")]),
    // A program written without Chronoscope (it imports only Foundation), with a timing bug,
    // that `chronoscope record` records unchanged: its tests and the bundled recording use it.
    .executableTarget(name: "feed-refresher"),
    // The command-line tool: thin commands over the library modules.
    .executableTarget(
      name: "chronoscope",
      dependencies: [
        "CoreAlgorithms", "TraceFormat", "Replay", "Analysis", "Screen", "Inspector", "Terminal",
        "Sharing", "CZlib",
        "CShims", "FatalSignals",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // The example programs under a recorder, and the children the crash and fault tests run:
    // what makes `Recordings/`. Not a product: users get `chronoscope`, tests get this.
    .executableTarget(
      name: "chronoscope-examples",
      dependencies: [
        "Examples", "Recording", "ReplayTesting", "Scheduling", "SchedulingTesting", "Screen",
        "Terminal", "VirtualTime",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "SchedulingTests",
      dependencies: ["Scheduling", "SchedulingTesting", "VirtualTime", "Recording", "Examples"]),
    .testTarget(
      name: "ExamplesTests", dependencies: ["Examples", "Scheduling", "SchedulingTesting"]),
    .testTarget(name: "CoreAlgorithmsTests", dependencies: ["CoreAlgorithms"]),
    .testTarget(
      name: "TraceFormatTests", dependencies: ["FatalSignals", "TraceFormat", "TestSupport"]),
    .testTarget(name: "ReplayTests", dependencies: ["Replay", "TraceFormat", "TestSupport"]),
    .testTarget(name: "AnalysisTests", dependencies: ["Analysis", "Replay", "TraceFormat"]),
    .testTarget(
      name: "SharingTests",
      dependencies: [
        "Sharing", "Analysis", "Replay", "TraceFormat", "TestSupport", "Examples", "Recording",
        "Scheduling", "SchedulingTesting", "VirtualTime",
      ]),
    .testTarget(
      name: "InspectorTests",
      dependencies: [
        "Analysis", "CoreAlgorithms", "Inspector", "Replay", "Screen", "TraceFormat", "Terminal",
        "CNCursesW",
      ],
      exclude: ["Golden", "Fixtures"]),
    .testTarget(
      name: "RecordingTests",
      dependencies: [
        "Recording", "TraceFormat", "Scheduling", "SchedulingTesting", "VirtualTime",
        "TestSupport", "Replay", "Analysis", "chronoscope-examples",
      ]),
    .testTarget(
      name: "VirtualTimeTests",
      dependencies: [
        "VirtualTime", "VirtualTimeTesting", "Scheduling", "SchedulingTesting", "Examples",
        "TestSupport", "Recording", "TraceFormat",
      ]),
    .testTarget(
      name: "ReplayTestingTests",
      dependencies: [
        "ReplayTesting", "Examples", "Recording", "Replay", "Scheduling", "SchedulingTesting",
        "Sharing", "TestSupport", "TraceFormat", "VirtualTime", "VirtualTimeTesting",
        "chronoscope-examples",
      ]),
    // Helpers shared by the test targets that run the built binary.
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    // Runs the built `chronoscope` in a private tmux server; skipped when tmux is missing.
    .testTarget(
      name: "InspectorEndToEndTests", dependencies: ["TestSupport", "chronoscope-examples"]),
  ],
  swiftLanguageModes: [.v6]
)
