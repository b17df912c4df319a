import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `chronoscope-examples chdir-work --into DIR`: changes its working directory, then does
/// Dispatch work, for the test that `chronoscope record -o RELATIVE` writes where the user
/// asked (relative to where `record` ran), not relative to wherever the program went.
struct ChangeDirectory: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chdir-work",
    abstract: "Change the working directory, then do Dispatch work (for relative trace paths)."
  )

  @Option(help: "The folder to change to before any work.")
  var into: String

  @Option(help: "How many blocks to run after changing it.")
  var items = 8

  func run() throws {
    guard chdir(into) == 0 else { throw ExitCode(3) }
    runDispatchWork(label: "after-chdir", items: items)
    print("worked in \(into)")
  }
}
