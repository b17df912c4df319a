/// A scheduler as recorded: the lane a trace viewer draws.
public struct SchedulerRecord: Sendable, Equatable {
  /// The scheduler's id in events.
  public var id: UInt32
  /// Its label.
  public var label: String
  /// `serial`, `concurrent` or `main`.
  public var kind: String
  /// `dispatch`, `operation-queue`, `immediate`, `virtual`, …
  public var family: String
  /// When it was made, in trace time.
  public var time: Int64

  /// Makes a record.
  public init(id: UInt32, label: String, kind: String, family: String, time: Int64) {
    self.id = id
    self.label = label
    self.kind = kind
    self.family = family
    self.time = time
  }
}

/// A place in the source where work was scheduled.
public struct CallSiteRecord: Sendable, Hashable {
  /// The site's id in events.
  public var id: UInt32
  /// `Module/File.swift`.
  public var file: String
  /// The line.
  public var line: Int
  /// The enclosing function.
  public var function: String

  /// Where the site is in machine code, for a site captured as a return address (a program
  /// recorded by `chronoscope record`): until it is symbolized, `file` names the module and
  /// `function` the offset.
  public var code: CodeLocation?

  /// Makes a record.
  public init(id: UInt32, file: String, line: Int, function: String, code: CodeLocation? = nil) {
    self.id = id
    self.file = file
    self.line = line
    self.function = function
    self.code = code
  }
}

/// An address in a loaded module, as a symbolizer needs it: the module's file, the address's
/// offset from where the module was loaded, and the module's build id, which tells whether the
/// file on disk is still the one that ran.
public struct CodeLocation: Sendable, Hashable {
  /// The module's path as the dynamic linker loaded it.
  public var module: String
  /// The offset of the address in the module (what `llvm-symbolizer --obj=MODULE` takes).
  public var offset: UInt64
  /// The module's GNU build id in hex, or empty when it has none.
  public var buildID: String
  /// The offset, in the same module, of the frame that called this one, if known: the site to
  /// show when this one turns out to be library code compiled into the module (a generic
  /// function of the standard library, specialized there).
  public var callerOffset: UInt64?

  /// Makes a location.
  public init(module: String, offset: UInt64, buildID: String, callerOffset: UInt64? = nil) {
    self.module = module
    self.offset = offset
    self.buildID = buildID
    self.callerOffset = callerOffset
  }
}

/// What the app called a piece of work: a short name and values (`WorkContext` in `ChronoscopeScheduling`),
/// written on a `work` line just after the action's `schedule`.
public struct WorkRecord: Sendable, Hashable {
  /// The work's name (`search "swift"`); empty when the app gave only values.
  public var name: String
  /// Its values, by key (`request: 42`).
  public var fields: [String: String]

  /// Makes a record.
  public init(name: String, fields: [String: String] = [:]) {
    self.name = name
    self.fields = fields
  }

  /// The name, then the values as `key=value` in key order: what a view shows of the work.
  public var summary: String {
    let values = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return ([name].filter { !$0.isEmpty } + values).joined(separator: " ")
  }
}

/// A moment the app marked, with optional details.
public struct MarkRecord: Sendable, Equatable {
  /// What happened ("login tapped").
  public var name: String
  /// Details, sorted by key.
  public var fields: [String: String]

  /// Makes a record.
  public init(name: String, fields: [String: String] = [:]) {
    self.name = name
    self.fields = fields
  }
}
