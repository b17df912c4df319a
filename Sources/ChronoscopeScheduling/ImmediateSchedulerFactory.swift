/// Makes ``ImmediateScheduler``s: every scheduler runs work inline on the caller's thread.
///
/// ```swift
/// let loader = ContactLoader(factory: ImmediateSchedulerFactory())
/// loader.loadContacts { contacts in received.withLock { $0 = contacts } }
/// XCTAssertEqual(received.value, expected)  // no expectation, no timeout
/// ```
public struct ImmediateSchedulerFactory: SchedulerFactory {
  /// Makes a factory.
  public init() {}

  public func makeSerial(label: String) -> any Scheduler {
    ImmediateScheduler(label: label, kind: .serial)
  }

  public func makeConcurrent(label: String) -> any Scheduler {
    ImmediateScheduler(label: label, kind: .concurrent)
  }

  /// One inline scheduler standing in for the main thread, shared by all factories.
  public var main: any Scheduler { Self.mainScheduler }

  private static let mainScheduler = ImmediateScheduler(label: "main", kind: .main)
}

extension SchedulerFactory where Self == ImmediateSchedulerFactory {
  /// Everything inline: `ContactLoader(factory: .immediate)`.
  public static var immediate: ImmediateSchedulerFactory { ImmediateSchedulerFactory() }
}
