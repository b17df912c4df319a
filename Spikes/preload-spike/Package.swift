// swift-tools-version: 6.0
import PackageDescription
let package = Package(
  name: "Spike",
  products: [.library(name: "Preload", type: .dynamic, targets: ["Preload", "PreloadInit"])],
  targets: [
    .target(name: "Preload"), .target(name: "PreloadInit"),
    .executableTarget(name: "App"),
  ]
)
