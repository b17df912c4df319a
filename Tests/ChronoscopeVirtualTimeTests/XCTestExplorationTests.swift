@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTestSupport
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Foundation
import XCTest

/// Tests that fail on purpose, for `XCTestExplorationTests` to run in a test process of their
/// own and read what they report: they pass (skipped) unless that variable is set.
final class XCTestExplorationFixtures: XCTestCase {
  private func requireFixtureRun() throws {
    guard ProcessInfo.processInfo.environment["CHRONOSCOPE_EXPLORATION_FIXTURES"] == "1" else {
      throw XCTSkip("run by XCTestExplorationTests")
    }
  }

  func testTheStockIsNeverSoldTwice() throws {
    try requireFixtureRun()
    let seed = ProcessInfo.processInfo.environment["FIXTURE_SEED"].flatMap(UInt64.init) ?? 0
    let iterations = seed == 0 ? 200 : 1
    exploreOrders(iterations: iterations, seed: seed) { clock in
      let stock = Stock(items: 1, factory: VirtualSchedulerFactory(clock: clock))
      stock.twoCustomersBuy()
      clock.advance()
      XCTAssertEqual(stock.sales.value.count, 1, "sold \(stock.sales.value)")
    }
  }

  func testWithdrawalsNeverOverdraw() async throws {
    try requireFixtureRun()
    await exploreOrders(iterations: 200) { clock in
      let account = Account(balance: 100)
      clock.task { await account.twoCustomersWithdraw() }
      await clock.advance()
      let balance = await account.balance
      XCTAssertGreaterThanOrEqual(balance, 0)
    }
  }
}

/// A fixture whose failing run keeps its trace: `VirtualTimeTestCase` records each run's clock.
final class XCTestExplorationTraceFixtures: VirtualTimeTestCase {
  func testTheStockIsNeverSoldTwiceWithItsTrace() throws {
    guard ProcessInfo.processInfo.environment["CHRONOSCOPE_EXPLORATION_FIXTURES"] == "1" else {
      throw XCTSkip("run by XCTestExplorationTests")
    }
    exploreOrders(iterations: 200) { clock in
      let stock = Stock(items: 1, factory: recordTrace(of: clock).factory)
      stock.twoCustomersBuy()
      clock.advance()
      XCTAssertEqual(stock.sales.value.count, 1, "sold \(stock.sales.value)")
    }
  }
}

/// `exploreOrders` under XCTest: the first failing run's assertion fails the test, with the seed
/// that reruns it; a rerun by that seed fails the same way; right code passes every run.
final class XCTestExplorationTests: XCTestCase {
  /// Runs one fixture in a test process of its own; its output.
  private func runFixture(
    _ name: String, of fixtures: String = "XCTestExplorationFixtures", seed: UInt64? = nil,
    traces: String? = nil
  ) throws -> String {
    #if os(Linux)
      // This process is the test bundle's executable.
      let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    #else
      throw XCTSkip("runs the test bundle's executable, as Linux builds it")
    #endif
    let process = Process()
    process.executableURL = bundle
    process.arguments = ["ChronoscopeVirtualTimeTests.\(fixtures)/\(name)"]
    var environment = ProcessInfo.processInfo.environment
    environment["CHRONOSCOPE_EXPLORATION_FIXTURES"] = "1"
    environment["FIXTURE_SEED"] = seed.map(String.init)
    environment["CHRONOSCOPE_TRACE_TESTS_DIR"] = traces
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertNotEqual(process.terminationStatus, 0, "the fixture fails: \(output)")
    return output
  }

  func testTheFirstFailingRunFailsTheTestWithTheSeedThatRerunsIt() throws {
    let output = try runFixture("testTheStockIsNeverSoldTwice")
    XCTAssertTrue(output.contains("XCTAssertEqual failed"), output)
    XCTAssertTrue(output.contains("failed: an assertion failed (above)"), output)
    let seedText = try XCTUnwrap(
      output.components(separatedBy: "rerun it alone: exploreOrders(iterations: 1, seed: ")
        .dropFirst().first?.prefix { $0.isNumber }, output)
    let seed = try XCTUnwrap(UInt64(seedText))
    XCTAssertEqual(
      output.components(separatedBy: "XCTAssertEqual failed").count - 1, 1,
      "one failing run, not rerun: \(output)")
    let again = try runFixture("testTheStockIsNeverSoldTwice", seed: seed)
    XCTAssertTrue(again.contains("run 1 of 1 failed"), again)
    XCTAssertTrue(again.contains("seed: \(seed)"), again)
  }

  func testAnAsyncBodyIsExploredToo() throws {
    let output = try runFixture("testWithdrawalsNeverOverdraw")
    XCTAssertTrue(output.contains("XCTAssertGreaterThanOrEqual failed"), output)
    XCTAssertTrue(output.contains("rerun it alone: exploreOrders(iterations: 1, seed: "), output)
  }

  func testTheFailingRunsTraceIsKeptInAVirtualTimeTestCase() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("chronoscope-explore-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = try runFixture(
      "testTheStockIsNeverSoldTwiceWithItsTrace", of: "XCTestExplorationTraceFixtures",
      traces: folder.path)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    XCTAssertEqual(files.count, 1, "the failing run's trace alone: \(files)")
    let path = folder.appendingPathComponent(try XCTUnwrap(files.first)).path
    XCTAssertTrue(output.contains("chronoscope view \(path)"), output)
    XCTAssertTrue(output.contains("rerun it alone: exploreOrders(iterations: 1, seed: "), output)
  }

  func testRightCodePassesEveryRun() {
    let runs = Locked(0)
    exploreOrders(iterations: 100) { clock in
      runs.withLock { $0 += 1 }
      let stock = Stock(
        items: 1, factory: VirtualSchedulerFactory(clock: clock), decidingOnTheStore: true)
      stock.twoCustomersBuy()
      clock.advance()
      XCTAssertEqual(stock.sales.value.count, 1)
    }
    XCTAssertEqual(runs.value, 100)
  }
}

/// `exploreOrders` asked for no runs: the test fails, saying so, instead of passing untested.
final class XCTestExplorationOfNoIterationsTests: XCTestCase {
  /// The failures recorded while `capturing`, kept from the test's own record.
  private var captured: [String] = []
  private var capturing = false

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
    expected: Bool
  ) {
    guard capturing else {
      return super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
    captured.append(description)
  }

  private func failures(of body: () -> Void) -> [String] {
    capturing = true
    defer {
      capturing = false
      captured = []
    }
    body()
    return captured
  }

  private func failures(of body: () async -> Void) async -> [String] {
    capturing = true
    defer {
      capturing = false
      captured = []
    }
    await body()
    return captured
  }

  private func message(_ iterations: Int) -> String {
    "exploreOrders(iterations: \(iterations)) runs nothing, so it would pass without testing "
      + "anything: ask for 1 or more iterations"
  }

  func testNoIterationsFailTheTestInsteadOfPassingUntested() {
    for iterations in [0, -1] {
      var runs = 0
      let recorded = failures { exploreOrders(iterations: iterations) { _ in runs += 1 } }
      XCTAssertEqual(recorded.map { $0.hasSuffix(message(iterations)) }, [true], "\(recorded)")
      XCTAssertEqual(runs, 0)
    }
  }

  func testNoIterationsOfAnAsyncBodyFailTheTestInsteadOfPassingUntested() async {
    for iterations in [0, -1] {
      let recorded = await failures {
        await exploreOrders(iterations: iterations) { clock in
          await clock.advance()
          XCTFail("no run")
        }
      }
      XCTAssertEqual(recorded.map { $0.hasSuffix(message(iterations)) }, [true], "\(recorded)")
    }
  }
}
