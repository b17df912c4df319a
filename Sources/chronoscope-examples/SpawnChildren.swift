import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `chronoscope-examples spawn-children`: does Dispatch work while it starts copies of itself
/// running `dispatch-work` (fork and exec, as `posix_spawn` does) and forks children that do not
/// exec, for the test that `chronoscope record -o one.trace` (no `%p`) gives each process its own
/// file rather than one file they all write.
struct SpawnChildren: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "spawn-children",
    abstract: "Start copies of itself doing Dispatch work, and fork children (process tests)."
  )

  @Option(help: "How many copies of itself to start.")
  var children = 2

  func run() throws {
    runDispatchWork(label: "spawner", items: 50)
    var started: [pid_t] = []
    for index in 0..<children {
      let arguments = [
        CommandLine.arguments[0], "dispatch-work", "--label", "child-\(index)", "--items", "50",
      ]
      var child: pid_t = 0
      let pointers = arguments.map { strdup($0) } + [nil]
      defer { for pointer in pointers { free(pointer) } }
      guard posix_spawn(&child, "/proc/self/exe", nil, nil, pointers, environ) == 0 else {
        throw ExitCode(3)
      }
      started.append(child)
      // A child that forks and exits without exec records nothing and writes nothing.
      let forked = fork()
      if forked == 0 { Glibc.exit(0) }
      if forked > 0 { started.append(forked) }
      runDispatchWork(label: "spawner", items: 50)
    }
    var failed = 0
    for child in started {
      var status: Int32 = 0
      _ = waitpid(child, &status, 0)
      if status != 0 { failed += 1 }
    }
    print("spawned \(children) children; \(failed) failed")
    if failed > 0 { throw ExitCode(1) }
  }
}
