@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeReplayTesting
import ChronoscopeScheduling
import ChronoscopeTestSupport
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

final class ReplayingSchedulerFactoryTests: XCTestCase {
  private typealias F = ReplayFixtures
  private let ms = ReplayFixtures.ms

  /// A trace where `load()` scheduled action 1 on `net` and `save()` action 2 on `db`, both at
  /// 0, and they began at `loadBegan` and `saveBegan` (the earlier first in the file).
  private func twoActions(loadBegan: Int64, saveBegan: Int64, saveFirst: Bool) throws -> String {
    let load = [F.begin(1, at: loadBegan), F.end(1, at: loadBegan)]
    let save = [F.begin(2, at: saveBegan), F.end(2, at: saveBegan)]
    return try temporaryTrace(
      [F.header] + F.schedulers + [F.site(1), F.site(2)]
        + [
          F.schedule(1, scheduler: 2, site: 1, at: 0), F.schedule(2, scheduler: 3, site: 2, at: 0),
        ]
        + (saveFirst ? save + load : load + save))
  }

  func testRecordedRunsRunAtTheirRecordedTimesWhateverDelaysTheCodeAsksFor() throws {
    let replay = try ReplayingSchedulerFactory(
      replaying: twoActions(loadBegan: 10 * ms, saveBegan: 5 * ms, saveFirst: true))
    let log = F.Log()
    let clock = replay.clock
    _ = replay.makeConcurrent(label: "net").scheduleAfter(.milliseconds(1), from: F.callSite(1)) {
      log.append("load", at: clock.now)
    }
    _ = replay.makeSerial(label: "db").scheduleAfter(.milliseconds(50), from: F.callSite(2)) {
      log.append("save", at: clock.now)
    }

    try replay.run()

    XCTAssertEqual(log.value, ["save@5ms", "load@10ms"])
  }

  /// Two responses on `net` (from `load()`): 1 began first, but 2 scheduled its result on
  /// `main` (from `save()`) first — its thread ran on while 1's was preempted. Each result
  /// runs at its own response's recorded turn: 2's at 20 ms, 1's at 30 ms.
  func testChildrenScheduledCrosswiseRunAtTheirOwnParentsTurns() throws {
    func child(_ action: Int, parent: Int, at time: Int64) -> String {
      #"{"t":\#(time),"e":"schedule","a":\#(action),"q":1,"mode":"async","delay":0,"due":\#(time),"th":1,"site":2,"parent":\#(parent)}"#
    }
    let path = try temporaryTrace(
      [F.header] + F.schedulers + [F.site(1), F.site(2)]
        + [
          F.schedule(1, scheduler: 2, site: 1, at: 0), F.schedule(2, scheduler: 2, site: 1, at: 0),
        ]
        + [F.begin(1, at: 10 * ms), F.begin(2, at: 11 * ms)]
        + [child(3, parent: 2, at: 12 * ms), child(4, parent: 1, at: 13 * ms)]
        + [F.end(2, at: 12 * ms), F.end(1, at: 13 * ms)]
        + [F.begin(3, at: 20 * ms), F.end(3, at: 20 * ms)]
        + [F.begin(4, at: 30 * ms), F.end(4, at: 30 * ms)])
    let replay = try ReplayingSchedulerFactory(replaying: path)
    let log = F.Log()
    let clock = replay.clock
    let net = replay.makeConcurrent(label: "net")
    let main = replay.main
    for response in ["first", "second"] {
      _ = net.scheduleAsync(from: F.callSite(1)) {
        _ = main.scheduleAsync(from: F.callSite(2)) { log.append(response, at: clock.now) }
      }
    }

    try replay.run()

    XCTAssertEqual(log.value, ["second@20ms", "first@30ms"])
  }

  func testRunsRecordedAtOneInstantRunInTheRecordedOrderNotTheSchedulingOrder() throws {
    let replay = try ReplayingSchedulerFactory(
      replaying: twoActions(loadBegan: 7 * ms, saveBegan: 7 * ms, saveFirst: true))
    let log = F.Log()
    let clock = replay.clock
    // Scheduled load first: a virtual clock alone would run it first.
    _ = replay.makeConcurrent(label: "net").scheduleAsync(from: F.callSite(1)) {
      log.append("load", at: clock.now)
    }
    _ = replay.makeSerial(label: "db").scheduleAsync(from: F.callSite(2)) {
      log.append("save", at: clock.now)
    }

    try replay.run()

    XCTAssertEqual(log.value, ["save@7ms", "load@7ms"])
  }

  func testARepeatingActionRunsAsOftenAsTheTraceRanIt() throws {
    let path = try temporaryTrace(
      [F.header] + F.schedulers + [
        F.site(1), F.schedule(1, scheduler: 3, site: 1, at: 0, mode: "repeating"),
      ]
        + [10, 20, 30].enumerated().flatMap { run, time in
          [F.begin(1, at: time * ms, run: run + 1), F.end(1, at: time * ms, run: run + 1)]
        })
    let replay = try ReplayingSchedulerFactory(replaying: path)
    let log = F.Log()
    let clock = replay.clock
    _ = replay.makeSerial(label: "db").scheduleRepeating(
      every: .seconds(1), firstAfter: .seconds(1), from: F.callSite(1)
    ) { log.append("tick", at: clock.now) }

    try replay.run()

    XCTAssertEqual(log.value, ["tick@10ms", "tick@20ms", "tick@30ms"])
  }

  func testASyncRunsWhenTheCodeMakesItAndCountsAsTheTracesAction() throws {
    // load() on net at 10 ms calls save() on db with sync; then log() on db at 20 ms.
    let path = try temporaryTrace(
      [F.header] + F.schedulers + [F.site(1), F.site(2), F.site(3)]
        + [F.schedule(1, scheduler: 2, site: 1, at: 0), F.begin(1, at: 10 * ms)]
        + [
          F.schedule(2, scheduler: 3, site: 2, at: 10 * ms, mode: "sync"), F.begin(2, at: 10 * ms),
        ]
        + [F.end(2, at: 10 * ms), F.schedule(3, scheduler: 3, site: 3, at: 10 * ms)]
        + [F.end(1, at: 10 * ms), F.begin(3, at: 20 * ms), F.end(3, at: 20 * ms)])
    let replay = try ReplayingSchedulerFactory(replaying: path)
    let log = F.Log()
    let clock = replay.clock
    let db = replay.makeSerial(label: "db")
    _ = replay.makeConcurrent(label: "net").scheduleAsync(from: F.callSite(1)) {
      let saved = db.scheduleSync(from: F.callSite(2)) { () -> Bool in
        log.append("save", at: clock.now)
        return true
      }
      _ = db.scheduleAsync(from: F.callSite(3)) { log.append("log", at: clock.now) }
      log.append("load saved \(saved)", at: clock.now)
    }

    try replay.run()

    XCTAssertEqual(log.value, ["save@10ms", "load saved true@10ms", "log@20ms"])
  }

  // MARK: Extra work

  /// `load()` on `net` at 10 ms and `save()` on `db` at 20 ms; `load` schedules `log()` on
  /// `db`, which the trace does not have.
  private func loadThenSave(_ replay: ReplayingSchedulerFactory, log: F.Log) {
    let clock = replay.clock
    let db = replay.makeSerial(label: "db")
    _ = replay.makeConcurrent(label: "net").scheduleAsync(from: F.callSite(1)) {
      log.append("load", at: clock.now)
      _ = db.scheduleAfter(.milliseconds(3), from: F.callSite(3)) {
        log.append("log", at: clock.now)
      }
    }
    _ = db.scheduleAsync(from: F.callSite(2)) { log.append("save", at: clock.now) }
  }

  func testWorkTheTraceDoesNotHaveStopsTheReplayWithTheFirstDivergence() throws {
    let replay = try ReplayingSchedulerFactory(
      replaying: twoActions(loadBegan: 10 * ms, saveBegan: 20 * ms, saveFirst: false))
    let log = F.Log()
    loadThenSave(replay, log: log)

    XCTAssertThrowsError(try replay.run()) { error in
      let divergence = (error as? ReplayError)?.divergence
      XCTAssertEqual(divergence?.cause, .unrecordedWork)
      XCTAssertEqual(divergence?.position, 2)
      XCTAssertEqual(
        divergence?.lines.dropFirst(3),
        [
          "first divergence at run 2 in begin order:",
          "  A ran #2 db (App/App.swift:20 save()) occurrence 1, run 1, at 0.020000s",
          "  B scheduled #3 db (App/App.swift:30 log()) occurrence 1, due at 0.013000s: not run, the trace does not have it",
          "ReplayOptions(allowsExtraWork: true) lets work the trace does not have run, at the time the code asks for",
        ])
      XCTAssertEqual(
        divergence?.lines.first,
        "replay of \(divergence?.trace ?? "") stopped: the code scheduled work the trace does not have"
      )
    }
    XCTAssertEqual(log.value, ["load@10ms"], "nothing ran after the divergence")
  }

  func testExtraWorkRunsAtTheTimeTheCodeAsksForWhenTheTestAllowsIt() throws {
    let replay = try ReplayingSchedulerFactory(
      replaying: twoActions(loadBegan: 10 * ms, saveBegan: 20 * ms, saveFirst: false),
      options: ReplayOptions(allowsExtraWork: true))
    let log = F.Log()
    loadThenSave(replay, log: log)

    try replay.run()

    XCTAssertEqual(log.value, ["load@10ms", "log@13ms", "save@20ms"])
  }

  func testAnEndlessTimerTheTraceDoesNotHaveStopsTheReplayInsteadOfHangingIt() throws {
    let replay = try ReplayingSchedulerFactory(
      replaying: twoActions(loadBegan: 10 * ms, saveBegan: F.latest, saveFirst: false),
      options: ReplayOptions(allowsExtraWork: true, extraWorkLimit: 1_000))
    let db = replay.makeSerial(label: "db")
    _ = replay.makeConcurrent(label: "net").scheduleAsync(from: F.callSite(1)) {
      _ = db.scheduleRepeating(every: .nanoseconds(1), firstAfter: .zero, from: F.callSite(3)) {}
    }
    _ = db.scheduleAsync(from: F.callSite(2)) {}

    XCTAssertThrowsError(try replay.run()) { error in
      XCTAssertEqual(
        "\(error)",
        "replay stopped: extra work ran 1000 times before recorded run 2 (an endless timer the trace does not have?); cancel it or raise ReplayOptions.extraWorkLimit"
      )
    }
  }

  func testCancelledWorkTheTraceRanIsADivergenceNamingWhatTheTraceRan() throws {
    let replay = try ReplayingSchedulerFactory(
      replaying: twoActions(loadBegan: 10 * ms, saveBegan: 20 * ms, saveFirst: false))
    let load = replay.makeConcurrent(label: "net").scheduleAsync(from: F.callSite(1)) {}
    _ = replay.makeSerial(label: "db").scheduleAsync(from: F.callSite(2)) {}
    load.cancel()

    XCTAssertThrowsError(try replay.run()) { error in
      let divergence = (error as? ReplayError)?.divergence
      XCTAssertEqual(divergence?.cause, .missingWork)
      XCTAssertEqual(
        divergence?.lines.dropFirst(3),
        [
          "first divergence at run 1 in begin order:",
          "  A ran #1 net (App/App.swift:10 load()) occurrence 1, run 1, at 0.010000s",
          "  B's next was #2 db (App/App.swift:20 save()) occurrence 1, run 1, due at 0.020000s: not run",
        ])
    }
  }

  func testRecordedWorkTheCodeNeverSchedulesIsADivergenceAtItsTurn() throws {
    let replay = try ReplayingSchedulerFactory(
      replaying: twoActions(loadBegan: 10 * ms, saveBegan: 20 * ms, saveFirst: false))
    _ = replay.makeConcurrent(label: "net").scheduleAsync(from: F.callSite(1)) {}

    XCTAssertThrowsError(try replay.run()) { error in
      let divergence = (error as? ReplayError)?.divergence
      XCTAssertEqual(divergence?.position, 2)
      XCTAssertEqual(divergence?.recorded?.action.site, "App/App.swift:20 save()")
      XCTAssertNil(divergence?.replayed, "B ran nothing more")
      XCTAssertEqual(divergence?.lines.last, "  B ran nothing more")
    }
  }

  // MARK: Bad input

  func testATraceOfOtherCodeDivergesAtStepOneNamingTheUnmatchedAction() throws {
    let replay = try ReplayingSchedulerFactory(replaying: Recordings.path("contact-loader"))
    let search = StaleResponseSearch(factory: replay)
    search.type(["a"], gap: .zero)

    XCTAssertThrowsError(try replay.run()) { error in
      let divergence = (error as? ReplayError)?.divergence
      XCTAssertEqual(divergence?.position, 1)
      XCTAssertEqual(divergence?.cause, .unrecordedWork)
      XCTAssertEqual(divergence?.recorded?.action.scheduler, "contacts.load")
      XCTAssertEqual(
        divergence?.lines.dropFirst(5).first,
        "  B scheduled #1 search.ui (ChronoscopeExamples/StaleResponseSearch.swift:63 type(_:gap:)) occurrence 1, due at 0.000000s: not run, the trace does not have it"
      )
    }
    XCTAssertNil(search.lastQuery, "the unmatched action did not run")
  }

  func testATraceFromChronoscopeRecordMatchesTheCodeByItsSchedulerLabelsAndSymbolizedSites() throws
  {
    // feed-refresher's first schedule, a repeating timer on a global scheduler, from a port of its
    // code naming the same scheduler and call site; the trace then ran a task's job it does not have.
    let replay = try ReplayingSchedulerFactory(replaying: Recordings.path("feed-refresher"))
    _ = replay.makeConcurrent(label: "com.apple.root.default-qos").scheduleRepeating(
      every: .milliseconds(50), firstAfter: .milliseconds(50),
      from: CallSite(
        fileID: "Sources/feed-refresher/Feed.swift", line: 59,
        function: "static FeedRefresher.run(_:)")
    ) {}

    XCTAssertThrowsError(try replay.run()) { error in
      let divergence = (error as? ReplayError)?.divergence
      XCTAssertEqual(divergence?.cause, .missingWork)
      XCTAssertEqual(divergence?.position, 1)
      XCTAssertEqual(divergence?.recorded?.action.scheduler, "Swift global concurrent queue")
      XCTAssertEqual(divergence?.replayed?.action.id, 1, "the code's timer was matched")
      XCTAssertEqual(
        divergence?.replayed?.action.site,
        "Sources/feed-refresher/Feed.swift:59 static FeedRefresher.run(_:)")
    }
  }

  func testATraceThatFailsToReadThrowsTheReadersErrorWithFileLineAndColumn() throws {
    let path = try temporaryTrace([F.header, #"{"t":0,"e":"begin","a":"#])

    XCTAssertThrowsError(try ReplayingSchedulerFactory(replaying: path)) { error in
      guard case .unreadable(let file, nil, let diagnostics)? = error as? ReplayError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(file, path)
      XCTAssertEqual(diagnostics.first?.file, path)
      XCTAssertEqual(diagnostics.first?.line, 2)
      XCTAssertGreaterThan(diagnostics.first?.column ?? 0, 0)
      XCTAssertTrue("\(error)".contains("\(path):2:"), "\(error)")
    }
  }

  func testAMissingFileIsUnreadableNotACrash() throws {
    let path = temporaryTracePath("missing")

    XCTAssertThrowsError(try RecordedSchedule(contentsOf: path)) { error in
      guard case .unreadable(let file, _, _)? = error as? ReplayError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(file, path)
      XCTAssertEqual(
        "\(error)", "\(path): cannot replay: the trace has errors\n\(path): error: no such file")
    }
  }

  func testAFIFOIsRefusedAtOnceWithTheReason() throws {
    let fifo = try temporaryFolder("replay-fifo").appendingPathComponent("t.trace").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)

    let outcome = FIFOWatchdog.run(reading: fifo, within: 10) { () -> String in
      do {
        _ = try RecordedSchedule(contentsOf: fifo)
        return "read"
      } catch {
        return "\(error)"
      }
    }

    XCTAssertEqual(
      outcome,
      "\(fifo): cannot replay: the trace has errors\n\(fifo): error: a FIFO, not a trace file: traces are read from regular files; save the stream to one first"
    )
  }

  func testAFileThatIsNotATraceSaysSo() throws {
    let path = try temporaryTrace(["hello"])

    XCTAssertThrowsError(try ReplayingSchedulerFactory(replaying: path)) { error in
      XCTAssertTrue("\(error)".hasPrefix("\(path): not a chronoscope trace: "), "\(error)")
    }
  }

  func testHostileTimesAndDelaysSaturateWithoutTrapping() throws {
    // Runs at the latest time a trace may hold; extra work asks for the end of time.
    let path = try temporaryTrace(
      [F.header] + F.schedulers + [F.site(1), F.site(2)]
        + [
          F.schedule(1, scheduler: 2, site: 1, at: 0), F.schedule(2, scheduler: 3, site: 2, at: 0),
        ]
        + [F.begin(1, at: F.latest - 1), F.begin(2, at: F.latest)])
    let replay = try ReplayingSchedulerFactory(
      replaying: path, options: ReplayOptions(allowsExtraWork: true))
    let log = F.Log()
    let clock = replay.clock
    let db = replay.makeSerial(label: "db")
    _ = replay.makeConcurrent(label: "net").scheduleAsync(from: F.callSite(1)) {
      log.append("load", at: clock.now)
      _ = db.scheduleAfter(.seconds(Int64.max), from: F.callSite(3)) {
        log.append("never", at: clock.now)
      }
      _ = db.scheduleAt(SchedulerInstant(nanoseconds: .min), from: F.callSite(3)) {
        log.append("past", at: clock.now)
      }
    }
    _ = db.scheduleAsync(from: F.callSite(2)) { log.append("save", at: clock.now) }

    try replay.run()

    let end = F.latest / 1_000_000
    XCTAssertEqual(log.value, ["load@\(end)ms", "past@\(end)ms", "save@\(end)ms"])
  }
}
