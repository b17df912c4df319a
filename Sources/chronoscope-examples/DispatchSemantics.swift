import ArgumentParser
import Dispatch
import Foundation
import Synchronization

/// `chronoscope-examples dispatch-semantics`: plain Dispatch whose meaning lives in its blocks —
/// barriers on a concurrent queue, a cancelled `DispatchWorkItem`, a work item with its own
/// quality of service, a barrier `sync` — printing what it saw, for the tests that recording a
/// program (`chronoscope record`) changes none of it.
struct DispatchSemantics: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dispatch-semantics",
    abstract: "Barriers and work items on a concurrent queue (for the preload's tests)."
  )

  @Flag(help: "End with a trap inside a block on a queue (for the crash test).")
  var trap = false

  func run() throws {
    let queue = DispatchQueue(label: "readers-writer", attributes: .concurrent)
    let readers = Atomic<Int>(0)
    let seenByBarriers = Atomic<Int>(0)
    let group = DispatchGroup()
    for index in 0..<200 {
      if index % 20 == 0 {
        queue.async(group: group, flags: .barrier) {
          seenByBarriers.add(readers.load(ordering: .relaxed), ordering: .relaxed)
          usleep(200)
          seenByBarriers.add(readers.load(ordering: .relaxed), ordering: .relaxed)
        }
      } else {
        queue.async(group: group) {
          readers.add(1, ordering: .relaxed)
          usleep(100)
          readers.subtract(1, ordering: .relaxed)
        }
      }
    }
    group.wait()
    let cancelled = DispatchWorkItem { print("the cancelled item ran") }
    cancelled.cancel()
    queue.async(execute: cancelled)
    let ran = Atomic<Bool>(false)
    let item = DispatchWorkItem(qos: .userInitiated) { ran.store(true, ordering: .relaxed) }
    queue.async(execute: item)
    item.wait()
    queue.sync(flags: .barrier) {}
    print(
      "barriers saw \(seenByBarriers.load(ordering: .relaxed)) readers; the item ran: \(ran.load(ordering: .relaxed))"
    )
    if trap {
      queue.async { fatalError("a trap in a block on a queue") }
      queue.sync(flags: .barrier) {}
    }
  }
}
