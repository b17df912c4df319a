import ChronoscopeTestSupport
import Foundation
import XCTest

/// The supported products' public API is what `API/<Module>.txt` lists, symbol for symbol, and
/// every other module has none: a public declaration cannot appear (or go) without the summary
/// changing in the same commit. The summary is the compiler's own view of the built modules
/// (`swift-symbolgraph-extract`, public symbols only, `@_spi` ones left out, as a user importing
/// the module sees them).
///
/// After a deliberate change, `CHRONOSCOPE_RECORD_API=1 swift test --filter APISummaryTests`
/// writes the summaries again; review their diff like any other.
final class APISummaryTests: XCTestCase {
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The products README.md names as the supported API (docs/Architecture.md, "Products").
  static let supported = [
    "ChronoscopeScheduling", "ChronoscopeSchedulingTesting", "ChronoscopeVirtualTime",
    "ChronoscopeVirtualTimeTesting", "ChronoscopeRecording", "ChronoscopeReplayTesting",
    "ChronoscopeTraceFormat",
  ]
  /// Everything else: `package`, or `@_spi(Benchmarks)` for the benchmarks.
  static let notSupported = [
    "ChronoscopeCore", "ChronoscopeFatalSignals", "ChronoscopeReplay", "ChronoscopeAnalysis",
    "ChronoscopeSharing", "ChronoscopeDiff", "ChronoscopeRedaction", "ChronoscopeScreen",
    "ChronoscopeTerminal", "ChronoscopeInspector",
    "ChronoscopeExamples", "ChronoscopePreload",
  ]

  func testTheSupportedProductsPublicAPIIsTheCheckedInSummary() throws {
    let record = ProcessInfo.processInfo.environment["CHRONOSCOPE_RECORD_API"] == "1"
    var differences: [String] = []
    for module in Self.supported {
      let lines = try Self.summary(of: module)
      let file = Self.root.appendingPathComponent("API/\(module).txt")
      let text = lines.joined(separator: "\n") + "\n"
      if record {
        try text.write(to: file, atomically: true, encoding: .utf8)
        continue
      }
      let expected = Set(
        (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n").map(String.init)
          ?? [])
      let actual = Set(lines)
      for added in actual.subtracting(expected).sorted() {
        differences.append("+ \(module): \(added)")
      }
      for removed in expected.subtracting(actual).sorted() {
        differences.append("- \(module): \(removed)")
      }
    }
    XCTAssert(
      differences.isEmpty,
      """
      the public API differs from API/*.txt (+ new, - gone); if that is meant, run
      CHRONOSCOPE_RECORD_API=1 swift test --filter APISummaryTests and commit the summaries:
      \(differences.joined(separator: "\n"))
      """)
  }

  func testNoOtherModuleHasPublicAPI() throws {
    for module in Self.notSupported {
      let lines = try Self.summary(of: module)
      XCTAssertEqual(lines, [], "\(module) is not a supported product: make these package")
    }
  }

  func testEveryPublicDeclarationIsDocumented() throws {
    var undocumented: [String] = []
    for module in Self.supported {
      for symbol in try Self.symbols(of: module) where symbol.documentation == nil {
        // What a protocol documents: its requirement's witnesses (`description`, `==`, …).
        guard !symbol.implementsRequirement else { continue }
        undocumented.append("\(module): \(symbol.line)")
      }
    }
    XCTAssertEqual(undocumented, [], "public declarations without a doc comment")
  }

  // MARK: - Symbol graphs

  struct Symbol {
    var line: String
    var documentation: String?
    var implementsRequirement: Bool
  }

  /// `Type.member: declaration`, one line a symbol, sorted.
  static func summary(of module: String) throws -> [String] {
    try symbols(of: module).map(\.line).sorted()
  }

  static func symbols(of module: String) throws -> [Symbol] {
    let products = try ProductsDirectory.executable("chronoscope").deletingLastPathComponent()
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent(
        "chronoscope-api-\(ProcessInfo.processInfo.processIdentifier)-\(module)")
    try? FileManager.default.removeItem(at: output)
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: output) }
    let includes = [
      "CChronoscopeNCursesW", "CChronoscopeShims/include", "CChronoscopeZlib",
      "CChronoscopePreload/include",
    ].flatMap {
      ["-I", root.appendingPathComponent("Sources/\($0)").path]
    }
    let run = try CommandRun.program(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "swift-symbolgraph-extract", "-module-name", module, "-target", targetTriple,
        "-I", products.appendingPathComponent("Modules").path, "-I", products.path,
        "-minimum-access-level", "public", "-output-dir", output.path,
      ] + includes, in: root)
    guard run.status == 0 else {
      throw Failure(description: "swift-symbolgraph-extract failed for \(module): \(run.output)")
    }
    var symbols: [Symbol] = []
    // The module's own graph and one per module it extends (`Module@Testing.symbols.json`).
    for file in try FileManager.default.contentsOfDirectory(atPath: output.path)
    where file.hasPrefix(module) && file.hasSuffix(".symbols.json") {
      let data = try Data(contentsOf: output.appendingPathComponent(file))
      let graph = try JSONDecoder().decode(Graph.self, from: data)
      let extended =
        file.split(separator: "@").dropFirst().first.map {
          "(extension of \($0.replacingOccurrences(of: ".symbols.json", with: ""))) "
        } ?? ""
      let requirementWitnesses = Set(
        graph.relationships.filter {
          $0.kind == "requirementOf" || $0.kind == "defaultImplementationOf"
        }
        .map(\.source))
      for symbol in graph.symbols where !symbol.identifier.precise.contains("::SYNTHESIZED::") {
        let declaration =
          symbol.declarationFragments?.map(\.spelling).joined() ?? symbol.names.title
        let path = symbol.pathComponents.joined(separator: ".")
        symbols.append(
          Symbol(
            line:
              "\(extended)\(path): \(declaration.split(whereSeparator: \.isNewline).joined(separator: " "))",
            documentation: symbol.docComment.map { $0.lines.map(\.text).joined(separator: "\n") },
            implementsRequirement: requirementWitnesses.contains(symbol.identifier.precise)
              || Self.witnessNames.contains(symbol.names.title)))
      }
    }
    return symbols
  }

  /// Members whose meaning a standard protocol gives.
  private static let witnessNames: Set<String> = [
    "description", "debugDescription", "==(_:_:)", "<(_:_:)", "hash(into:)", "init(from:)",
    "encode(to:)", "errorDescription", "makeIterator()", "next()",
    // Clock, InstantProtocol and SerialExecutor.
    "now", "minimumResolution", "sleep(until:tolerance:)", "advanced(by:)", "duration(to:)",
    "Instant", "Duration", "enqueue(_:)",
    // A task-local's projected value: the property it projects is documented.
    "$current",
  ]

  private static var targetTriple: String {
    #if arch(x86_64)
      let architecture = "x86_64"
    #else
      let architecture = "aarch64"
    #endif
    #if os(Linux)
      return "\(architecture)-unknown-linux-gnu"
    #else
      return "\(architecture == "aarch64" ? "arm64" : architecture)-apple-macosx15.0"
    #endif
  }

  struct Failure: Error, CustomStringConvertible { var description: String }

  struct Graph: Decodable {
    struct Symbol: Decodable {
      struct Identifier: Decodable { var precise: String }
      struct Names: Decodable { var title: String }
      struct Fragment: Decodable { var spelling: String }
      struct DocComment: Decodable {
        struct Line: Decodable { var text: String }
        var lines: [Line]
      }
      var identifier: Identifier
      var names: Names
      var pathComponents: [String]
      var declarationFragments: [Fragment]?
      var docComment: DocComment?
    }
    struct Relationship: Decodable {
      var kind: String
      var source: String
    }
    var symbols: [Symbol]
    var relationships: [Relationship]
  }
}
