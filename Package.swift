// swift-tools-version: 6.0
import PackageDescription

// The module graph follows the data: scheduler → recorder → trace file → reader → replay model →
// screen model → terminal. Each stage is one target, named by what it does (see docs/Architecture.md).
let package = Package(
  name: "Chronoscope",
  // `Mutex` and `Atomic` (Synchronization) need these.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    // The supported API (README, "Products"; docs/Architecture.md): what an app links to
    // schedule and record, what its tests import to run on virtual time and replay a recording,
    // and the trace format a tool reads. Their public declarations are listed in API/ and
    // compared by APISummaryTests.
    .library(name: "ChronoscopeScheduling", targets: ["ChronoscopeScheduling"]),
    .library(name: "ChronoscopeSchedulingTesting", targets: ["ChronoscopeSchedulingTesting"]),
    .library(name: "ChronoscopeVirtualTime", targets: ["ChronoscopeVirtualTime"]),
    .library(name: "ChronoscopeVirtualTimeTesting", targets: ["ChronoscopeVirtualTimeTesting"]),
    .library(name: "ChronoscopeRecording", targets: ["ChronoscopeRecording"]),
    .library(name: "ChronoscopeReplayTesting", targets: ["ChronoscopeReplayTesting"]),
    .library(name: "ChronoscopeTraceFormat", targets: ["ChronoscopeTraceFormat"]),
    // Not API: the stages behind `chronoscope` (replay model, findings, sharing, screens, the
    // inspector) and the example apps, whose declarations are all `package`. The product exists
    // only for this repository's Benchmarks package, which compiles its targets as members of
    // this package (Benchmarks/Package.swift); the underscore says so, as swift-nio's `_NIO…`.
    .library(
      name: "_ChronoscopeInternals",
      targets: [
        "ChronoscopeReplay", "ChronoscopeAnalysis", "ChronoscopeSharing", "ChronoscopeScreen",
        "ChronoscopeInspector", "ChronoscopeExamples",
      ]),
    .executable(name: "chronoscope", targets: ["chronoscope"]),
    // What `chronoscope record` preloads into a program (docs/RecordAnyProgram.md).
    .library(
      name: "ChronoscopePreload", type: .dynamic,
      targets: ["ChronoscopePreload", "CChronoscopePreload"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    // `Logger`: what the libraries have to say outside a call that could throw (a recording that
    // cannot start, a clock nobody moves) goes where the app's logging goes, not to a bare
    // standard error. The ecosystem's logging API; a small package with no dependencies. 1.16
    // for `InMemoryLogging`, which the tests read what was logged with (it needs a Swift 6.2
    // compiler, as this package already does: `nonisolated(nonsending)`).
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    // HMAC-SHA256 and HKDF for redaction's tokens: keyed hashes a salt guess cannot reverse
    // without the salt, from the ecosystem's audited implementation rather than a hand-written
    // one (it adds BoringSSL's C build, about a few minutes of a clean CI build).
    .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
    // `swift package generate-documentation` for the DocC catalogs; a plugin, built only when run.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
  ],
  targets: [
    // Small algorithms every stage shares: saturating arithmetic (values from files and callers
    // never trap), the one binary search, display widths and sanitizing of untrusted text (every
    // text output), and the one seeded generator. Package API only; depends on nothing.
    .target(name: "ChronoscopeCore"),
    // What Swift cannot spell or call: membarrier(2), a prefetch hint, malloc_trim, a thread's
    // name. One C target, a header each (Sources/CChronoscopeShims/include).
    .target(name: "CChronoscopeShims"),
    // The imported-function slots of the Swift runtime's libraries, rewritten in the running
    // process so that a time bubble sees the clock reads and timed work of unchanged code
    // (docs/TimeBubbles.md). C, because the replacements run on every thread for every clock read
    // and must cost one thread-local load outside a bubble.
    .target(name: "CChronoscopeSlots"),
    // Stage 1: the scheduler abstraction and its live and immediate families.
    .target(name: "ChronoscopeScheduling", dependencies: ["ChronoscopeCore"]),
    // Test support: `waitUntil` and `Locked` for live schedulers, the unimplemented family, and
    // how a failure reaches the running test (XCTest's `XCTFail`, found at run time). Apart, as
    // swift-nio keeps its test helpers, so apps link no test hook.
    .target(name: "ChronoscopeSchedulingTesting", dependencies: ["ChronoscopeScheduling"]),
    // Stage 1b: a simulated clock and its schedulers, for deterministic tests.
    .target(
      name: "ChronoscopeVirtualTime",
      dependencies: [
        "ChronoscopeCore", "CChronoscopeShims", "CChronoscopeSlots", "ChronoscopeScheduling",
        "ChronoscopeSchedulingTesting", .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The Swift Testing trait `.virtualTime`: a clock per test, its failures recorded as issues;
    // and `VirtualTimeTestCase` for XCTest. Both keep a failing test's trace (recorded; what ran
    // and waited at the failure, read by the replay model, in the message: no UI linked). Apart,
    // so that only test targets link Swift Testing and XCTest (the toolchain's own).
    .target(
      name: "ChronoscopeVirtualTimeTesting",
      dependencies: [
        "ChronoscopeRecording", "ChronoscopeReplay", "ChronoscopeScheduling",
        "ChronoscopeSchedulingTesting", "ChronoscopeVirtualTime",
      ]),
    // Stage 3: the trace file format — events, encoder, and the strict streaming reader.
    .target(
      name: "ChronoscopeTraceFormat", dependencies: ["ChronoscopeFatalSignals"]),
    // Stage 2: the recording decorator and the trace writer.
    .target(
      name: "ChronoscopeRecording",
      dependencies: [
        "ChronoscopeCore", "CChronoscopeShims", "ChronoscopeFatalSignals", "ChronoscopeScheduling",
        "ChronoscopeTraceFormat",
        .product(name: "HeapModule", package: "swift-collections"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The one chain of crash-signal handlers, on an alternate stack, that ChronoscopeRecording and
    // ChronoscopeTerminal
    // share.
    .target(name: "ChronoscopeFatalSignals"),
    // Stage 5: the replay model — the state of every action and queue at any instant of a trace.
    // `-Xswiftc -DCHRONOSCOPE_INTERNAL_CHECKS` checks its invariants after every step (slow).
    .target(
      name: "ChronoscopeReplay",
      dependencies: [
        "ChronoscopeCore", "ChronoscopeTraceFormat",
        .product(name: "HeapModule", package: "swift-collections"),
      ]),
    // Stage 6: the screen model — styled cells drawn from replay state; no terminal code.
    .target(name: "ChronoscopeScreen", dependencies: ["ChronoscopeCore"]),
    // Stage 7: the terminal — ncursesw through a system-library shim, and a thin adapter that
    // copies a screen grid to it and turns keys into events. No pkgConfig: see the shim header.
    .systemLibrary(name: "CChronoscopeNCursesW", path: "Sources/CChronoscopeNCursesW"),
    .target(
      name: "ChronoscopeTerminal",
      dependencies: [
        "CChronoscopeNCursesW", "ChronoscopeCore", "ChronoscopeFatalSignals", "ChronoscopeScreen",
      ]),
    // zlib, for `chronoscope export --gzip` (a system library: no build cost; Debian's
    // zlib1g-dev, which .ci/run installs when missing).
    .systemLibrary(name: "CChronoscopeZlib", path: "Sources/CChronoscopeZlib"),
    // Findings: what in a replayed trace points at a bug (lost work, late timers, blocked
    // queues, hangs…), for the CLI, the inspector and tests.
    .target(
      name: "ChronoscopeAnalysis",
      dependencies: [
        "ChronoscopeCore", "ChronoscopeReplay", "ChronoscopeTraceFormat",
        .product(name: "HeapModule", package: "swift-collections"),
      ]),
    // The inspector's logic: UI state, key handling and views, from replay state to a screen.
    .target(
      name: "ChronoscopeInspector",
      dependencies: [
        "ChronoscopeAnalysis", "ChronoscopeCore", "ChronoscopeReplay", "ChronoscopeScreen",
        "ChronoscopeTraceFormat",
      ]),
    // Sharing traces: export to other tools (Perfetto, with the findings), slices, several
    // processes on one timeline, call sites symbolized. Plain Swift over the reader, the replay
    // model and the findings.
    .target(
      name: "ChronoscopeSharing",
      dependencies: [
        "ChronoscopeAnalysis", "ChronoscopeCore", "ChronoscopeReplay", "ChronoscopeTraceFormat",
      ]),
    // What differs between two recordings (`chronoscope diff` and its report), over the action
    // identity ChronoscopeReplay keeps for diffs and replays.
    .target(
      name: "ChronoscopeDiff",
      dependencies: ["ChronoscopeCore", "ChronoscopeReplay", "ChronoscopeTraceFormat"]),
    // Redaction, keyed by a salt: the one stage that needs cryptography.
    .target(
      name: "ChronoscopeRedaction",
      dependencies: [
        "ChronoscopeCore", "ChronoscopeReplay", "ChronoscopeTraceFormat",
        .product(name: "Crypto", package: "swift-crypto"),
      ]),
    // Stage 5b: a recorded order replayed on virtual time — the code under test runs each action
    // at its recorded time, matched as `diff` matches actions; a test fails the same way each run.
    .target(
      name: "ChronoscopeReplayTesting",
      dependencies: [
        "ChronoscopeCore", "ChronoscopeReplay", "ChronoscopeScheduling", "ChronoscopeTraceFormat",
        "ChronoscopeVirtualTime",
      ]
    ),
    // The seeds' example programs, written against `SchedulerFactory`; used by tests and recordings.
    .target(
      name: "ChronoscopeExamples",
      dependencies: ["ChronoscopeScheduling", "ChronoscopeSchedulingTesting"]),
    // The preload library: recording switched on in a program that was not written for it.
    .target(
      name: "ChronoscopePreload",
      dependencies: [
        "CChronoscopePreload", "ChronoscopeFatalSignals", "ChronoscopeRecording",
        "ChronoscopeScheduling", "ChronoscopeTraceFormat",
      ]),
    // What Swift cannot spell: its constructor, frame-pointer walks, the ELF facts of loaded modules.
    // `_Unwind_Backtrace` for call sites: libgcc_s, which the Swift runtime loads anyway.
    // `_Block_copy`: the blocks runtime, which libdispatch loads anyway.
    .target(
      name: "CChronoscopePreload",
      linkerSettings: [
        .linkedLibrary("gcc_s", .when(platforms: [.linux])),
        .linkedLibrary("BlocksRuntime", .when(platforms: [.linux])),
      ]),
    // A program written without Chronoscope (it imports only Foundation), with a timing bug,
    // that `chronoscope record` records unchanged: its tests and the bundled recording use it.
    .executableTarget(name: "feed-refresher"),
    // The command-line tool: thin commands over the library modules.
    .executableTarget(
      name: "chronoscope",
      dependencies: [
        "ChronoscopeCore", "ChronoscopeTraceFormat", "ChronoscopeReplay", "ChronoscopeAnalysis",
        "ChronoscopeScreen", "ChronoscopeInspector", "ChronoscopeTerminal",
        "ChronoscopeSharing", "ChronoscopeDiff", "ChronoscopeRedaction", "CChronoscopeZlib",
        "CChronoscopeShims", "ChronoscopeFatalSignals",
        // The writer that converts a recorder's spool into its trace (`TraceSpoolConversion`).
        "ChronoscopeRecording",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // The example programs under a recorder, and the children the crash and fault tests run:
    // what makes `Recordings/`. Not a product: users get `chronoscope`, tests get this.
    .executableTarget(
      name: "chronoscope-examples",
      dependencies: [
        "ChronoscopeExamples", "ChronoscopeRecording", "ChronoscopeReplayTesting",
        "ChronoscopeScheduling", "ChronoscopeSchedulingTesting", "ChronoscopeScreen",
        "ChronoscopeTerminal", "ChronoscopeTraceFormat", "ChronoscopeVirtualTime",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "ChronoscopeSchedulingTests",
      dependencies: [
        "ChronoscopeScheduling", "ChronoscopeSchedulingTesting", "ChronoscopeVirtualTime",
        "ChronoscopeRecording", "ChronoscopeExamples",
      ]),
    .testTarget(
      name: "ChronoscopeExamplesTests",
      dependencies: [
        "ChronoscopeExamples", "ChronoscopeScheduling", "ChronoscopeSchedulingTesting",
      ]),
    .testTarget(name: "ChronoscopeCoreTests", dependencies: ["ChronoscopeCore"]),
    .testTarget(
      name: "ChronoscopeTraceFormatTests",
      dependencies: [
        "ChronoscopeCore", "ChronoscopeFatalSignals", "ChronoscopeTraceFormat",
        "ChronoscopeTestSupport",
      ]),
    .testTarget(
      name: "ChronoscopeReplayTests",
      dependencies: [
        "ChronoscopeCore", "ChronoscopeReplay", "ChronoscopeTraceFormat",
        "ChronoscopeTestSupport",
      ]),
    .testTarget(
      name: "ChronoscopeAnalysisTests",
      dependencies: [
        "ChronoscopeAnalysis", "ChronoscopeReplay", "ChronoscopeTestSupport",
        "ChronoscopeTraceFormat", "ChronoscopeCore",
      ]),
    .testTarget(
      name: "ChronoscopeSharingTests",
      dependencies: [
        "ChronoscopeSharing", "ChronoscopeAnalysis", "ChronoscopeReplay", "ChronoscopeTraceFormat",
        "ChronoscopeTestSupport", "ChronoscopeExamples", "ChronoscopeRecording",
        "ChronoscopeScheduling", "ChronoscopeSchedulingTesting", "ChronoscopeVirtualTime",
      ]),
    .testTarget(
      name: "ChronoscopeDiffTests",
      dependencies: [
        "ChronoscopeDiff", "ChronoscopeReplay", "ChronoscopeTraceFormat", "ChronoscopeTestSupport",
        "ChronoscopeExamples", "ChronoscopeRecording", "ChronoscopeScheduling",
        "ChronoscopeVirtualTime",
      ]),
    .testTarget(
      name: "ChronoscopeRedactionTests",
      dependencies: [
        "ChronoscopeRedaction", "ChronoscopeReplay", "ChronoscopeTraceFormat",
        "ChronoscopeTestSupport",
      ]),
    .testTarget(
      name: "ChronoscopeInspectorTests",
      dependencies: [
        "ChronoscopeAnalysis", "ChronoscopeCore", "ChronoscopeInspector", "ChronoscopeReplay",
        "ChronoscopeScreen", "ChronoscopeTraceFormat", "ChronoscopeTerminal",
        "CChronoscopeNCursesW",
      ],
      exclude: ["Golden", "Fixtures"]),
    .testTarget(
      name: "ChronoscopeRecordingTests",
      dependencies: [
        "ChronoscopeRecording", "ChronoscopeTraceFormat", "ChronoscopeScheduling",
        "ChronoscopeSchedulingTesting", "ChronoscopeVirtualTime",
        "ChronoscopeTestSupport", "ChronoscopeReplay", "ChronoscopeAnalysis",
        "ChronoscopeExamples", "chronoscope-examples",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "InMemoryLogging", package: "swift-log"),
      ]),
    .testTarget(
      name: "ChronoscopeVirtualTimeTests",
      dependencies: [
        "ChronoscopeVirtualTime", "ChronoscopeVirtualTimeTesting", "ChronoscopeScheduling",
        "ChronoscopeSchedulingTesting", "ChronoscopeExamples",
        "ChronoscopeTestSupport", "ChronoscopeRecording", "ChronoscopeTraceFormat",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "InMemoryLogging", package: "swift-log"),
      ]),
    .testTarget(
      name: "ChronoscopeReplayTestingTests",
      dependencies: [
        "ChronoscopeReplayTesting", "ChronoscopeExamples", "ChronoscopeRecording",
        "ChronoscopeReplay", "ChronoscopeScheduling", "ChronoscopeSchedulingTesting",
        "ChronoscopeSharing", "ChronoscopeTestSupport", "ChronoscopeTraceFormat",
        "ChronoscopeVirtualTime", "ChronoscopeVirtualTimeTesting",
        "chronoscope-examples",
      ]),
    // Helpers shared by the test targets that run the built binary.
    .target(
      name: "ChronoscopeTestSupport", dependencies: ["ChronoscopeTraceFormat"],
      path: "Tests/ChronoscopeTestSupport"),
    // Runs the built `chronoscope` in a private tmux server; skipped when tmux is missing.
    .testTarget(
      name: "InspectorEndToEndTests",
      dependencies: [
        "ChronoscopeCore", "ChronoscopeTestSupport", "ChronoscopeTraceFormat",
        "chronoscope-examples",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
