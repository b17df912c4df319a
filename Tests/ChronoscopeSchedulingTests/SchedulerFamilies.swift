import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Foundation

/// A family of schedulers the contract suite runs against, with what it can and cannot do.
struct FamilyUnderTest: Sendable {
  enum Timing {
    /// Real threads and the host clock.
    case live
    /// Work runs before `async` returns; delays are not waited for.
    case inline
    /// Work runs when a simulated clock is driven.
    case virtual(VirtualClock)
  }

  let name: String
  let factory: any SchedulerFactory
  let timing: Timing
  /// The family the schedulers report (a recording decorator reports the one it wraps).
  var reportedFamily: String { name.replacingOccurrences(of: "recorded-", with: "") }

  var isLive: Bool {
    if case .live = timing { true } else { false }
  }

  var runsInline: Bool {
    if case .inline = timing { true } else { false }
  }

  /// Lets the family's scheduled work happen until `condition` holds: waits for live work,
  /// drives a virtual clock, or just checks an inline family.
  func settle(_ condition: () -> Bool) -> WaitOutcome {
    switch timing {
    case .live:
      return waitUntil(timeout: .seconds(20), condition)
    case .inline:
      return condition() ? .satisfied : .timedOut
    case .virtual(let clock):
      while !condition() {
        if !clock.step() { return .timedOut }
      }
      return .satisfied
    }
  }

  /// The family's own notion of now, for checking delays.
  var now: @Sendable () -> Duration {
    switch timing {
    case .live, .inline:
      let clock = ContinuousClock()
      let start = clock.now
      return { clock.now - start }
    case .virtual(let clock):
      return { clock.now }
    }
  }

  /// Every family, each with fresh state (a new virtual clock and recorders per call), plus
  /// the recording decorator over a live and a virtual family: it must change no behaviour.
  static var all: [FamilyUnderTest] {
    let clock = VirtualClock()
    let recordedClock = VirtualClock()
    return [
      FamilyUnderTest(name: "dispatch", factory: DispatchSchedulerFactory(), timing: .live),
      FamilyUnderTest(
        name: "operation-queue", factory: OperationQueueSchedulerFactory(), timing: .live),
      FamilyUnderTest(name: "immediate", factory: ImmediateSchedulerFactory(), timing: .inline),
      FamilyUnderTest(
        name: "virtual", factory: VirtualSchedulerFactory(clock: clock), timing: .virtual(clock)),
      FamilyUnderTest(
        name: "recorded-dispatch",
        factory: RecordingSchedulerFactory(
          wrapping: DispatchSchedulerFactory(), recorder: scratchRecorder()),
        timing: .live),
      FamilyUnderTest(
        name: "recorded-virtual",
        factory: RecordingSchedulerFactory(
          wrapping: VirtualSchedulerFactory(clock: recordedClock),
          recorder: scratchRecorder(clock: .virtual { recordedClock.now })),
        timing: .virtual(recordedClock)),
    ]
  }

  /// A recorder writing to a throwaway file (unlinked at once; the descriptor keeps it alive).
  private static func scratchRecorder(clock: TraceClock = .host) -> TraceRecorder {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("contract-\(UUID().uuidString).trace").path
    do {
      let recorder = try TraceRecorder(path: path, clock: clock)
      try? FileManager.default.removeItem(atPath: path)
      return recorder
    } catch {
      preconditionFailure("cannot record to \(path): \(error)")
    }
  }

  /// The families on real threads.
  static var live: [FamilyUnderTest] { all.filter(\.isLive) }

  /// The families where scheduled work waits for something: live and virtual.
  static var deferred: [FamilyUnderTest] { all.filter { !$0.runsInline } }
}
