import ArgumentParser

/// `chronoscope-examples`: the project's example programs, recorded or run as apps, and the
/// programs the crash and fault tests run as children. Not part of the `chronoscope` product:
/// tests and `Recordings/` use it, users need not (as swift-argument-parser keeps its examples).
struct ChronoscopeExamples: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chronoscope-examples",
    abstract: "Run Chronoscope's example programs under a recorder, for recordings and tests.",
    subcommands: [
      RecordExample.self, RunExample.self, RecordStress.self, RecordCrash.self,
      RecordFlight.self, ForkChildren.self, DispatchSemantics.self, RecordStaleResponse.self,
      BusyDispatch.self, ReadTrace.self, ChangeDirectory.self, TaskPriorities.self, NamedTasks.self,
      MainWaits.self,
      DispatchWork.self, SpawnChildren.self, ExecOther.self, TimerCancelRace.self,
    ]
  )
}

ChronoscopeExamples.main()
