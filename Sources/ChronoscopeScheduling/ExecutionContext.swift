/// Which schedulers' actions are running on the current thread, innermost last.
///
/// Every family pushes itself while one of its actions runs. That answers
/// ``Scheduler/isCurrent`` for serial and concurrent schedulers, and lets `sync` see that the
/// target is already held by this thread (directly or through a chain of `sync` calls) and run
/// inline instead of deadlocking.
package enum ExecutionContext {
  private static let stack = ThreadLocal<[ObjectIdentifier]> { [] }

  /// Whether an action of `scheduler` is running on this thread (possibly further out).
  package static func isActive(_ scheduler: AnyObject) -> Bool {
    let id = ObjectIdentifier(scheduler)
    return stack.withValue { $0.contains(id) }
  }

  /// Runs `body` as an action of `scheduler` on this thread.
  @inline(__always)
  package static func run<T, E: Error>(on scheduler: AnyObject, _ body: () throws(E) -> T) throws(E)
    -> T
  {
    let id = ObjectIdentifier(scheduler)
    stack.withValue { $0.append(id) }
    defer { _ = stack.withValue { $0.popLast() } }
    return try body()
  }

  /// Runs `body` as an action of `scheduler` on this thread: the non-generic form, which other
  /// modules call without going through generic metadata on every action.
  package static func run(on scheduler: AnyObject, action body: () -> Void) {
    Runner(stack: stack.local()).run(on: scheduler, action: body)
  }

  /// Runs actions on this thread, one after another, with the thread's stack looked up once:
  /// for a loop that runs many (a virtual clock's advance). Use it on this thread only.
  package static func runner() -> Runner { Runner(stack: stack.local()) }

  /// See ``runner()``.
  package struct Runner {
    fileprivate let stack: ThreadLocal<[ObjectIdentifier]>.Local

    /// Runs `body` as an action of `scheduler` on this thread.
    @inline(__always)
    package func run(on scheduler: AnyObject, action body: () -> Void) {
      let id = ObjectIdentifier(scheduler)
      stack.withValue { $0.append(id) }
      body()
      _ = stack.withValue { $0.popLast() }
    }
  }

  /// The schedulers running on this thread, outermost first.
  package static func snapshot() -> [ObjectIdentifier] { stack.withValue { $0 } }

  /// Runs `body` as an action of `scheduler` on behalf of a thread that is blocked waiting for
  /// it (a `sync` call), so the schedulers that thread holds count as held here too.
  ///
  /// Without this, `a.sync { b.sync { a.sync {} } }` deadlocks whenever `b` runs the block on a
  /// thread of its own (OperationQueue does; Dispatch does for the main queue).
  package static func run<T, E: Error>(
    on scheduler: AnyObject, inheriting held: [ObjectIdentifier], _ body: () throws(E) -> T
  ) throws(E) -> T {
    let saved = stack.withValue { stack in
      defer { stack = held + [ObjectIdentifier(scheduler)] }
      return stack
    }
    defer { stack.withValue { $0 = saved } }
    return try body()
  }
}
