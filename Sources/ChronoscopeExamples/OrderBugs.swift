import ChronoscopeScheduling
import ChronoscopeSchedulingTesting

// Timing bugs on purpose, each in code that passes its test in the order work usually runs
// (first in, first out) and fails in another order production can produce — what exploration by
// seed finds (`explore(iterations:seed:strategy:_:)` in ChronoscopeVirtualTime). Each has its fix beside it.

// MARK: - Actor reentrancy

/// A bank account on an actor that checks the balance, awaits an approval on another actor, then
/// debits: across the `await` another withdrawal can run on the actor and pass the same check
/// (the classic reentrancy bug). `checkingAgain` is the fix: check after the `await` too.
@_spi(Benchmarks) public actor Account {
  @_spi(Benchmarks) public private(set) var balance: Int
  private let approvals = Approvals()
  private let checkingAgain: Bool

  @_spi(Benchmarks) public init(balance: Int, checkingAgain: Bool = false) {
    self.balance = balance
    self.checkingAgain = checkingAgain
  }

  /// Takes `amount` out if the balance covers it; returns whether it did.
  @discardableResult
  package func withdraw(_ amount: Int) async -> Bool {
    guard balance >= amount else { return false }
    await approvals.approve(amount)
    if checkingAgain, balance < amount { return false }
    balance -= amount
    return true
  }
}

extension Account {
  /// Two customers at once, both for 80: one withdraws straight away, the other once it has
  /// looked the price up (a hop to another actor). Right, the balance ends at 20.
  @_spi(Benchmarks) public nonisolated func twoCustomersWithdraw() async {
    let prices = PriceList()
    async let first = withdraw(80)
    async let second = withdraw(await prices.price(of: "book"))
    _ = await (first, second)
  }
}

/// Another actor the approval hops to and back from.
actor Approvals {
  private var approved = 0
  func approve(_ amount: Int) { approved += amount }
}

/// A customer who looks the price up (a hop to another actor) before withdrawing it.
package actor PriceList {
  /// How many prices were looked up. A lookup touches the actor's state, so it is a hop to the
  /// actor in every build: one that touched none was optimized into a plain call under `-O`, the
  /// second customer then reached the account before the first was approved, and the bug showed
  /// first in, first out.
  package private(set) var lookups = 0

  package init() {}

  package func price(of item: String) -> Int {
    lookups += 1
    return item.isEmpty ? 0 : 80
  }
}

// MARK: - A lost update between two queues

/// Stock kept on a `store` queue, sold from two checkout queues that each check the count, then
/// ask the store to take one: check, then act, on different queues. The second checkout is
/// opened from the main queue, so in first-in, first-out order the store has taken the first
/// sale before the second checks; in another order both check first and the last one is sold
/// twice. `decidingOnTheStore` is the fix: check and take in one piece of work on the store.
@_spi(Benchmarks) public final class Stock: Sendable {
  private let count: Locked<Int>
  private let store: any Scheduler
  private let checkouts: [any Scheduler]
  private let main: any Scheduler
  private let decidingOnTheStore: Bool
  /// Sales made, in order.
  @_spi(Benchmarks) public let sales = Locked<[String]>([])

  @_spi(Benchmarks) public init(
    items: Int, factory: any SchedulerFactory, decidingOnTheStore: Bool = false
  ) {
    count = Locked(items)
    store = factory.makeSerial(label: "store")
    checkouts = [factory.makeSerial(label: "checkout-1"), factory.makeSerial(label: "checkout-2")]
    main = factory.main
    self.decidingOnTheStore = decidingOnTheStore
  }

  /// What is left.
  package var left: Int { count.value }

  /// Two customers buy at once: one at the first checkout, one at a second that the main queue
  /// opens.
  @_spi(Benchmarks) public func twoCustomersBuy() {
    sell(to: "first", at: checkouts[0])
    main.async { [self] in sell(to: "second", at: checkouts[1]) }
  }

  private func sell(to customer: String, at checkout: any Scheduler) {
    checkout.async { [self] in
      if decidingOnTheStore {
        store.async { [self] in
          guard count.value > 0 else { return }
          count.withLock { $0 -= 1 }
          sales.withLock { $0.append(customer) }
        }
        return
      }
      guard count.value > 0 else { return }
      store.async { [self] in
        count.withLock { $0 -= 1 }
        sales.withLock { $0.append(customer) }
      }
    }
  }
}

// MARK: - A completion called twice

/// A request with a time limit, written with a completion handler (what an async wrapper turns
/// into `withCheckedContinuation`): the response and the time limit are due at the same instant
/// on different queues, each checks `finished` and then finishes on the callback queue. When
/// both check before either finishes, the completion runs twice — a continuation resumed twice,
/// which traps. `claimingFirst` is the fix: claim the finish in the same piece of work as the
/// check, on the callback queue.
@_spi(Benchmarks) public final class LimitedRequest: Sendable {
  private let network: any Scheduler
  private let timer: any Scheduler
  private let callback: any Scheduler
  private let claimingFirst: Bool
  private let finished = Locked(false)

  @_spi(Benchmarks) public init(factory: any SchedulerFactory, claimingFirst: Bool = false) {
    network = factory.makeSerial(label: "network")
    timer = factory.makeSerial(label: "timer")
    callback = factory.makeSerial(label: "callback")
    self.claimingFirst = claimingFirst
  }

  /// Starts the request, answered after `latency`, given up after `limit`; `completion` gets
  /// "response" or "timeout".
  @_spi(Benchmarks) public func start(
    latency: Duration, limit: Duration, completion: @escaping @Sendable (String) -> Void
  ) {
    network.after(latency) { [self] in finish("response", completion) }
    // The time limit hops to its own queue before it looks: first in, first out, the response
    // has finished by then.
    timer.after(limit) { [self] in timer.async { [self] in finish("timeout", completion) } }
  }

  private func finish(_ outcome: String, _ completion: @escaping @Sendable (String) -> Void) {
    if claimingFirst {
      callback.async { [self] in
        guard !finished.value else { return }
        finished.withLock { $0 = true }
        completion(outcome)
      }
      return
    }
    guard !finished.value else { return }
    callback.async { [self] in
      finished.withLock { $0 = true }
      completion(outcome)
    }
  }
}

// MARK: - A timeout racing a result

/// A quote fetched with a time limit equal to the server's latency: the result and the limit
/// fall due at the same instant, and which wins depends on which runs first. First in, first out,
/// the result does; the bug is the limit nobody thought could lose.
@_spi(Benchmarks) public func fetchQuote<C: Clock<Duration>>(
  clock: C, latency: Duration, limit: Duration
)
  async throws -> Int
{
  try await withTimeout(limit, clock: clock) {
    try await clock.sleep(for: latency)
    return 42
  }
}

// MARK: - A debounce that lets two searches through

/// Search-as-you-type: each keystroke (on the main queue) cancels the search scheduled for the
/// last and schedules its own 300 ms later on the timer queue, which hands it to the network.
/// The field promises that a keystroke at the very instant the last one's timer fires replaces
/// that search (the user is still typing). The bug: the timer does not look, and when it runs
/// before the keystroke at that instant two searches go out. `checkingTheLatest` is the fix: a
/// firing timer hands over on the main queue, behind any keystroke due then, and searches only
/// for the latest text.
@_spi(Benchmarks) public final class SearchField: Sendable {
  private let main: any Scheduler
  private let timers: any Scheduler
  private let network: any Scheduler
  private let checkingTheLatest: Bool
  private let pending = Locked<SchedulerTask?>(nil)
  private let latest = Locked("")
  /// The searches sent, in order.
  @_spi(Benchmarks) public let searches = Locked<[String]>([])

  @_spi(Benchmarks) public init(factory: any SchedulerFactory, checkingTheLatest: Bool = false) {
    main = factory.main
    timers = factory.makeSerial(label: "debounce")
    network = factory.makeSerial(label: "network")
    self.checkingTheLatest = checkingTheLatest
  }

  /// The field's text became `text` (called on the main queue).
  package func type(_ text: String) {
    latest.withLock { $0 = text }
    pending.withLock { $0?.cancel() }
    let task = timers.after(.milliseconds(300)) { [self] in
      guard checkingTheLatest else { return send(text) }
      main.async { [self] in
        if latest.value == text { send(text) }
      }
    }
    pending.withLock { $0 = task }
  }

  private func send(_ text: String) {
    network.async { [self] in searches.withLock { $0.append(text) } }
  }

  /// Types `texts` on the main queue, each `gap` after the last.
  @_spi(Benchmarks) public func typeOverTime(_ texts: [String], gap: Duration) {
    for (index, text) in texts.enumerated() {
      main.after(gap * index) { [self] in type(text) }
    }
  }
}

// MARK: - Twenty actions

/// Twenty actions on four queues, all due at one instant, each appending its number: the
/// scenario the exploration benchmark measures schedules per second on.
@_spi(Benchmarks) public func twentyActions(factory: any SchedulerFactory) -> Locked<[Int]> {
  let order = Locked<[Int]>([])
  let queues = (0..<4).map { factory.makeSerial(label: "queue-\($0)") }
  for action in 0..<20 {
    queues[action % 4].async { order.withLock { $0.append(action) } }
  }
  return order
}
