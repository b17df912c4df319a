import Foundation

/// Runs `body(index)` on `count` fresh threads started together and returns the wall time from
/// the moment they are released until the last one has finished.
///
/// Every thread first runs `prepare(index)`, reports that it is ready and then waits to be
/// released, so neither thread creation nor preparing is timed; `whenReady` runs on the calling
/// thread once every thread is ready, just before they are released.
func timeOnThreads(
  _ count: Int, prepare: @escaping @Sendable (Int) -> Void = { _ in },
  whenReady: () -> Void = {}, _ body: @escaping @Sendable (Int) -> Void
) -> Duration {
  let ready = DispatchSemaphore(value: 0)
  let go = DispatchSemaphore(value: 0)
  let done = DispatchSemaphore(value: 0)
  for index in 0..<count {
    let thread = Thread {
      prepare(index)
      ready.signal()
      go.wait()
      body(index)
      done.signal()
    }
    thread.name = "benchmark.\(index)"
    thread.start()
  }
  for _ in 0..<count { ready.wait() }
  whenReady()
  let start = ContinuousClock.now
  for _ in 0..<count { go.signal() }
  for _ in 0..<count { done.wait() }
  return start.duration(to: .now)
}
