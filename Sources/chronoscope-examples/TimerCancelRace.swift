import ArgumentParser
import Dispatch
import Foundation
import Synchronization

/// `chronoscope-examples timer-cancel-race`: repeating Dispatch timers cancelled from another
/// thread while they fire, many times over — for the test that a recorded cancel never says a run
/// had started before that run's `begin` (a race between a firing and a cancel).
struct TimerCancelRace: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "timer-cancel-race",
    abstract: "Timers cancelled while they fire (for the preload's tests)."
  )

  @Option(help: "Timers to start and cancel.")
  var timers = 400

  func run() throws {
    let queue = DispatchQueue(label: "timer-race", attributes: .concurrent)
    let fired = Atomic<Int>(0)
    for index in 0..<timers {
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.setEventHandler {
        fired.add(1, ordering: .relaxed)
      }
      timer.schedule(deadline: .now(), repeating: .microseconds(20))
      timer.resume()
      // Cancel a little later each time, from at once to past the first firings: over the runs
      // the cancel lands at every point of a firing, the moments around its begin included.
      let start = DispatchTime.now().uptimeNanoseconds
      let delay = UInt64(index % 100) * 100
      while DispatchTime.now().uptimeNanoseconds &- start < delay {}
      timer.cancel()
    }
    queue.sync(flags: .barrier) {}
    print("timers: \(timers), fired: \(fired.load(ordering: .relaxed) > 0)")
  }
}
