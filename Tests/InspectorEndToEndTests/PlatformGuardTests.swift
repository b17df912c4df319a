import Foundation
import XCTest

/// What builds where (README, "What is tested where"), checked in the sources since nothing here
/// builds for macOS: the preload library compiles to nothing but on Linux, and glibc's spellings
/// appear only in code that only Linux compiles.
final class PlatformGuardTests: XCTestCase {
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Spellings only glibc has (Darwin's `sigaction` keeps its handler in `__sigaction_u`).
  private static let glibcOnly = ["import Glibc", "__sigaction_handler"]

  func testThePreloadLibrarysSwiftIsWhollyLinuxOnly() throws {
    for file in try Self.files(in: "Sources/ChronoscopePreload", ending: ".swift") {
      let lines = try Self.code(of: file)
      XCTAssertEqual(lines.first, "#if os(Linux)", "\(file): its first line of code")
      XCTAssertEqual(
        Self.closingLine(of: lines, openedAt: 0), lines.count - 1,
        "\(file): the #if os(Linux) closes on its last line")
    }
  }

  func testThePreloadLibrarysCIsWhollyLinuxOnly() throws {
    for file in try Self.files(in: "Sources/CChronoscopePreload", ending: ".c", ".h") {
      var lines = try Self.code(of: file)
      // A header's include guard stays outside.
      if file.hasSuffix(".h"), lines.first?.hasPrefix("#ifndef") == true {
        XCTAssertEqual(Self.closingLine(of: lines, openedAt: 0), lines.count - 1, file)
        lines = Array(lines.dropFirst(2).dropLast())
      }
      XCTAssertEqual(lines.first, "#ifdef __linux__", "\(file): its first line of code")
      XCTAssertEqual(
        Self.closingLine(of: lines, openedAt: 0), lines.count - 1,
        "\(file): the #ifdef __linux__ closes on its last line")
    }
  }

  func testGlibcOnlySpellingsAreOnlyInCodeOnlyLinuxCompiles() throws {
    var outside: [String] = []
    for file in try Self.files(in: "Sources", ending: ".swift") {
      // Whether each open #if's current branch compiles only on Linux.
      var branches: [Bool] = []
      for (number, line) in try Self.code(of: file).enumerated() {
        if line.hasPrefix("#if ") {
          branches.append(Self.isLinuxOnly(condition: line.dropFirst(4)))
        } else if line.hasPrefix("#elseif ") {
          branches[branches.count - 1] = Self.isLinuxOnly(condition: line.dropFirst(8))
        } else if line == "#else" {
          branches[branches.count - 1] = false
        } else if line == "#endif" {
          branches.removeLast()
        } else if Self.glibcOnly.contains(where: line.contains), !branches.contains(true) {
          outside.append("\(file), line \(number + 1) of code: \(line)")
        }
      }
    }
    XCTAssertEqual(outside, [], "glibc's spellings outside #if os(Linux) / canImport(Glibc)")
  }

  /// Files under `folder` whose names end with one of `suffixes`, relative to the root.
  private static func files(in folder: String, ending suffixes: String...) throws -> [String] {
    let base = root.appendingPathComponent(folder)
    let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: base.path))
    let found = enumerator.compactMap { $0 as? String }.filter { name in
      suffixes.contains { name.hasSuffix($0) }
    }
    XCTAssertFalse(found.isEmpty, "no file in \(folder)")
    return found.sorted().map { "\(folder)/\($0)" }
  }

  /// The file's lines without blank and comment-only lines, trimmed.
  private static func code(of file: String) throws -> [String] {
    try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
      .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("//") }
  }

  /// The index of the line that closes the conditional opened at `start`, if any.
  private static func closingLine(of lines: [String], openedAt start: Int) -> Int? {
    var depth = 0
    for index in lines.indices.dropFirst(start) {
      if lines[index].hasPrefix("#if") { depth += 1 }
      if lines[index].hasPrefix("#endif") {
        depth -= 1
        if depth == 0 { return index }
      }
    }
    return nil
  }

  private static func isLinuxOnly(condition: Substring) -> Bool {
    !condition.contains("!")
      && (condition.contains("os(Linux)") || condition.contains("canImport(Glibc)"))
  }
}
