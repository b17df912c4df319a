import ChronoscopeTestSupport
import Foundation
import XCTest

/// docs/Architecture.md's dependency table is Package.swift's, module for module: the test reads
/// the package's manifest as SwiftPM resolves it (`swift package dump-package`) and the table, and
/// names every row that differs, so the map cannot drift from the graph again.
final class ArchitectureDocTests: XCTestCase {
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  func testTheDependencyTableIsThePackagesGraph() throws {
    // A scratch folder of its own: SwiftPM locks the package's `.build` while `swift test` runs
    // there, and a nested command on it would wait for ever.
    let scratch = try temporaryFolder("dump-package")
    let dump = try CommandRun.program(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["swift", "package", "--scratch-path", scratch.path, "dump-package"], in: Self.root)
    XCTAssertEqual(dump.status, 0, dump.output)
    // The manifest's JSON starts at its first brace (SwiftPM may print notes before it).
    let json = try XCTUnwrap(dump.output.firstIndex(of: "{").map { dump.output[$0...] })
    let manifest = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let targets = try XCTUnwrap(manifest["targets"] as? [[String: Any]])
    var graph: [String: [String]] = [:]
    for target in targets where (target["type"] as? String) != "test" {
      let name = try XCTUnwrap(target["name"] as? String)
      let dependencies = (target["dependencies"] as? [[String: [Any]]]) ?? []
      graph[name] = dependencies.compactMap { dependency in
        guard let (kind, values) = dependency.first, let first = values.first as? String else {
          return nil
        }
        return kind == "product"
          ? "\(first) (\(values.dropFirst().first as? String ?? "?"))" : first
      }.sorted()
    }

    let doc = try String(
      contentsOf: Self.root.appendingPathComponent("docs/Architecture.md"), encoding: .utf8)
    let section = try XCTUnwrap(
      doc.components(separatedBy: "## Dependencies").dropFirst().first, "the table's section")
    var table: [String: [String]] = [:]
    for line in section.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count >= 2 else { continue }
      let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
      table[name] =
        cells[1] == "—"
        ? []
        : cells[1].components(separatedBy: ", ").map {
          $0.replacingOccurrences(of: "`", with: "")
        }.sorted()
    }
    XCTAssertEqual(Set(table.keys), Set(graph.keys), "every target has a row, and only they")
    for (name, dependencies) in graph.sorted(by: { $0.key < $1.key }) {
      XCTAssertEqual(table[name], dependencies, "docs/Architecture.md's row for \(name)")
    }
  }
}
