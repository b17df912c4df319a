// swift-tools-version: 6.0
import PackageDescription

// A package that depends on Chronoscope by path, as a user's would, to run a real package's own
// timing code — swift-async-algorithms' `debounce`, `throttle` and `AsyncTimerSequence` on
// `ContinuousClock`, unchanged — in time bubbles (docs/TimeBubbles.md). Not part of the main
// package's tests (it would add swift-async-algorithms to every CI build):
//
//   swift test --package-path Examples/TimeBubbleAsyncAlgorithms
//   BARE=1 swift test --package-path Examples/TimeBubbleAsyncAlgorithms   # the same, in real time
let package = Package(
  name: "TimeBubbleAsyncAlgorithms",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Chronoscope", path: "../.."),
    .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.0.0"),
  ],
  targets: [
    .testTarget(
      name: "AsyncAlgorithmsInABubbleTests",
      dependencies: [
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        .product(name: "ChronoscopeVirtualTime", package: "Chronoscope"),
        .product(name: "ChronoscopeVirtualTimeTesting", package: "Chronoscope"),
      ])
  ]
)
