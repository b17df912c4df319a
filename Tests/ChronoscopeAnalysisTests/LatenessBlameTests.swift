@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// Why work was late, on small traces whose answer is known to the nanosecond: the stretches
/// add up to the lateness, each given to the run that held things up.
final class LatenessBlameTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  private static func replay(_ events: [TraceEvent]) -> ReplayEngine {
    let sorted = events.enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }
    .map(\.element)
    return ReplayEngine(
      trace: Trace(
        header: TraceHeader(clock: .host, start: "", process: "t", pid: 1), events: sorted,
        schedulers: CraftedSchedulers.all, threadNames: [1: "main"],
        closing: .init(written: Int64(events.count), dropped: 0)))
  }

  /// Action `id` scheduled on `scheduler` at 0, due at `due` (ms), run from `from` to `to` (ms) on
  /// `thread`.
  private static func work(
    _ id: UInt32, scheduler: UInt32, due: Int64, from: Int64, to: Int64, thread: UInt32
  ) -> [TraceEvent] {
    [
      .schedule(
        time: 0, action: id, scheduler: scheduler, mode: .after, delay: due * ms, due: due * ms,
        thread: 1, parent: 0, site: 0),
      .begin(time: from * ms, action: id, thread: thread, run: 1),
      .end(time: to * ms, action: id, thread: thread, run: 1, duration: (to - from) * ms),
    ]
  }

  /// The blame of the worst run of the action with id `id`.
  private static func blame(of id: UInt32, in replay: ReplayEngine) throws -> LatenessBlame {
    let action = try XCTUnwrap(replay.index(of: ActionID(rawValue: id)))
    return try XCTUnwrap(LatenessBlame.worstRun(of: action, in: replay))
  }

  private static func shares(_ blame: LatenessBlame, _ replay: ReplayEngine) -> [String] {
    blame.shares.map { share in
      let who = share.action.map { "#\(replay.action($0).id.rawValue)" } ?? "idle"
      return "\(who) \(share.from / ms)-\(share.to / ms)"
    }
  }

  func testSerialWorkIsBlamedOnTheRunsAheadOfItOnItsSchedulerAndTheGapAfter() throws {
    let replay = Self.replay(
      Self.work(1, scheduler: 2, due: 0, from: 0, to: 20, thread: 2)
        + Self.work(2, scheduler: 2, due: 1, from: 20, to: 30, thread: 2)
        + Self.work(3, scheduler: 2, due: 2, from: 35, to: 36, thread: 2)
        // Work on another scheduler in the same stretch held nothing of db's.
        + Self.work(4, scheduler: 3, due: 0, from: 5, to: 25, thread: 3))
    let blame = try Self.blame(of: 3, in: replay)
    XCTAssertEqual(blame.basis, .scheduler)
    XCTAssertEqual(
      [blame.due, blame.began, blame.lateness], [2 * Self.ms, 35 * Self.ms, 33 * Self.ms])
    XCTAssertEqual(Self.shares(blame, replay), ["#1 2-20", "#2 20-30", "idle 30-35"])
    XCTAssertEqual(blame.shares.map(\.duration).reduce(0, +), blame.lateness)
    XCTAssertEqual(blame.shares.map(\.run), [1, 1, 0])
  }

  func testConcurrentWorkIsBlamedOnTheWorkerThreadsLongestBusyNotOnTheMainThread() throws {
    let replay = Self.replay(
      Self.work(1, scheduler: 3, due: 0, from: 0, to: 30, thread: 10)
        + Self.work(2, scheduler: 3, due: 0, from: 5, to: 40, thread: 11)
        + Self.work(5, scheduler: 1, due: 0, from: 0, to: 50, thread: 1)
        + Self.work(3, scheduler: 3, due: 10, from: 45, to: 46, thread: 10))
    let blame = try Self.blame(of: 3, in: replay)
    XCTAssertEqual(blame.basis, .threads)
    XCTAssertEqual(Self.shares(blame, replay), ["#1 10-30", "#2 30-40", "idle 40-45"])
    XCTAssertEqual(blame.shares.map(\.busy), [2, 1, 0], "both workers were busy until 30 ms")
    XCTAssertEqual(
      blame.shares.map(\.thread), [ThreadID(rawValue: 10), ThreadID(rawValue: 11), nil])
    XCTAssertEqual(blame.shares.map(\.duration).reduce(0, +), 35 * Self.ms)
  }

  /// A late run on a busy machine has a stretch per change in who was busy: a report lists the
  /// longest, in time order, and counts the rest, and the two still add up to the lateness.
  func testABlameWithManyStretchesKeepsTheLongestInTimeOrderAndCountsTheRest() throws {
    // On db, 40 runs ahead of #100, one every 3 ms: run k lasts 1 ms, but every tenth lasts 2.
    var events: [TraceEvent] = []
    for k in 0..<40 {
      let from = Int64(k) * 3
      events += Self.work(
        UInt32(k + 1), scheduler: 2, due: 0, from: from, to: from + (k % 10 == 9 ? 2 : 1),
        thread: 2)
    }
    events += Self.work(100, scheduler: 2, due: 0, from: 121, to: 122, thread: 2)
    let replay = Self.replay(events)
    let whole = try Self.blame(of: 100, in: replay)
    XCTAssertEqual(whole.shares.count, 80, "a run and a gap for each of the 40")
    let kept = whole.keepingLongest(LatenessBlame.reportedShares)
    XCTAssertEqual(kept.shares.count, 10)
    XCTAssertEqual(kept.shares, kept.shares.sorted { $0.from < $1.from }, "in time order")
    XCTAssertEqual(
      Set(kept.shares.map(\.duration)), [2 * Self.ms], "the ten 2 ms stretches are the longest")
    XCTAssertEqual(kept.omittedShares, 70)
    XCTAssertEqual(
      kept.shares.map(\.duration).reduce(0, +) + kept.omittedDuration, whole.lateness,
      "what is listed and what is counted add up to the lateness")
    XCTAssertEqual(whole.keepingLongest(100), whole, "a limit it does not pass changes nothing")
  }

  func testMainWorkIsBlamedOnWhatRanOnTheMainThreadWhateverItsScheduler() throws {
    let replay = Self.replay(
      Self.work(1, scheduler: 1, due: 0, from: 0, to: 30, thread: 1)
        + Self.work(2, scheduler: 2, due: 0, from: 30, to: 40, thread: 1)
        + Self.work(4, scheduler: 3, due: 0, from: 0, to: 45, thread: 7)
        + Self.work(3, scheduler: 1, due: 5, from: 45, to: 46, thread: 1))
    let blame = try Self.blame(of: 3, in: replay)
    XCTAssertEqual(blame.basis, .mainThread)
    XCTAssertEqual(Self.shares(blame, replay), ["#1 5-30", "#2 30-40", "idle 40-45"])
  }

  func testWorkThatBeganOnTimeHasNoBlame() throws {
    let replay = Self.replay(Self.work(1, scheduler: 2, due: 3, from: 3, to: 4, thread: 2))
    XCTAssertNil(
      LatenessBlame.worstRun(of: try XCTUnwrap(replay.index(of: ActionID(rawValue: 1))), in: replay)
    )
  }

  func testTheBlamesOfManyFindingsAreTheBlamesOfEachOnTheRecordings() throws {
    let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Recordings")
    for name in ["findings-demo", "findings-demo-virtual", "busy-app-virtual", "busy-app"] {
      let path = recordings.appendingPathComponent("\(name).trace").path
      let replay = ReplayEngine(trace: try XCTUnwrap(TraceReader.read(path: path).trace))
      let findings = FindingsAnalysis.findings(in: replay, thresholds: FindingThresholds(late: 1))
      let blames = LatenessBlame.blames(for: findings, in: replay, maxShares: .max)
      XCTAssertEqual(blames.count, findings.count { $0.kind == .late }, name)
      for (offset, blame) in blames {
        let action = try XCTUnwrap(findings[offset].action, "a late finding has its action")
        XCTAssertEqual(blame, LatenessBlame.worstRun(of: action, in: replay), name)
      }
    }
  }

  func testALimitKeepsTheLongestStretchesAndCountsTheRest() throws {
    // Ten runs of 1…10 ms ahead of #11 on db, all due at 0.
    var events: [TraceEvent] = []
    var time: Int64 = 0
    for id in UInt32(1)...11 {
      let length = Int64(id)
      events += Self.work(id, scheduler: 2, due: 0, from: time, to: time + length, thread: 2)
      time += length
    }
    let replay = Self.replay(events)
    let findings = FindingsAnalysis.findings(in: replay, thresholds: FindingThresholds(late: 1))
    let offset = try XCTUnwrap(
      findings.firstIndex {
        $0.kind == .late && $0.action.map { replay.action($0).id.rawValue } == 11
      })
    let blame = try XCTUnwrap(LatenessBlame.blames(for: findings, in: replay, maxShares: 3)[offset])
    XCTAssertEqual(Self.shares(blame, replay), ["#8 28-36", "#9 36-45", "#10 45-55"])
    XCTAssertEqual(blame.omittedShares, 7)
    XCTAssertEqual(blame.omittedDuration, 28 * Self.ms)
    XCTAssertEqual(
      blame.shares.map(\.duration).reduce(blame.omittedDuration, +), blame.lateness, "still adds up"
    )
  }

  func testEachLateFindingGetsTheBlameOfItsWorstRun() throws {
    let replay = Self.replay(
      Self.work(1, scheduler: 2, due: 0, from: 0, to: 40, thread: 2)
        + Self.work(2, scheduler: 2, due: 1, from: 40, to: 41, thread: 2)
        + Self.work(3, scheduler: 2, due: 2, from: 41, to: 42, thread: 2))
    let findings = FindingsAnalysis.findings(in: replay)
    let blames = LatenessBlame.blames(for: findings, in: replay)
    let late = findings.indices.filter { findings[$0].kind == .late }
    XCTAssertEqual(late.count, 2)
    for offset in late {
      let blame = try XCTUnwrap(blames[offset])
      XCTAssertEqual(blame.action, findings[offset].action)
      XCTAssertEqual(blame.lateness, findings[offset].duration)
      XCTAssertEqual(blame.shares.map(\.duration).reduce(0, +), blame.lateness)
    }
    XCTAssertEqual(Set(blames.keys), Set(late), "only late findings are blamed")
  }
}
