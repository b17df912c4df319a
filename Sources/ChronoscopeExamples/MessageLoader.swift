import ChronoscopeScheduling

/// Fetches messages on a background scheduler and delivers them on the main scheduler, waiting
/// for the delivery to finish (`main.sync`).
///
/// This is the shape that deadlocks with a naive synchronous test double: delivering with
/// `sync` onto main while already on main. Chronoscope's schedulers detect that and run inline.
package final class MessageLoader: Sendable {
  private let background: any Scheduler
  private let main: any Scheduler
  private let fetch: @Sendable () -> [String]

  /// Makes a loader whose messages come from `fetch`.
  package init(factory: any SchedulerFactory, fetch: @escaping @Sendable () -> [String]) {
    background = factory.makeSerial(label: "messages.fetch")
    main = factory.main
    self.fetch = fetch
  }

  /// Fetches in the background, then calls `completion` on the main scheduler with the messages,
  /// or with a welcome message when there are none.
  package func load(completion: @escaping @Sendable ([String]) -> Void) {
    let fetch = self.fetch
    let main = self.main
    background.async {
      let fetched = fetch()
      let messages = fetched.isEmpty ? ["Welcome to the app!"] : fetched
      main.sync { completion(messages) }
    }
  }
}
