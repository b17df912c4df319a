import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reports a failure to the test that is running, without linking XCTest into the library: when
/// XCTest is loaded in the process (any XCTest run), through its `XCTFail`, found at run time;
/// otherwise on standard error. (pointfreeco's IssueReporting does this for XCTest and Swift
/// Testing alike, but its version on this machine needs a newer toolchain and a package that is
/// not available here.)
package enum TestFailure {
  /// `XCTFail(_:file:line:)`, called through its symbol.
  private typealias XCTFail = @convention(thin) (String, StaticString, UInt) -> Void

  private static let xctFail: XCTFail? = {
    guard let process = dlopen(nil, RTLD_NOW),
      let symbol = dlsym(process, "$s6XCTest7XCTFail_4file4lineySS_s12StaticStringVSutF")
    else { return nil }
    return unsafeBitCast(symbol, to: XCTFail.self)
  }()

  /// Whether failures reach XCTest: it is loaded in this process.
  package static var reachesXCTest: Bool { xctFail != nil }

  /// Where failures go instead, while set (the tests of the stand-ins themselves).
  package static let override = Mutex<(@Sendable (String, StaticString, UInt) -> Void)?>(nil)

  /// Where failures of the code running in this task — and the tasks it starts — go: set by a
  /// test host's integration (the Swift Testing trait `.virtualTime` records them as issues of
  /// its test), which XCTest's `XCTFail` would not reach.
  ///
  /// ```swift
  /// try await TestFailure.$reporter.withValue(TestFailure.Reporter { message, file, line in … }) {
  ///   try await body()
  /// }
  /// ```
  // A class holding the closure, not the closure itself: with Swift 6.3.1 on Linux, under -O,
  // binding a closure-typed task-local with `withValue` segfaults in
  // `swift_task_localValuePush` (`swift test -c release` crashed every `.virtualTime` test).
  // Reduced without Chronoscope (`swiftc -O -parse-as-library`, exit 139; boxed, it prints):
  //
  //   enum Holder { @TaskLocal static var reporter: (@Sendable (String) -> Void)? }
  //   @main struct M {
  //     static func main() async {
  //       await Holder.$reporter.withValue({ print("reported", $0) }) { Holder.reporter?("hi") }
  //     }
  //   }
  @TaskLocal package static var reporter: Reporter?

  /// What ``reporter`` holds: the function a failure goes to.
  package final class Reporter: Sendable {
    package let report: @Sendable (String, StaticString, UInt) -> Void

    package init(_ report: @escaping @Sendable (String, StaticString, UInt) -> Void) {
      self.report = report
    }
  }

  /// Fails the running test at `file`:`line` with `message`: the task's ``reporter`` if set,
  /// else XCTest's `XCTFail` when XCTest is loaded, else a line on standard error.
  package static func report(_ message: String, file: StaticString, line: UInt) {
    if let override = override.withLock({ $0 }) {
      override(message, file, line)
    } else if let reporter {
      reporter.report(message, file, line)
    } else if let xctFail {
      xctFail(message, file, line)
    } else {
      FileHandle.standardError.write(Data("\(file):\(line): error: \(message)\n".utf8))
    }
  }
}
