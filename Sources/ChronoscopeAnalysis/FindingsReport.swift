@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// The findings of one or more traces as `chronoscope check` reports them: the document
/// `check --json` prints (schema `chronoscope-findings`, docs/Findings.md) and, line by line,
/// its text.
///
/// Build it in memory, or stream it: ``writeJSON(_:to:)`` writes each finding as it is made,
/// so a trace with a million findings costs what its text costs, not a tree of the document.
/// A tool reads a document back with `JSONDecoder`:
///
/// ```swift
/// let report = try JSONDecoder().decode(FindingsReport.self, from: data)
/// for file in report.files { for entry in file.findings { print(entry.line(file: file.file)) } }
/// ```
@_spi(Benchmarks) public struct FindingsReport: Codable, Sendable, Equatable {
  /// `chronoscope-findings`.
  package var schema = FindingsReport.schemaName
  /// The schema's version; a newer version only adds fields.
  package var version = FindingsReport.currentVersion
  /// One entry per trace checked, in the order given.
  package var files: [File]

  /// The value of ``schema``.
  package static let schemaName = "chronoscope-findings"
  /// The value of ``version`` this library writes.
  package static let currentVersion = 1

  /// Makes a report of `files`.
  package init(files: [File]) { self.files = files }

  /// The findings of one trace (or of the processes of one run, merged).
  package struct File: Codable, Sendable, Equatable {
    /// The file's name as given (several joined with `+` when merged).
    package var file: String
    /// How the recording ended when not cleanly, and where its recorder dropped events, as
    /// `chronoscope validate` says it first (``TraceReading/fate``); nil for a trace that closed
    /// with nothing dropped. Findings near such a place may be missing or wrong: a cut trace
    /// cannot say whether the work pending at its end ran.
    package var recording: [RecordingNote]?
    /// Its findings, in the order ``FindingsAnalysis`` found them.
    package var findings: [Entry]

    /// Makes the entry of `file`.
    package init(file: String, recording: [RecordingNote]? = nil, findings: [Entry]) {
      self.file = file
      self.recording = recording.flatMap { $0.isEmpty ? nil : $0 }
      self.findings = findings
    }

    /// The findings of `replay` that `findings` names, each with its blame when it is late.
    ///
    /// - Complexity: O(findings), plus a blame per late finding (``LatenessBlame``).
    package init(
      file: String, replay: ReplayEngine, recording: [TraceDiagnostic] = [], findings: [Finding]
    ) {
      let blames = LatenessBlame.blames(for: findings, in: replay)
      self.init(
        file: file, recording: recording.map(RecordingNote.init),
        findings: findings.indices.map {
          Entry(findings[$0], blame: blames[$0], in: replay)
        })
    }
  }

  /// What a trace says of its own recording that a reader must know before trusting its
  /// findings: it did not close (the process was killed, or is still being written), the
  /// process crashed or was stopped by a signal, a write failed, its last line was cut off, or
  /// the recorder dropped events.
  package struct RecordingNote: Codable, Sendable, Equatable {
    /// The trace file it is about: the report's file, or one of the files merged into it.
    package var file: String
    /// The line of that file (the last line read, for an ending).
    package var line: Int
    /// `warning` (`error` when the file itself is damaged).
    package var severity: String
    /// What happened, in words.
    package var message: String

    /// The note of a reader's diagnostic.
    package init(_ diagnostic: TraceDiagnostic) {
      file = diagnostic.file
      line = diagnostic.line
      severity = diagnostic.severity.rawValue
      message = diagnostic.message
    }
  }

  /// One finding, with what the trace says of its action (ids, not replay indexes).
  @_spi(Benchmarks) public struct Entry: Codable, Sendable, Equatable {
    /// The rule that found it (`late`, `lost-work`…).
    package var kind: String
    /// `info`, `warning` or `error`.
    package var severity: String
    /// The instant it is reported at (trace time, ns).
    package var timeNanoseconds: Int64
    /// The trace's id of the action it is about; nil for a wait of the main thread outside any
    /// action (`main-thread-hang`).
    package var action: Int?
    /// The ids of other actions involved, in order.
    package var related: [Int]
    /// The id of the scheduler the action was scheduled on.
    package var schedulerID: Int
    /// That scheduler's label, when the trace defines the scheduler.
    package var scheduler: String?
    /// Where the action was scheduled, when the trace says.
    package var site: Site?
    /// The figure that says how far off it was (ns), when one does.
    package var durationNanoseconds: Int64?
    /// What the app called the work, when it named it.
    package var work: Work?
    /// Why a late run was late.
    package var blame: Blame?
    /// One line saying what happened.
    package var message: String

    /// Where an action was scheduled.
    package struct Site: Codable, Sendable, Equatable {
      package var file: String
      package var line: Int
      package var function: String
    }

    /// A named piece of work: its name and values.
    package struct Work: Codable, Sendable, Equatable {
      package var name: String
      package var values: [String: String]
    }

    enum CodingKeys: String, CodingKey {
      case kind, severity, action, related, scheduler, site, work, blame, message
      case timeNanoseconds = "time_ns"
      case schedulerID = "scheduler_id"
      case durationNanoseconds = "duration_ns"
    }

    /// The entry of `finding` in `replay`, with `blame` when it has one.
    @_spi(Benchmarks) public init(
      _ finding: Finding, blame: LatenessBlame?, in replay: ReplayEngine
    ) {
      let id = { (action: ActionIndex) in Int(replay.action(action).id.rawValue) }
      kind = finding.kind.rawValue
      severity = finding.severity.rawValue
      timeNanoseconds = finding.time
      action = finding.action.map(id)
      related = finding.related.map(id)
      schedulerID = Int(finding.scheduler.rawValue)
      scheduler = replay.scheduler(finding.scheduler)?.label
      let callSite =
        finding.action.flatMap { replay.callSite(of: $0) }
        ?? finding.callSite.flatMap { replay.callSite(id: $0) }
      site = callSite.map { Site(file: $0.file, line: $0.line, function: $0.function) }
      durationNanoseconds = finding.duration
      work = finding.action.flatMap { replay.work(of: $0) }.map {
        Work(name: $0.name, values: $0.fields)
      }
      self.blame = blame.map { Blame($0, in: replay) }
      message = finding.message
    }
  }

  /// Why a late finding's run was late: the stretches from its due time to its begin.
  package struct Blame: Codable, Sendable, Equatable {
    /// The number of the late run.
    package var run: Int
    package var dueNanoseconds: Int64
    package var beganNanoseconds: Int64
    package var latenessNanoseconds: Int64
    /// What it waited for: `scheduler`, `main-thread` or `threads`.
    package var waitedFor: String
    /// The stretches, longest first as ``LatenessBlame`` keeps them.
    package var shares: [Share]
    /// How many stretches were left out, and their time (absent when none were).
    package var omittedShares: Int?
    package var omittedNanoseconds: Int64?

    /// One stretch and the run that held things up during it.
    package struct Share: Codable, Sendable, Equatable {
      package var fromNanoseconds: Int64
      package var toNanoseconds: Int64
      package var durationNanoseconds: Int64
      /// How many runs were under way.
      package var busy: Int
      /// The id of the action whose run held things up, and that run's number.
      package var action: Int?
      package var run: Int?
      /// The thread that run ran on.
      package var thread: Int?

      enum CodingKeys: String, CodingKey {
        case busy, action, run, thread
        case fromNanoseconds = "from_ns"
        case toNanoseconds = "to_ns"
        case durationNanoseconds = "duration_ns"
      }
    }

    enum CodingKeys: String, CodingKey {
      case run, shares
      case dueNanoseconds = "due_ns"
      case beganNanoseconds = "began_ns"
      case latenessNanoseconds = "lateness_ns"
      case waitedFor = "waited_for"
      case omittedShares = "omitted_shares"
      case omittedNanoseconds = "omitted_ns"
    }

    /// The blame of `blame`'s run in `replay`, with ids for its actions and threads.
    package init(_ blame: LatenessBlame, in replay: ReplayEngine) {
      run = blame.run
      dueNanoseconds = blame.due
      beganNanoseconds = blame.began
      latenessNanoseconds = blame.lateness
      waitedFor = blame.basis.rawValue
      shares = blame.shares.map { share in
        Share(
          fromNanoseconds: share.from, toNanoseconds: share.to,
          durationNanoseconds: share.duration, busy: share.busy,
          action: share.action.map { Int(replay.action($0).id.rawValue) },
          run: share.action == nil ? nil : share.run, thread: share.thread.map { Int($0.rawValue) })
      }
      if blame.omittedShares > 0 {
        omittedShares = blame.omittedShares
        omittedNanoseconds = blame.omittedDuration
      }
    }
  }
}
