import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where tests' traces go and which tests keep one, read from the environment.
///
/// | variable | meaning |
/// |---|---|
/// | `CHRONOSCOPE_TRACE_TESTS` | `all`: every test keeps its trace; unset (or `failing`): only failing tests do |
/// | `CHRONOSCOPE_TRACE_TESTS_DIR` | the folder of the traces; `$TMPDIR/chronoscope-test-traces` when unset |
///
/// ```sh
/// CHRONOSCOPE_TRACE_TESTS=all CHRONOSCOPE_TRACE_TESTS_DIR=/tmp/traces swift test
/// ```
///
/// A file is named after its test, sanitized (`SearchTests.debounce.trace`); a second test of the
/// same name in one process (the cases of a parameterized test) gets `-2`, `-3`… A trace from an
/// earlier run of the same test is replaced.
public struct TestTraceSettings: Sendable, Equatable {
  /// `all` keeps every test's trace.
  public static let keepVariable = "CHRONOSCOPE_TRACE_TESTS"
  /// The folder the traces go to.
  public static let folderVariable = "CHRONOSCOPE_TRACE_TESTS_DIR"

  /// The folder the traces go to; made when the first trace is kept.
  public var folder: String
  /// Whether passing tests keep their trace too.
  public var keepsPassingTests: Bool

  /// Keeps failing tests' traces in `folder`, and passing tests' too when `keepsPassingTests`.
  public init(folder: String, keepsPassingTests: Bool = false) {
    self.folder = folder
    self.keepsPassingTests = keepsPassingTests
  }

  /// The settings the process's environment asks for.
  public static var fromEnvironment: TestTraceSettings {
    TestTraceSettings(environment: ProcessInfo.processInfo.environment)
  }

  /// The settings `environment` asks for.
  public init(environment: [String: String]) {
    let folder = environment[Self.folderVariable].flatMap { $0.isEmpty ? nil : $0 }
    self.init(
      folder: folder
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("chronoscope-test-traces")
        .path,
      keepsPassingTests: environment[Self.keepVariable]?.lowercased() == "all")
  }

  /// The names handed out in this process, so that two tests of one name get two files.
  private static let taken = Mutex<[String: Int]>([:])

  /// The file for the test named `testName`, its folder made.
  ///
  /// - Throws: ``TestTraceFolderError`` when the folder cannot be made.
  func path(for testName: String) throws(TestTraceFolderError) -> String {
    try Self.makeFolder(folder)
    let base = Self.fileName(testName)
    let count = Self.taken.withLock { taken in
      taken[base, default: 0] += 1
      return taken[base, default: 1]
    }
    let name = count == 1 ? base : "\(base)-\(count)"
    return URL(fileURLWithPath: folder).appendingPathComponent("\(name).trace").path
  }

  /// Makes `folder` and the folders above it that are missing (`mkdir -p`).
  private static func makeFolder(_ folder: String) throws(TestTraceFolderError) {
    var prefix = folder.hasPrefix("/") ? "" : "."
    for component in folder.split(separator: "/") {
      prefix += "/\(component)"
      var status = stat()
      if stat(prefix, &status) == 0 {
        guard status.st_mode & S_IFMT == S_IFDIR else {
          throw TestTraceFolderError(folder: folder, reason: String(cString: strerror(ENOTDIR)))
        }
      } else if mkdir(prefix, 0o755) != 0, errno != EEXIST {
        throw TestTraceFolderError(folder: folder, reason: String(cString: strerror(errno)))
      }
    }
  }

  /// `name` as a file name: letters, digits, `.`, `_` and `-`, the rest runs of `-`; at most
  /// 120 characters; never empty or hidden.
  package static func fileName(_ name: String) -> String {
    var result = ""
    for scalar in name.unicodeScalars {
      let kept = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
      if kept || scalar == "." || scalar == "_" || scalar == "-" {
        result.unicodeScalars.append(scalar)
      } else if !result.hasSuffix("-") {
        result.append("-")
      }
    }
    let trimmed = String(
      result.trimmingCharacters(in: CharacterSet(charactersIn: ".-")).prefix(120))
    return trimmed.isEmpty ? "test" : trimmed
  }
}
