/// Makes the schedulers a component needs, so the component decides their kind and label while
/// the app (or a test) decides their implementation.
///
/// Inject one factory at the composition root:
///
/// ```swift
/// let loader = ContactLoader(factory: DispatchSchedulerFactory())   // the app
/// let loader = ContactLoader(factory: ImmediateSchedulerFactory())  // a synchronous test
/// ```
public protocol SchedulerFactory: Sendable {
  /// Makes a scheduler that runs one action at a time, in order.
  func makeSerial(label: String) -> any Scheduler
  /// Makes a scheduler whose actions may overlap.
  func makeConcurrent(label: String) -> any Scheduler
  /// The scheduler for the main thread; every call returns the same one.
  var main: any Scheduler { get }
}
