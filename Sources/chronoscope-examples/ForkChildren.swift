import ArgumentParser
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `chronoscope-examples fork-children`: keeps Dispatch queues busy while forking children that
/// exit at once, through `exit` (its `atexit` handlers run in the child), for the tests of
/// recording a program that forks (`chronoscope record`): the children must neither hang on a
/// lock a parent's thread held at the fork nor write into the parent's trace.
struct ForkChildren: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fork-children",
    abstract: "Fork children that exit at once while Dispatch queues are busy (for fork tests)."
  )

  @Option(help: "How many children to fork.")
  var children = 20

  func run() throws {
    let queues = (0..<4).map { DispatchQueue(label: "busy-\($0)") }
    let stop = Atomic<Bool>(false)
    let group = DispatchGroup()
    for queue in queues {
      group.enter()
      DispatchQueue.global().async {
        while !stop.load(ordering: .relaxed) { queue.async {} }
        group.leave()
      }
    }
    var hung = 0
    for _ in 0..<children {
      let child = fork()
      if child == 0 { Glibc.exit(0) }
      guard child > 0 else { throw ExitCode(3) }
      if !reaped(child) {
        hung += 1
        kill(child, SIGKILL)
        _ = waitpid(child, nil, 0)
      }
    }
    stop.store(true, ordering: .relaxed)
    group.wait()
    print("forked \(children) children; \(hung) hung")
    if hung > 0 { throw ExitCode(1) }
  }

  /// Whether `child` ended within ten seconds: a generous deadline for a process that only
  /// exits.
  private func reaped(_ child: pid_t) -> Bool {
    let deadline = DispatchTime.now() + .seconds(10)
    while DispatchTime.now() < deadline {
      if waitpid(child, nil, WNOHANG) == child { return true }
      usleep(1_000)
    }
    return false
  }
}
