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
        .product(name: "Inspector", package: "Chronoscope"),
        .product(name: "Replay", package: "Chronoscope"),
        .product(name: "Screen", package: "Chronoscope"),
        .product(name: "TraceFormat", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "ReplayBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Inspector", package: "Chronoscope"),
        .product(name: "Replay", package: "Chronoscope"),
        .product(name: "Analysis", package: "Chronoscope"),
        .product(name: "Sharing", package: "Chronoscope"),
        .product(name: "TraceFormat", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "TestTraceBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Recording", package: "Chronoscope"),
        .product(name: "Scheduling", package: "Chronoscope"),
        .product(name: "VirtualTime", package: "Chronoscope"),
        .product(name: "VirtualTimeTesting", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "VirtualTimeBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "VirtualTime", package: "Chronoscope"),
        .product(name: "Scheduling", package: "Chronoscope"),
        .product(name: "Examples", package: "Chronoscope"),
        .product(name: "CombineSchedulers", package: "combine-schedulers"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "HeapModule", package: "swift-collections"),
      ]
    ),
    .executableTarget(
      name: "ReportBenchmark",
      dependencies: [
        "BenchmarkSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Analysis", package: "Chronoscope"),
        .product(name: "Replay", package: "Chronoscope"),
        .product(name: "TraceFormat", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "RecordingBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Scheduling", package: "Chronoscope"),
        .product(name: "Recording", package: "Chronoscope"),
        .product(name: "TraceFormat", package: "Chronoscope"),
        .product(name: "VirtualTime", package: "Chronoscope"),
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
        .product(name: "Scheduling", package: "Chronoscope"),
        .product(name: "Recording", package: "Chronoscope"),
      ]
    ),
    // The unmodified program PreloadBenchmark records: Foundation and Dispatch only, no
    // dependency at all.
    .executableTarget(name: "DispatchHeavyProgram"),
  ],
  swiftLanguageModes: [.v6]
)
