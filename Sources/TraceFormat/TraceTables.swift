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

  /// Makes a record.
  public init(id: UInt32, file: String, line: Int, function: String) {
    self.id = id
    self.file = file
    self.line = line
    self.function = function
  }
}

/// What the app called a piece of work: a short name and values (`WorkContext` in `Scheduling`),
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
