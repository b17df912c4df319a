import ChronoscopeTraceFormat

extension Redaction {
  /// Shortens the lines of `trace` that redaction made too long for a reader — the header, a
  /// mark, a work line — by leaving out the entries that do not fit, and says which.
  static func fitLines(_ trace: inout Trace) -> [Shortening] {
    var shortened: [Shortening] = []
    let header = trace.header
    if let (metadata, shortening) = fitted(
      header.metadata, in: .header, first: sliceKeys,
      length: { metadata in
        var header = header
        header.metadata = metadata
        var encoder = TraceEncoder()
        encoder.header(header)
        return encoder.bytes.count - 1
      })
    {
      trace.header.metadata = metadata
      shortened.append(shortening)
    }
    // A mark or a work line: the longest its line can be, whatever its time, thread or action.
    let (marks, works) = (trace.marks, trace.works)
    let longestMark = TraceEvent.mark(time: TraceLimits.maximumTime, thread: .max, mark: 0)
    let longestWork = TraceEvent.work(time: TraceLimits.maximumTime, action: .max, work: 0)
    for (index, fields, shortening) in fittedFields(
      marks.map(\.fields), events: trace.events, index: \.markIndex, line: Shortening.Line.mark,
      length: { lineLength(longestMark, mark: MarkRecord(name: marks[$0].name, fields: $1)) })
    {
      trace.marks[index].fields = fields
      shortened.append(shortening)
    }
    for (index, fields, shortening) in fittedFields(
      works.map(\.fields), events: trace.events, index: \.workIndex, line: Shortening.Line.work,
      length: { lineLength(longestWork, work: WorkRecord(name: works[$0].name, fields: $1)) })
    {
      trace.works[index].fields = fields
      shortened.append(shortening)
    }
    return shortened
  }

  /// The length of `event`'s line, without its newline.
  private static func lineLength(
    _ event: TraceEvent, mark: MarkRecord? = nil, work: WorkRecord? = nil
  ) -> Int {
    var encoder = TraceEncoder()
    encoder.event(event, mark: mark, work: work)
    return encoder.bytes.count - 1
  }

  /// For each of `records` (a table's fields, by index) whose line, `length(index, fields)`
  /// bytes long, a reader would not read: the fields that fit and what was left out, the line
  /// named by `line(index, time)` with the time of the event whose `index` names it.
  private static func fittedFields(
    _ records: [[String: String]], events: [TraceEvent], index: KeyPath<TraceEvent, Int?>,
    line: (Int, Int64) -> Shortening.Line, length: (Int, [String: String]) -> Int
  ) -> [(Int, [String: String], Shortening)] {
    var times: [Int: Int64]?
    var fitted: [(Int, [String: String], Shortening)] = []
    for (offset, fields) in records.enumerated()
    where length(offset, fields) > TraceReader.maximumLineLength {
      // Which line it is, for the summary: found once, and only for a trace that needs it.
      let found =
        times
        ?? Dictionary(
          events.compactMap { event in event[keyPath: index].map { ($0, event.time) } },
          uniquingKeysWith: { first, _ in first })
      times = found
      let named = line(offset, found[offset] ?? 0)
      if let (kept, shortening) = Self.fitted(
        fields, in: named, first: [], length: { length(offset, $0) })
      {
        fitted.append((offset, kept, shortening))
      }
    }
    return fitted
  }

  /// The most of `pairs` whose line, `length(pairs)` bytes long, a reader reads — the keys in
  /// `first`, then the others in the order they are written (by key) — or nil when all fit.
  ///
  /// - Complexity: O(`pairs.count`) calls of `length` on one entry; two on all that fit.
  private static func fitted(
    _ pairs: [String: String], in line: Shortening.Line, first: Set<String>,
    length: ([String: String]) -> Int
  ) -> ([String: String], Shortening)? {
    let full = length(pairs)
    guard full > TraceReader.maximumLineLength else { return nil }
    let order = pairs.keys.sorted {
      (first.contains($0) ? 0 : 1, $0) < (first.contains($1) ? 0 : 1, $1)
    }
    let prefix = { (count: Int) in
      Dictionary(uniqueKeysWithValues: order.prefix(count).map { ($0, pairs[$0] ?? "") })
    }
    // Each entry adds its own length, and a comma after the first: summed, not re-encoded.
    let empty = length([:])
    var (total, count) = (empty, 0)
    for key in order {
      let entry = length([key: pairs[key] ?? ""]) - empty + (count > 0 ? 1 : 0)
      guard total + entry <= TraceReader.maximumLineLength else { break }
      (total, count) = (total + entry, count + 1)
    }
    var kept = prefix(count)
    while count > 0, length(kept) > TraceReader.maximumLineLength {
      count -= 1
      kept = prefix(count)
    }
    return (
      kept, Shortening(line, length: full, leftOut: order.count - count, entries: order.count)
    )
  }
}
