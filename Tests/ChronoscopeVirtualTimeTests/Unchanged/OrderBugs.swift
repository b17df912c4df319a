import Foundation

/// Two plain serial queues updating one store with a read on one turn and the write on the next:
/// a lost update in some orders of the two queues' work, never in first-in-first-out order (the
/// second queue starts a turn late).
final class SharedCounter: @unchecked Sendable {
  // @unchecked Sendable: deliberately racy, as the code under test is.
  var value = 0
  private let first = DispatchQueue(label: "first")
  private let second = DispatchQueue(label: "second")

  func incrementFromBothQueues(done: @escaping @Sendable () -> Void) {
    let group = DispatchGroup()
    group.enter()
    group.enter()
    first.async { [self] in
      let read = value
      first.async { [self] in
        value = read + 1
        group.leave()
      }
    }
    second.async { [self] in
      second.async { [self] in
        let read = value
        second.async { [self] in
          value = read + 1
          group.leave()
        }
      }
    }
    group.notify(queue: .global()) { done() }
  }
}

/// An actor whose withdrawal checks the balance, asks a server (10 ms), then takes the money:
/// reentrancy lets a second withdrawal pass the check meanwhile. The second customer comes 10 ms
/// after the first: at that instant the first one's answer and the second one's arrival are both
/// due, and only the order in which they run decides whether the account is overdrawn.
actor PlainAccount {
  private(set) var balance: Int

  init(balance: Int) { self.balance = balance }

  func withdraw(_ amount: Int) async -> Bool {
    guard balance >= amount else { return false }
    try? await Task.sleep(for: .milliseconds(10))
    balance -= amount
    return true
  }
}

/// Two customers withdrawing 80 from 100, the second 10 ms after the first.
func twoWithdrawals(from account: PlainAccount) async -> [Bool] {
  async let first = account.withdraw(80)
  async let second: Bool = {
    try? await Task.sleep(for: .milliseconds(4))
    try? await Task.sleep(for: .milliseconds(6))
    return await account.withdraw(80)
  }()
  return await [first, second]
}
