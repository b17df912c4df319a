import Scheduling
import VirtualTime

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

  /// Every family, each with fresh state (a new virtual clock per call).
  static var all: [FamilyUnderTest] {
    let clock = VirtualClock()
    return [
      FamilyUnderTest(name: "dispatch", factory: DispatchSchedulerFactory(), timing: .live),
      FamilyUnderTest(
        name: "operation-queue", factory: OperationQueueSchedulerFactory(), timing: .live),
      FamilyUnderTest(name: "immediate", factory: ImmediateSchedulerFactory(), timing: .inline),
      FamilyUnderTest(
        name: "virtual", factory: VirtualSchedulerFactory(clock: clock), timing: .virtual(clock)),
    ]
  }

  /// The families on real threads.
  static var live: [FamilyUnderTest] { all.filter(\.isLive) }

  /// The families where scheduled work waits for something: live and virtual.
  static var deferred: [FamilyUnderTest] { all.filter { !$0.runsInline } }
}
