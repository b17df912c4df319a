import Foundation

/// A main-actor view model that polls with `Task.sleep` and stamps with `Date()`, as app code does.
@MainActor final class RefreshingModel {
  private(set) var refreshes: [TimeInterval] = []
  private var task: Task<Void, Never>?

  func start(every interval: Duration) {
    task = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        guard let self, !Task.isCancelled else { return }
        refreshes.append(Date().timeIntervalSinceReferenceDate)
        precondition(Thread.isMainThread)
      }
    }
  }

  func stop() { task?.cancel() }
}
