import ChronoscopeScheduling
import ChronoscopeSchedulingTesting

/// A search field whose results can go stale: query "a" is sent, then query "b"; when a's
/// response arrives after b's, it overwrites b's results, and the field shows results for a
/// query nobody is looking at any more. On live queues it happens now and then — when a's
/// response is slower than b's by more than the time between the two queries.
///
/// The bug is on purpose (``Variant/showsEveryResponse``); ``Variant/cancelsStaleRequests`` is
/// the fix: sending a query cancels the request still in flight. `Recordings/stale-response.trace`
/// is a live run where the race happened (`chronoscope-examples record-stale-response`), and
/// `ChronoscopeReplayTesting`'s tests replay it.
///
/// ```swift
/// let search = StaleResponseSearch(factory: DispatchSchedulerFactory())
/// search.type(["a", "b"], gap: .milliseconds(3))
/// // … once both responses are shown:
/// search.showsStaleResults   // true, now and then
/// ```
package final class StaleResponseSearch: Sendable {
  /// The bug, or its fix.
  package enum Variant: Sendable {
    /// Shows every response as it arrives, the late one too: the bug.
    case showsEveryResponse
    /// Cancels the request in flight when a new query is sent: the fix.
    case cancelsStaleRequests
  }

  private struct State: Sendable {
    var lastQuery: String?
    var shownQuery: String?
    var responsesShown = 0
    var inFlight: SchedulerTask?
  }

  private let ui: any Scheduler
  private let network: any Scheduler
  private let variant: Variant
  private let latency: @Sendable (String) -> Duration
  private let state = Locked(State())

  /// Makes a search field whose requests go to a `search.network` queue and whose results show
  /// on a `search.ui` queue.
  ///
  /// - Parameters:
  ///   - factory: Where its queues come from.
  ///   - variant: The bug or the fix.
  ///   - latency: How long the response to a query takes (the network's say).
  package init(
    factory: any SchedulerFactory, variant: Variant = .showsEveryResponse,
    latency: @escaping @Sendable (String) -> Duration = { _ in .milliseconds(20) }
  ) {
    ui = factory.makeSerial(label: "search.ui")
    network = factory.makeConcurrent(label: "search.network")
    self.variant = variant
    self.latency = latency
  }

  /// Types `queries` into the field on its ui queue, the first now and each next one `gap`
  /// later; each is sent as it is typed.
  package func type(_ queries: [String], gap: Duration) {
    for (index, query) in queries.enumerated() {
      ui.after(gap * index) { self.send(query) }
    }
  }

  /// The query whose results the field shows, if any.
  package var shownQuery: String? { state.value.shownQuery }
  /// The query typed last, if any.
  package var lastQuery: String? { state.value.lastQuery }
  /// How many responses the field has shown.
  package var responsesShown: Int { state.value.responsesShown }
  /// Whether the field shows results for a query other than the last one typed: the bug.
  package var showsStaleResults: Bool {
    let state = state.value
    return state.shownQuery != nil && state.shownQuery != state.lastQuery
  }

  /// Sends `query` (on the ui queue): its response comes back on the network queue after the
  /// latency, and its results show on the ui queue.
  private func send(_ query: String) {
    let request = network.after(latency(query)) {
      let results = "results for \(query)"
      self.ui.async { self.show(results, for: query) }
    }
    let stale = state.withLock { state in
      defer {
        state.lastQuery = query
        state.inFlight = request
      }
      return state.inFlight
    }
    if variant == .cancelsStaleRequests { stale?.cancel() }
  }

  private func show(_ results: String, for query: String) {
    state.withLock { state in
      state.shownQuery = query
      state.responsesShown += 1
    }
  }
}
