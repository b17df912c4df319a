import ArgumentParser
import BenchmarkSupport
@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Dispatch
import Foundation

/// `VirtualTimeBenchmark explore`: what exploring orders costs and finds, beside what a user would
/// otherwise do — run the test again and again on live queues, hoping the race shows.
///
/// - `throughput`: explored runs (schedules) per second of a 20-action scenario (four serial
///   queues, every action due at one instant), beside the same runs first in, first out.
/// - `find`: for each order bug of `ChronoscopeExamples/OrderBugs.swift` and each strategy, the runs an
///   exploration needs to find it (the median over seeds), and the time.
/// - `live`: the scheduler bugs run on live Dispatch queues again and again: how soon the bug
///   shows, and how often (a live failure reruns only as often as it happens; a seed, always).
struct ExploreBenchmark: ParsableCommand {
  static let name = "explore"

  static let configuration = CommandConfiguration(
    commandName: "VirtualTimeBenchmark \(name)",
    abstract: "Exploring orders: schedules per second, and runs to find each order bug.",
    discussion: """
      Writes one JSON line per measurement to stdout. Target (--check): at least 10000 \
      schedules per second on the 20-action scenario ("schedules_per_second").
      """)

  static let throughputTarget = Target.atLeast(10_000, "schedules_per_second")

  @Option(help: ArgumentHelp("Runs timed for throughput (default 20000).", valueName: "count"))
  var runs = 20_000

  @Option(help: ArgumentHelp("Seeds per bug and strategy (default 21).", valueName: "count"))
  var seeds = 21

  @Option(
    help: ArgumentHelp("Most runs one exploration makes (default 10000).", valueName: "count"))
  var cap = 10_000

  @Option(help: ArgumentHelp("Live runs per bug (default 500).", valueName: "count"))
  var liveRuns = 500

  @Flag(help: "Exit 1 when a target is missed, naming it on stderr.")
  var check = false

  func run() throws {
    var tally = TargetTally(benchmark: "virtual-time-explore")
    writeLine(throughput(tally: &tally))
    for bug in OrderBug.allCases {
      for strategy in [Exploration.Strategy.random, .pct(depth: 2), .pct(depth: 3)] {
        writeLine(find(bug, strategy))
      }
    }
    for bug in OrderBug.allCases where bug.live != nil { writeLine(live(bug)) }
    try tally.finish(check: check)
  }

  // MARK: Throughput

  private func throughput(tally: inout TargetTally) -> JSONLine {
    let body: (VirtualClock) -> Void = { clock in
      let order = twentyActions(factory: VirtualSchedulerFactory(clock: clock))
      clock.advance()
      precondition(order.value.count == 20)
    }
    // Warm up, then time: explored, then first in, first out (no exploration), alternately.
    try? explore(iterations: 1_000, body)
    var explored: [Double] = []
    var fifo: [Double] = []
    for _ in 0..<5 {
      let start = ContinuousClock.now
      try? explore(iterations: runs, body)
      explored.append(seconds(start.duration(to: .now)))
      let plain = ContinuousClock.now
      for _ in 0..<runs { body(VirtualClock()) }
      fifo.append(seconds(plain.duration(to: .now)))
    }
    let exploredMedian = explored.sorted()[explored.count / 2]
    let fifoMedian = fifo.sorted()[fifo.count / 2]
    let perSecond = rounded(Double(runs) / exploredMedian, places: 0)
    var line = JSONLine()
    line.add("benchmark", .string("virtual-time-explore"))
    line.add("measure", .string("throughput"))
    line.add("scenario", .string("20 actions on 4 serial queues at one instant"))
    line.add("runs", .int(runs))
    line.add("schedules_per_second", .double(perSecond))
    line.add("fifo_runs_per_second", .double(rounded(Double(runs) / fifoMedian, places: 0)))
    line.add("vs_fifo", .double(rounded(exploredMedian / fifoMedian, places: 2)))
    let outcome = Self.throughputTarget.outcome(perSecond, context: "explore throughput")
    line.add([outcome])
    tally.record([outcome])
    printError("[explore] \(perSecond) schedules/s")
    return line
  }

  // MARK: Finding the bugs

  private func find(_ bug: OrderBug, _ strategy: Exploration.Strategy) -> JSONLine {
    var needed: [Int] = []
    var missed = 0
    let start = ContinuousClock.now
    for index in 0..<seeds {
      do {
        try explore(iterations: cap, seed: UInt64(index) * 1_000_003, strategy: strategy, bug.body)
        missed += 1
      } catch {
        needed.append(error.iteration + 1)
      }
    }
    let elapsed = seconds(start.duration(to: .now))
    var line = JSONLine()
    line.add("benchmark", .string("virtual-time-explore"))
    line.add("measure", .string("find"))
    line.add("bug", .string(bug.rawValue))
    line.add("strategy", .string("\(strategy)"))
    line.add("seeds", .int(seeds))
    line.add("found", .int(needed.count))
    line.add("runs_to_find_median", needed.isEmpty ? nil : .int(needed.sorted()[needed.count / 2]))
    line.add("runs_to_find_max", needed.max().map { .int($0) })
    line.add("ms_per_find", .double(rounded(elapsed * 1000 / Double(seeds), places: 2)))
    printError(
      "[explore] \(bug.rawValue) \(strategy): median \(needed.sorted()[needed.count / 2]) runs")
    return line
  }

  // MARK: Live, again and again

  private func live(_ bug: OrderBug) -> JSONLine {
    let start = ContinuousClock.now
    var first: Int?
    var failures = 0
    for run in 1...liveRuns where bug.live?() == true {
      failures += 1
      if first == nil { first = run }
    }
    let elapsed = seconds(start.duration(to: .now))
    var line = JSONLine()
    line.add("benchmark", .string("virtual-time-explore"))
    line.add("measure", .string("live"))
    line.add("bug", .string(bug.rawValue))
    line.add("runs", .int(liveRuns))
    line.add("runs_to_find", first.map { .int($0) })
    line.add("failing_runs", .int(failures))
    line.add("ms_per_run", .double(rounded(elapsed * 1000 / Double(liveRuns), places: 2)))
    printError("[explore] live \(bug.rawValue): \(failures) of \(liveRuns) runs failed")
    return line
  }
}

/// The order bugs of `ChronoscopeExamples/OrderBugs.swift` as explore bodies (a failing run throws), and,
/// for those on schedulers, one live run.
enum OrderBug: String, CaseIterable {
  case actorReentrancy = "actor-reentrancy"
  case lostUpdate = "lost-update"
  case completionTwice = "completion-twice"
  case timeoutRace = "timeout-race"
  case debounce = "debounce"

  struct Failed: Error {}

  var body: (VirtualClock) throws -> Void {
    switch self {
    case .actorReentrancy:
      return { clock in
        let tasks = VirtualAsyncClock(clock: clock)
        let account = Account(balance: 100)
        tasks.task { await account.twoCustomersWithdraw() }
        tasks.advance()
        let balance = tasks.task { await account.balance }
        tasks.advance()
        if (try? balance.result?.get()) != 20 { throw Failed() }
      }
    case .lostUpdate:
      return { clock in
        let stock = Stock(items: 1, factory: VirtualSchedulerFactory(clock: clock))
        stock.twoCustomersBuy()
        clock.advance()
        if stock.sales.value.count != 1 { throw Failed() }
      }
    case .completionTwice:
      return { clock in
        let calls = Locked(0)
        LimitedRequest(factory: VirtualSchedulerFactory(clock: clock))
          .start(latency: .seconds(1), limit: .seconds(1)) { _ in calls.withLock { $0 += 1 } }
        clock.advance(by: .seconds(2))
        if calls.value != 1 { throw Failed() }
      }
    case .timeoutRace:
      return { clock in
        let tasks = VirtualAsyncClock(clock: clock)
        let quote = tasks.task {
          try await fetchQuote(clock: tasks, latency: .seconds(1), limit: .seconds(1))
        }
        tasks.advance(by: .seconds(2))
        if (try? quote.result?.get()) != 42 { throw Failed() }
      }
    case .debounce:
      return { clock in
        let field = SearchField(factory: VirtualSchedulerFactory(clock: clock))
        field.typeOverTime(["s", "swift"], gap: .milliseconds(300))
        clock.advance(by: .seconds(1))
        if field.searches.value != ["swift"] { throw Failed() }
      }
    }
  }

  /// One run on live Dispatch queues; true when the bug showed. Settles by waiting a little
  /// after the first outcome: what a stress test on live queues does.
  var live: (() -> Bool)? {
    let factory = DispatchSchedulerFactory()
    switch self {
    case .lostUpdate:
      return {
        let stock = Stock(items: 1, factory: factory)
        stock.twoCustomersBuy()
        _ = waitUntil(timeout: .seconds(1)) { !stock.sales.value.isEmpty }
        usleep(2_000)
        return stock.sales.value.count != 1
      }
    case .completionTwice:
      return {
        let calls = Locked(0)
        LimitedRequest(factory: factory)
          .start(latency: .milliseconds(1), limit: .milliseconds(1)) { _ in
            calls.withLock { $0 += 1 }
          }
        _ = waitUntil(timeout: .seconds(1)) { calls.value > 0 }
        usleep(2_000)
        return calls.value != 1
      }
    case .actorReentrancy, .timeoutRace, .debounce:
      return nil
    }
  }
}
