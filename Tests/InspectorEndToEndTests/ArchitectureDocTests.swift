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
    let graph = try packageGraph()
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

  /// A module's DocC names as its dependencies (a "Depends on …" sentence, "Depends on nothing",
  /// a C target it goes through) only targets Package.swift gives it.
  func testEachModulesDocNamesOnlyDependenciesItHas() throws {
    let graph = try packageGraph()
    for (module, dependencies) in graph.sorted(by: { $0.key < $1.key }) {
      let file = Self.root.appendingPathComponent("Sources/\(module)/\(module).docc/\(module).md")
      guard let doc = try? String(contentsOf: file, encoding: .utf8) else { continue }
      let text = doc.split(whereSeparator: \.isNewline).joined(separator: " ")
      if text.contains("Depends on nothing") {
        XCTAssertEqual(dependencies, [], "\(module)'s DocC says it depends on nothing")
      }
      var named: [String] = []
      for sentence in text.components(separatedBy: "Depends on ").dropFirst() {
        let upToItsEnd = sentence.prefix { $0 != "." && $0 != ";" && $0 != "(" }
        named += Self.backticked(upToItsEnd).filter { $0.hasPrefix("Chronoscope") }
      }
      named += Self.backticked(Substring(text)).filter { $0.hasPrefix("CChronoscope") }
      for target in named where target != module {
        XCTAssert(
          dependencies.contains(target),
          "\(module)'s DocC names \(target) as something it uses; Package.swift gives it \(dependencies)"
        )
      }
    }
  }

  /// The test files that let wall-clock time pass (`usleep`, `Thread.sleep`) are those the
  /// Tests section of docs/Architecture.md names (by file, or by a class the file declares).
  func testTheTestsThatSleepAreTheOnesTheArchitectureNames() throws {
    let doc = try String(
      contentsOf: Self.root.appendingPathComponent("docs/Architecture.md"), encoding: .utf8)
    let section = try XCTUnwrap(
      doc.components(separatedBy: "## Tests").dropFirst().first?
        .components(separatedBy: "\n## ").first, "the Tests section")
    let tests = Self.root.appendingPathComponent("Tests")
    let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: tests.path))
    // Spelled apart, so that this file does not count itself.
    let sleeps = ["usleep", "Thread.sleep"].map { $0 + "(" }
    var unnamed: [String] = []
    for case let path as String in enumerator where path.hasSuffix(".swift") {
      let text = try String(contentsOf: tests.appendingPathComponent(path), encoding: .utf8)
      guard sleeps.contains(where: text.contains) else { continue }
      let file = String(path.split(separator: "/").last?.dropLast(".swift".count) ?? "")
      let classes = text.components(separatedBy: "class ").dropFirst().map {
        String($0.prefix { $0.isLetter || $0.isNumber })
      }
      if !([file] + classes).contains(where: { section.contains("`\($0)`") }) {
        unnamed.append(path)
      }
    }
    XCTAssertEqual(
      unnamed.sorted(), [], "test files that sleep, not named in Architecture.md's Tests")
  }

  /// The `backticked` words of `text`.
  private static func backticked(_ text: Substring) -> [String] {
    text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
  }

  /// Package.swift's targets (tests left out) and what each depends on, as SwiftPM resolves them.
  private func packageGraph() throws -> [String: [String]] {
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
    return graph
  }
}
