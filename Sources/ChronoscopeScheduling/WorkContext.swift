import Synchronization

/// A short name and key–value pairs that say *which* work this is: a recording writes them beside
/// every action scheduled while they are current, and the inspector shows them wherever it shows
/// the action.
///
/// Name one call:
///
/// ```swift
/// queue.async(name: "search \(query)") { … }
/// queue.after(.milliseconds(300), name: "debounce", ["query": query]) { … }
/// ```
///
/// or everything scheduled inside a scope, so that a request id follows the work it causes
/// across queues, tasks and actors:
///
/// ```swift
/// WorkContext.with(name: "request", ["id": request.id]) {
///   network.async { … }        // named "request", id=…
/// }
/// ```
///
/// The context is a task-local value (as swift-distributed-tracing's `ServiceContext` is): a
/// `Task {}` started inside a scope inherits it, and outside any task it lives on the thread
/// for the scope's duration. The recording decorator carries it further: work it records runs
/// with the context that was current when it was scheduled, so whatever that work schedules in
/// turn carries it too. Without a recorder the schedulers do not carry it (a plain
/// `DispatchQueue` knows nothing of task-locals), and nothing is recorded.
///
/// Nested scopes add up, as swift-log's metadata does: an inner value replaces an outer value of
/// the same key, and an inner name replaces the outer name.
///
/// - Warning: Names and values go into trace files that people attach to bug reports: keep
///   secrets out of them (`chronoscope redact` replaces them with tokens, as it does labels).
public struct WorkContext: Sendable, Hashable {
  /// A short name for the work (`search "swift"`); empty when only values were given.
  public var name: String
  /// Values that describe it (`request: 42`).
  public var values: [String: String]

  /// Makes a context.
  public init(name: String = "", values: [String: String] = [:]) {
    self.name = name
    self.values = values
  }

  /// The context of the code running now, if any.
  ///
  /// - Complexity: A load until the process first enters a scope; a task-local lookup after.
  public static var current: WorkContext? {
    // Until a scope has been entered no task or thread can hold a context, and the recorder's
    // read on every schedule costs one load instead of a task-local lookup (Benchmarks/README.md,
    // "Figures behind the code"). Relaxed is enough: a thread that holds a context entered its
    // scope itself, or inherited it from a task whose start ordered the store before it.
    isInUse.load(ordering: .relaxed) ? scope : nil
  }

  /// Runs `operation` with `context` current, whatever was before (the recorder runs work
  /// under the context it was scheduled in).
  package static func withCurrent<R>(_ context: WorkContext?, operation: () throws -> R) rethrows
    -> R
  {
    if context != nil { markInUse() }
    return try $scope.withValue(context, operation: operation)
  }

  @TaskLocal private static var scope: WorkContext?
  private static let isInUse = Atomic<Bool>(false)

  private static func markInUse() {
    // Read first: a store on every scope would make the flag's cache line bounce.
    if !isInUse.load(ordering: .relaxed) { isInUse.store(true, ordering: .relaxed) }
  }

  /// The current context with `name` (when given) and `values` laid over it.
  public static func adding(name: String?, values: [String: String]) -> WorkContext {
    var context = current ?? WorkContext()
    if let name { context.name = name }
    if context.values.isEmpty {
      // Shares the storage of `values`, where a merge into an empty dictionary would allocate
      // a new one and hash every key again: most scopes add to none.
      context.values = values
    } else if !values.isEmpty {
      context.values.merge(values) { _, inner in inner }
    }
    return context
  }

  /// Runs `operation` with `name` and `values` added to the current context, and returns its
  /// result.
  ///
  /// - Parameters:
  ///   - name: The work's name; nil keeps the enclosing scope's.
  ///   - values: Values to add; each replaces an enclosing value of the same key.
  ///   - operation: The code whose scheduled work carries the context.
  @discardableResult
  public static func with<R>(
    name: String? = nil, _ values: [String: String] = [:], operation: () throws -> R
  ) rethrows -> R {
    markInUse()
    return try $scope.withValue(adding(name: name, values: values), operation: operation)
  }

  /// Runs the asynchronous `operation` with `name` and `values` added to the current context,
  /// and returns its result.
  ///
  /// - Parameters:
  ///   - name: The work's name; nil keeps the enclosing scope's.
  ///   - values: Values to add; each replaces an enclosing value of the same key.
  ///   - isolation: The caller's isolation, inherited by `operation`.
  ///   - operation: The code whose scheduled work (and whose child tasks) carry the context.
  @discardableResult
  public static func with<R>(
    name: String? = nil, _ values: [String: String] = [:],
    isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
  ) async rethrows -> R {
    markInUse()
    return try await $scope.withValue(
      adding(name: name, values: values), operation: operation, isolation: isolation)
  }
}
