import ArgumentParser
import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `chronoscope-examples main-waits`: the main thread's own code blocks on a semaphore that work
/// on a queue signals after `--milliseconds`, then on a group of such work: hangs outside any
/// main-queue job, for the test that `chronoscope record` and `check` see them.
struct MainWaits: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "main-waits",
    abstract: "Block the main thread on a semaphore and a group (for main-thread waits)."
  )

  @Option(help: "How long each wait lasts.")
  var milliseconds = 300

  func run() throws {
    let queue = DispatchQueue(label: "slow.loader")
    let loaded = DispatchSemaphore(value: 0)
    queue.async {
      sleepMilliseconds(milliseconds)
      loaded.signal()
    }
    loaded.wait()
    let group = DispatchGroup()
    queue.async(group: group) { sleepMilliseconds(milliseconds) }
    group.wait()
    // A short wait: not a hang, and not written.
    let quick = DispatchSemaphore(value: 1)
    quick.wait()
    quick.signal()
    print("main waited twice")
  }
}

private func sleepMilliseconds(_ milliseconds: Int) {
  var pause = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
  nanosleep(&pause, nil)
}
