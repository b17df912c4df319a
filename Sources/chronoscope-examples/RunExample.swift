import ArgumentParser
import ChronoscopeRecording
import ChronoscopeScheduling
import Foundation

/// A command that runs an example as an app would: on Dispatch, recorded only when
/// `CHRONOSCOPE_TRACE` names a trace path (for the tests of recording switched on from outside).
struct RunExample: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run an example app on Dispatch, recorded when CHRONOSCOPE_TRACE is set."
  )

  enum Name: String, ExpressibleByArgument, CaseIterable {
    case contactLoader = "contact-loader"
    case messageLoader = "message-loader"
    case retry
  }

  @Argument(help: "contact-loader, message-loader or retry.")
  var name: Name

  func run() throws {
    let factory = RecordingSchedulerFactory.recordingIfRequested(
      wrapping: .dispatch, metadata: ["example": name.rawValue])
    switch name {
    case .contactLoader: try ExampleRuns.contactLoader(factory: factory)
    case .messageLoader: try ExampleRuns.messageLoader(factory: factory)
    case .retry: try ExampleRuns.retry(factory: factory)
    }
    print(factory is RecordingSchedulerFactory ? "recorded" : "not recorded")
  }
}
