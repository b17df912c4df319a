import ChronoscopeCore
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import XCTest

@_spi(Benchmarks) @testable import ChronoscopeReplay

/// A lane's events by kind, as the strips look them up, against a plain filter of the events.
final class LaneEventIndexTests: XCTestCase {
  /// Any thread id may occur in a file — 0 and 4,294,967,295 too — and schedulers it never defines.
  func testEveryLaneHoldsExactlyItsEventsWhateverTheIds() {
    let threads: [UInt32] = [0, 1, 7, .max]
    let schedulers: [UInt32] = [1, 2, 99]
    for seed in 1...100 {
      var random = SplitMix64(seed: UInt64(seed))
      func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
      var events: [TraceEvent] = []
      for action in UInt32(1)...UInt32(1 + random.next() % 20) {
        let time = Int64(action) * 10
        events.append(
          .schedule(
            time: time, action: action, scheduler: pick(schedulers), mode: .async, delay: 0,
            due: time, thread: pick(threads), parent: 0, site: 0))
        events.append(.begin(time: time + 1, action: action, thread: pick(threads), run: 1))
        events.append(
          .end(time: time + 2, action: action, thread: pick(threads), run: 1, duration: 1))
      }
      let trace = Trace(
        header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
        schedulers: [
          1: SchedulerRecord(id: 1, label: "a", kind: "serial", family: "v", time: 0),
          2: SchedulerRecord(id: 2, label: "b", kind: "serial", family: "v", time: 0),
        ],
        threadNames: [:], closing: nil)
      let replay = ReplayEngine(trace: trace)
      let byThread = replay.laneEventIndex(by: .thread)
      let byScheduler = replay.laneEventIndex(by: .scheduler)
      for kind in [TraceEvent.Kind.schedule, .begin, .end] {
        for slot in 0..<replay.threadSlotCount {
          let expected = replay.eventIndices.filter {
            let event = replay.event($0)
            return event.kind == kind && replay.threadSlot(of: event.thread) == slot
          }.map { UInt32($0.offset) }
          XCTAssertEqual(Array(byThread.events(lane: slot, kind: kind)), expected, "seed \(seed)")
          XCTAssertEqual(byThread.count(lane: slot, kind: kind), expected.count)
        }
        for slot in 0..<replay.schedulerSlotCount {
          let expected = replay.eventIndices.filter {
            let event = replay.event($0)
            guard event.kind == kind, let action = event.action else { return false }
            return replay.schedulerSlot(of: action) == slot
          }.map { UInt32($0.offset) }
          XCTAssertEqual(
            Array(byScheduler.events(lane: slot, kind: kind)), expected, "seed \(seed)")
          XCTAssertEqual(byScheduler.count(lane: slot, kind: kind), expected.count)
        }
      }
      for slot in 0..<replay.schedulerSlotCount {
        let events = replay.eventIndices.filter {
          replay.event($0).action.map { replay.schedulerSlot(of: $0) == slot } ?? false
        }
        XCTAssertEqual(byScheduler.count(lane: slot), events.count, "seed \(seed)")
      }
      XCTAssertEqual(byScheduler.count(lane: replay.schedulerSlotCount), 0, "past the last lane")
      XCTAssertEqual(byScheduler.count(lane: -1, kind: .begin), 0)
    }
  }

  /// Marks are on no scheduler and no task: every grouping also keeps them all in one run, in time
  /// order, beside the lanes' (a thread lane keeps its own too).
  func testEveryGroupingKeepsEveryMarkInTimeOrder() {
    let events: [TraceEvent] = [
      .mark(time: 5, thread: 2, mark: 0),
      .schedule(
        time: 10, action: 1, scheduler: 1, mode: .async, delay: 0, due: 10, thread: 1, parent: 0,
        site: 0),
      .mark(time: 11, thread: 1, mark: 1),
      .begin(time: 12, action: 1, thread: 1, run: 1),
      .end(time: 13, action: 1, thread: 1, run: 1, duration: 1),
      .mark(time: 14, thread: 2, mark: 2),
    ]
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: [1: SchedulerRecord(id: 1, label: "a", kind: "serial", family: "v", time: 0)],
      marks: [MarkRecord(name: "one"), MarkRecord(name: "two"), MarkRecord(name: "three")])
    let replay = ReplayEngine(trace: trace)
    let marks = replay.eventIndices.filter { replay.event($0).kind == .mark }.map {
      UInt32($0.offset)
    }
    XCTAssertEqual(marks.count, 3)
    for grouping in [LaneEventIndex.Grouping.scheduler, .thread, .task] {
      XCTAssertEqual(Array(replay.laneEventIndex(by: grouping).marks), marks, "\(grouping)")
    }
    XCTAssertEqual(Array(LaneEventIndex().marks), [])
    let byScheduler = replay.laneEventIndex(by: .scheduler)
    for slot in 0..<replay.schedulerSlotCount {
      XCTAssertEqual(
        Array(byScheduler.events(lane: slot, kind: .mark)), [], "no mark on a scheduler")
    }
    XCTAssertEqual(
      Array(byScheduler.events(lane: replay.schedulerSlotCount, kind: .schedule)), [],
      "past the last lane: nothing, not the marks")
  }

  /// A lane with few events among many keeps its offsets whole, a busy one as 16-bit
  /// differences, and a block of 64 places may hold the end of one lane and the start of the
  /// next: every lane still holds exactly its events.
  func testSparseAndBusyLanesHoldExactlyTheirEvents() {
    var events: [TraceEvent] = []
    var time: Int64 = 0
    for action in UInt32(1)...50_000 {
      time += 1
      // Scheduler 2 gets one action in 5,000: its offsets lie far apart.
      let scheduler: UInt32 = action % 5_000 == 0 ? 2 : 1
      let thread: UInt32 = action % 3 == 0 ? 9 : 1
      events.append(
        .schedule(
          time: time, action: action, scheduler: scheduler, mode: .async, delay: 0, due: time,
          thread: thread, parent: 0, site: 0))
      events.append(.begin(time: time, action: action, thread: thread, run: 1))
      events.append(.end(time: time, action: action, thread: thread, run: 1, duration: 0))
    }
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "busy", kind: "serial", family: "v", time: 0),
        2: SchedulerRecord(id: 2, label: "quiet", kind: "serial", family: "v", time: 0),
      ])
    let replay = ReplayEngine(trace: trace)
    let byScheduler = replay.laneEventIndex(by: .scheduler)
    let byThread = replay.laneEventIndex(by: .thread)
    for kind in [TraceEvent.Kind.schedule, .begin, .end] {
      var expectedByScheduler = [[UInt32]](repeating: [], count: replay.schedulerSlotCount)
      var expectedByThread = [[UInt32]](repeating: [], count: replay.threadSlotCount)
      for index in replay.eventIndices where replay.event(index).kind == kind {
        let event = replay.event(index)
        if let action = event.action {
          expectedByScheduler[replay.schedulerSlot(of: action)].append(UInt32(index.offset))
        }
        if let slot = replay.threadSlot(of: event.thread) {
          expectedByThread[slot].append(UInt32(index.offset))
        }
      }
      for slot in expectedByScheduler.indices {
        XCTAssertEqual(Array(byScheduler.events(lane: slot, kind: kind)), expectedByScheduler[slot])
      }
      for slot in expectedByThread.indices {
        XCTAssertEqual(Array(byThread.events(lane: slot, kind: kind)), expectedByThread[slot])
      }
    }
  }
}

/// Offsets packed in blocks read back as they were put, whether a block's spread is just
/// under 65,536, just over, or anything, and however the places are filled.
final class PackedOffsetsTests: XCTestCase {
  func testOffsetsReadBackAsTheyWerePut() {
    for seed in 1...40 {
      var random = SplitMix64(seed: UInt64(seed))
      let count = Int(random.next() % 1_000)
      var values: [UInt32] = []
      var value = UInt32(random.next() % 1_000)
      for _ in 0..<count {
        let gaps: [UInt32] = [0, 1, 1_000, 65_535 / 63, 65_536, 1 << 30]
        let step = gaps[Int(random.next() % UInt64(gaps.count))]
        value = value &+ step  // may wrap: any value must come back
        values.append(value)
      }
      // Filled in a shuffled order, as a lane index fills its places.
      var order = Array(values.indices)
      for index in order.indices.reversed() {
        order.swapAt(index, Int(random.next() % UInt64(index + 1)))
      }
      let packed = PackedOffsets(count: count) { put in
        for place in order { put(place, values[place]) }
      }
      XCTAssertEqual(values.indices.map { packed[$0] }, values, "seed \(seed)")
    }
  }

  func testBusyOffsetsTakeTwoBytesAndSparseOnesFour() {
    let busy = PackedOffsets(count: 6_400) { put in
      for place in 0..<6_400 { put(place, UInt32(place * 3)) }
    }
    let sparse = PackedOffsets(count: 6_400) { put in
      for place in 0..<6_400 { put(place, UInt32(place * 2_000)) }
    }
    XCTAssertEqual(busy.storedBytes, 6_400 * 2 + 100 * 8)
    XCTAssertEqual(sparse.storedBytes, 6_400 * 4 + 100 * 8)
  }
}
