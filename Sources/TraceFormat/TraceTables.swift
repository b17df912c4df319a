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
