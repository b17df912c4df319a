// swift-tools-version: 6.1
import PackageDescription

// Benchmarks for Chronoscope, kept out of the main package so its users never resolve the
// comparison libraries. Each benchmark is one executable target named `<Subject>Benchmark`;
// `BenchmarkSupport` holds what they share (seeded delays, child processes, peak memory, JSON).
//
//   swift run -c release --package-path Benchmarks VirtualTimeBenchmark
//   swift run -c release --package-path Benchmarks RecordingBenchmark
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
  ],
  targets: [
    .target(name: "BenchmarkSupport"),
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
        .product(name: "Replay", package: "Chronoscope"),
        .product(name: "Analysis", package: "Chronoscope"),
        .product(name: "Sharing", package: "Chronoscope"),
        .product(name: "TraceFormat", package: "Chronoscope"),
      ]
    ),
    .executableTarget(
      name: "VirtualTimeBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "VirtualTime", package: "Chronoscope"),
        .product(name: "Scheduling", package: "Chronoscope"),
        .product(name: "CombineSchedulers", package: "combine-schedulers"),
        .product(name: "Clocks", package: "swift-clocks"),
      ]
    ),
    .executableTarget(
      name: "RecordingBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "Scheduling", package: "Chronoscope"),
        .product(name: "Recording", package: "Chronoscope"),
        .product(name: "TraceFormat", package: "Chronoscope"),
        .product(name: "VirtualTime", package: "Chronoscope"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
