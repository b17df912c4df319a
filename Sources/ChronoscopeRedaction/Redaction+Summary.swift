@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

extension Redaction {
  /// What a redaction replaces, for its ``Summary``.
  package enum Field: String, CaseIterable, Sendable {
    /// A scheduler's label.
    case label
    /// A call site's file.
    case file
    /// A call site's function.
    case function
    /// A thread's name.
    case threadName = "thread name"
    /// A mark's name.
    case markName = "mark name"
    /// A mark's field (its key and its value).
    case markField = "mark field"
    /// The name of named work (a `WorkContext`'s).
    case workName = "work name"
    /// A value of named work (its key and its value).
    case workValue = "work value"
    /// A Swift task's name.
    case taskName = "task name"
    /// A header metadata entry (its key and its value).
    case metadata = "metadata entry"
    /// The header's process name.
    case process = "process name"
    /// The header's pid.
    case pid
    /// A scheduler kind or family, a crash signal, or a `start` (or the text after its time)
    /// that is not the format's own.
    case other = "other value"

    /// The name of several.
    package var plural: String { self == .metadata ? "metadata entries" : rawValue + "s" }
  }

  /// What a redaction did, counted per ``Field``.
  package struct Summary: Sendable, Equatable, CustomStringConvertible {
    /// Entries replaced, by field. A mark field or metadata entry counts once for its key and
    /// value.
    package private(set) var replaced: [Field: Int] = [:]
    /// Labels and thread names kept because ``Redaction/keep`` matched them, by field.
    package private(set) var keptByPattern: [Field: Int] = [:]
    /// Values left alone because they were already redacted with this salt.
    package internal(set) var alreadyRedacted = 0
    /// What ``Redaction/drop`` left out.
    package internal(set) var dropped: Set<Drop> = []
    /// The lines that would have been too long for a reader, and what was left out of them.
    package internal(set) var shortened: [Shortening] = []

    /// How many entries of `field` were replaced.
    package func count(of field: Field) -> Int { replaced[field] ?? 0 }

    /// How many entries of `field` ``Redaction/keep`` kept.
    package func countKept(of field: Field) -> Int { keptByPattern[field] ?? 0 }

    mutating func add(_ field: Field) { replaced[field, default: 0] += 1 }

    mutating func keep(_ field: Field) { keptByPattern[field, default: 0] += 1 }

    /// `replaced 12 labels (1 kept by --keep), 5 files, …; 3 already redacted`.
    package var description: String {
      var parts = Field.allCases.compactMap { field -> String? in
        let count = count(of: field)
        let kept = countKept(of: field)
        guard count > 0 || kept > 0 || field == .label else { return nil }
        let name = count == 1 ? field.rawValue : field.plural
        return kept > 0 ? "\(count) \(name) (\(kept) kept by --keep)" : "\(count) \(name)"
      }
      if alreadyRedacted > 0 { parts.append("\(alreadyRedacted) already redacted, left alone") }
      var text = "replaced " + parts.joined(separator: ", ")
      let drops = Drop.allCases.filter(dropped.contains)
      if !drops.isEmpty { text += "; dropped " + drops.map(\.summary).joined(separator: ", ") }
      for shortening in shortened { text += "; \(shortening)" }
      return text
    }
  }

  /// A line whose redacted form would pass ``TraceReader/maximumLineLength``, so that readers
  /// would not read it: its entries that did not fit were left out.
  package struct Shortening: Sendable, Equatable, CustomStringConvertible {
    /// A line that can grow past the limit: one with many entries.
    package enum Line: Sendable, Equatable {
      /// The header, with its metadata.
      case header
      /// A mark, with its fields: its position in ``Trace/marks`` and its time.
      case mark(Int, time: Int64)
      /// Named work, with its values: its position in ``Trace/works`` and its time.
      case work(Int, time: Int64)
    }

    /// Which line.
    package var line: Line
    /// The length the line would have had, in bytes without its newline.
    package var length: Int
    /// Entries left out: the header's metadata entries, the mark's fields or the work's values.
    package var leftOut: Int
    /// Entries it had.
    package var entries: Int

    init(_ line: Line, length: Int, leftOut: Int, entries: Int) {
      (self.line, self.length, self.leftOut, self.entries) = (line, length, leftOut, entries)
    }

    /// `the header would be 1234567 bytes long, over the 1048576 a line may hold: left out …`.
    package var description: String {
      let (name, entryName) =
        switch line {
        case .header: ("the header", "metadata entries")
        case .mark(_, let time): ("the mark at \(TimeText.seconds(time))", "fields")
        case .work(_, let time): ("the work line at \(TimeText.seconds(time))", "values")
        }
      return
        "\(name) would be \(length) bytes long, over the \(TraceReader.maximumLineLength) a line may hold: left out \(leftOut) of its \(entries) \(entryName)"
    }
  }
}
