/// The implementation behind a scheduler, such as Dispatch or virtual time.
///
/// Families are open: a module that adds schedulers adds a family with its own name.
public struct SchedulerFamily: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  /// The family's name as written in recordings.
  public let rawValue: String

  /// Makes a family from its name.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// `DispatchQueue` and Dispatch timers.
  public static let dispatch = SchedulerFamily(rawValue: "dispatch")
  /// `OperationQueue`, with Dispatch timers for delays.
  public static let operationQueue = SchedulerFamily(rawValue: "operation-queue")
  /// Everything inline on the caller's thread.
  public static let immediate = SchedulerFamily(rawValue: "immediate")

  public var description: String { rawValue }
}
