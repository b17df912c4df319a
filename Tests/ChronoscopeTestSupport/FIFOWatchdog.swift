import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs code that is given a FIFO nobody writes, for tests that it does not wait on it.
public enum FIFOWatchdog {
  /// Runs `body` on another thread and returns what it returned, or nil when it had not returned
  /// within `seconds`. Then `fifo` is opened for writing and closed again until `body` returns,
  /// so that a reader waiting in `open()` or `read()` gets an end of file and the thread ends.
  public static func run<T: Sendable>(
    reading fifo: String, within seconds: Double, _ body: @escaping @Sendable () -> T
  ) -> T? {
    let result = SharedValue<T?>(nil)
    let returned = DispatchSemaphore(value: 0)
    Thread {
      result.set(body())
      returned.signal()
    }.start()
    if returned.wait(timeout: .now() + seconds) == .success { return result.get() }
    while returned.wait(timeout: .now() + 0.01) == .timedOut {
      let writer = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
      if writer >= 0 { close(writer) }
    }
    return nil
  }
}
