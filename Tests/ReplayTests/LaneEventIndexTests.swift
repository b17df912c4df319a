import Replay
import TestSupport
import TraceFormat
import XCTest

/// A lane's events by kind, as the strips look them up, against a plain filter of the events.
final class LaneEventIndexTests: XCTestCase {
  /// Any thread id may occur in a file — 0 and 4,294,967,295 too — and queues it never defines.
  func testEveryLaneHoldsExactlyItsEventsWhateverTheIds() {
    let threads: [UInt32] = [0, 1, 7, .max]
    let queues: [UInt32] = [1, 2, 99]
    for seed in 1...100 {
      var random = SeededGenerator(seed: UInt64(seed))
      func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
      var events: [TraceEvent] = []
      for action in UInt32(1)...UInt32(1 + random.next() % 20) {
        let time = Int64(action) * 10
        events.append(
          .schedule(
            time: time, action: action, scheduler: pick(queues), mode: .async, delay: 0,
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
      let byQueue = replay.laneEventIndex(by: .queue)
      for kind in [TraceEvent.Kind.schedule, .begin, .end] {
        for slot in 0..<replay.threadSlotCount {
          let expected = replay.eventIndices.filter {
            let event = replay.event($0)
            return event.kind == kind && replay.threadSlot(of: event.thread) == slot
          }.map { UInt32($0.offset) }
          XCTAssertEqual(Array(byThread.events(lane: slot, kind: kind)), expected, "seed \(seed)")
        }
        for slot in 0..<replay.queueSlotCount {
          let expected = replay.eventIndices.filter {
            let event = replay.event($0)
            guard event.kind == kind, let action = event.action else { return false }
            return replay.queueSlot(of: action) == slot
          }.map { UInt32($0.offset) }
          XCTAssertEqual(Array(byQueue.events(lane: slot, kind: kind)), expected, "seed \(seed)")
        }
      }
    }
  }
}
