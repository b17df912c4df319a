// swift-tools-version: 6.1
import PackageDescription

// Benchmarks for Chronoscope, kept out of the main package so its users never resolve the
// comparison libraries. Each benchmark is one executable target named `<Subject>Benchmark`;
// `BenchmarkSupport` holds what they share (seeded delays, child processes, peak memory, JSON).
//
//   swift run -c release --package-path Benchmarks VirtualTimeBenchmark
//   swift run -c release --package-path Benchmarks RecordingBenchmark
//   swift build -c release --product ChronoscopePreload   # from the root, for PreloadBenchmark
//   swift run -c release --package-path Benchmarks PreloadBenchmark
//   scripts/benchmarks.sh   # every benchmark with --check, plus callgrind instruction counts
// The stages behind the inspector and the CLI (replay model, findings, sharing, screens, the
// inspector) and the example apps are not Chronoscope's public API: their declarations are
// `package`, and the few the benchmarks measure are also `@_spi(Benchmarks) public`, reached
// through the underscored product `_ChronoscopeInternals` with `@_spi(Benchmarks) import`.
let package = Package(
  name: "ChronoscopeBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Chronoscope", path: ".."),
    // TestScheduler, the Combine-style virtual scheduler. On Linux it needs OpenCombine, which
    // this trait switches on.
    .package(
      url: "https://github.com/pointfreeco/combine-schedulers", from: "1.2.0",
      traits: ["OpenCombineSchedulers"]),
    // TestClock, the Swift concurrency `Clock` for tests.
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.0"),
    // Command lines, as in the main package.
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // `Heap`, for the virtual-time floor: a bare priority queue of closures, no scheduler. The
    // main package depends on it too, so it resolves to the same checkout.
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
  ],
  targets: [
    .target(
      name: "BenchmarkSupport",
      dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .executableTarget(
      name: "FrameBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "_ChronoscopeInternals", package: "Chronoscope"),
        .product(name: "ChronoscopeTraceFormat", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "ReplayBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "_ChronoscopeInternals", package: "Chronoscope"),
        .product(name: "ChronoscopeTraceFormat", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "TestTraceBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ChronoscopeRecording", package: "Chronoscope"),
        .product(name: "ChronoscopeScheduling", package: "Chronoscope"),
        .product(name: "ChronoscopeVirtualTime", package: "Chronoscope"),
        .product(name: "ChronoscopeVirtualTimeTesting", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "VirtualTimeBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ChronoscopeVirtualTime", package: "Chronoscope"),
        .product(name: "ChronoscopeScheduling", package: "Chronoscope"),
        .product(name: "_ChronoscopeInternals", package: "Chronoscope"),
        .product(name: "CombineSchedulers", package: "combine-schedulers"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "HeapModule", package: "swift-collections"),
      ]
    ),
    .executableTarget(
      name: "ReportBenchmark",
      dependencies: [
        "BenchmarkSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "_ChronoscopeInternals", package: "Chronoscope"),
        .product(name: "ChronoscopeTraceFormat", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "RecordingBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ChronoscopeScheduling", package: "Chronoscope"),
        .product(name: "ChronoscopeRecording", package: "Chronoscope"),
        .product(name: "ChronoscopeTraceFormat", package: "Chronoscope"),
        .product(name: "ChronoscopeVirtualTime", package: "Chronoscope"),
      ]
    ),
    // What `chronoscope record` costs a program written without Chronoscope: runs
    // DispatchHeavyProgram bare and under the preload library, and the decorator's same
    // measurement in a child of its own.
    .executableTarget(
      name: "PreloadBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ChronoscopeScheduling", package: "Chronoscope"),
        .product(name: "ChronoscopeRecording", package: "Chronoscope"),
      ]
    ),
    // The unmodified program PreloadBenchmark records: Foundation and Dispatch only, no
    // dependency at all.
    .executableTarget(name: "DispatchHeavyProgram"),
  ],
  swiftLanguageModes: [.v6]
)
