import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `chronoscope-examples exec-other SUBCOMMAND ARGS…`: does Dispatch work, then replaces itself
/// (`execv`, no fork) with this program running SUBCOMMAND, for the test that `chronoscope
/// record` keeps the work of both images. With `--fail-first`, an `exec` of a missing file
/// fails first and the program goes on working before the real one.
struct ExecOther: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "exec-other",
    abstract: "Do Dispatch work, then exec this program with other arguments (process tests)."
  )

  @Flag(help: "Try to exec a missing file first, and do more work when that fails.")
  var failFirst = false

  @Argument(parsing: .captureForPassthrough, help: "The subcommand to exec and its arguments.")
  var command: [String] = []

  func run() throws {
    runDispatchWork(label: "before-exec", items: 50)
    if failFirst {
      let missing = ["/nonexistent-chronoscope-program"]
      let pointers = missing.map { strdup($0) } + [nil]
      defer { for pointer in pointers { free(pointer) } }
      _ = execv(missing[0], pointers)
      runDispatchWork(label: "after-failed-exec", items: 50)
    }
    let arguments = [CommandLine.arguments[0]] + command
    let pointers = arguments.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    execv("/proc/self/exe", pointers)
    perror("exec-other")
    throw ExitCode(3)
  }
}
