// Distinct types for the numbers a replay juggles. A trace's action id, the replay's dense index of
// an action and a position in the event list are all small integers; wrapping each in its own type
// makes passing one where another is meant a compile error, at no cost at run time.

/// An action's id as written in the trace (`"a"`), which users see as `#12`.
@_spi(Benchmarks)
public struct ActionID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The id in the file.
  @_spi(Benchmarks) public let rawValue: UInt32

  /// Wraps an id read from a trace or typed by a user.
  @_spi(Benchmarks) public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// `#12`: the one notation for actions, on screen, in messages and in search.
  @_spi(Benchmarks) public var description: String { "#\(rawValue)" }

  /// Reads an id as a user types it: `#12`, or `12` where nothing else could be meant (an
  /// option that takes only an action); surrounding spaces are ignored. Nil for anything else.
  ///
  /// - Parameter requiringHash: True where `12` alone means something else (a search for the
  ///   text `12`, a time), so only `#12` is an action.
  package init?(parsing text: some StringProtocol, requiringHash: Bool = false) {
    var trimmed = Substring(text).drop(while: \.isWhitespace)
    while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
    let hash = trimmed.first == "#"
    guard hash || !requiringHash else { return nil }
    let digits = hash ? trimmed.dropFirst() : trimmed
    // Digits only: `UInt32("+12")` would take a sign no id is written with.
    guard !digits.isEmpty,
      digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
      let raw = UInt32(digits)
    else { return nil }
    self.init(rawValue: raw)
  }

  @_spi(Benchmarks) public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}

/// An action's place in a replay's action table: dense, from 0, in order of scheduling.
@_spi(Benchmarks) public struct ActionIndex: Hashable, Comparable, Sendable {
  package let rawValue: UInt32

  package init(_ rawValue: UInt32) { self.rawValue = rawValue }
  package init(_ rawValue: Int) { self.rawValue = UInt32(truncatingIfNeeded: rawValue) }

  /// The index, for tables indexed by action in the package's own modules.
  package var int: Int { Int(rawValue) }

  @_spi(Benchmarks) public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}

/// An event's place in a replay's time-ordered event list, from 0. Users see event numbers from 1
/// (``number``), written `e120`.
@_spi(Benchmarks) public struct EventIndex: Hashable, Comparable, Strideable, Sendable {
  /// The offset in the event list.
  package let offset: Int

  /// Wraps an offset; see ``ReplayEngine/eventIndices`` for the valid ones.
  package init(_ offset: Int) { self.offset = offset }

  /// The 1-based number users see.
  package var number: Int { offset + 1 }

  @_spi(Benchmarks) public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
  @_spi(Benchmarks) public func distance(to other: Self) -> Int { other.offset - offset }
  @_spi(Benchmarks) public func advanced(by n: Int) -> Self { Self(offset + n) }
}

/// A scheduler's id in the trace (`"q"`): one scheduler, one lane.
@_spi(Benchmarks) public struct SchedulerID: RawRepresentable, Hashable, Comparable, Sendable {
  /// The id in the file.
  @_spi(Benchmarks) public let rawValue: UInt32

  /// Wraps an id read from a trace.
  @_spi(Benchmarks) public init(rawValue: UInt32) { self.rawValue = rawValue }

  @_spi(Benchmarks) public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}

/// A thread's id in the trace (`"th"`).
@_spi(Benchmarks) public struct ThreadID: RawRepresentable, Hashable, Comparable, Sendable {
  /// The id in the file.
  @_spi(Benchmarks) public let rawValue: UInt32

  /// Wraps an id read from a trace.
  @_spi(Benchmarks) public init(rawValue: UInt32) { self.rawValue = rawValue }

  @_spi(Benchmarks) public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}

/// A Swift task's id as the runtime numbers it (the `task` lines of a trace), which users see as
/// `task 42`, as `ExecutorJob`'s description prints it.
@_spi(Benchmarks)
public struct TaskID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The runtime's id.
  @_spi(Benchmarks) public let rawValue: UInt64

  /// Wraps an id read from a trace.
  @_spi(Benchmarks) public init(rawValue: UInt64) { self.rawValue = rawValue }

  /// `task 42`.
  @_spi(Benchmarks) public var description: String { "task \(rawValue)" }

  @_spi(Benchmarks) public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}
