import Foundation

// Code under test that was never written for Chronoscope: it imports only Foundation and sleeps
// with `Task.sleep`, as most code does.

/// A client whose server fails the first `failures` calls; it retries with exponential backoff
/// (2, 4, 8, 16 s…).
final class FlakyClient: @unchecked Sendable {
  // @unchecked Sendable: `calls` is only touched by the one task running fetchWithRetry.
  private var calls = 0
  private let failures: Int
  private(set) var callTimes: [Date] = []

  init(failures: Int) { self.failures = failures }

  struct ServerError: Error {}

  private func fetch() async throws -> String {
    calls += 1
    callTimes.append(Date())
    if calls <= failures { throw ServerError() }
    return "ok"
  }

  func fetchWithRetry(attempts: Int = 6) async throws -> String {
    var attempt = 0
    while true {
      do {
        return try await fetch()
      } catch {
        attempt += 1
        if attempt >= attempts { throw error }
        try await Task.sleep(for: .seconds(1 << attempt))
      }
    }
  }
}
