import Scheduling

/// A family of schedulers the contract suite runs against, with what it can and cannot do.
struct FamilyUnderTest: Sendable {
  let name: String
  let factory: any SchedulerFactory
  /// Inline families run work before `async` returns: there is nothing to cancel before it
  /// starts, nothing overlaps, and delays are not waited for.
  let runsInline: Bool

  /// Every family in this module; later modules add theirs in their own suites.
  static let all: [FamilyUnderTest] = [
    FamilyUnderTest(name: "dispatch", factory: DispatchSchedulerFactory(), runsInline: false),
    FamilyUnderTest(
      name: "operation-queue", factory: OperationQueueSchedulerFactory(), runsInline: false),
    FamilyUnderTest(name: "immediate", factory: ImmediateSchedulerFactory(), runsInline: true),
  ]

  static let live = all.filter { !$0.runsInline }
}
