import TraceFormat

extension Redaction {
  /// Shortens the lines of `trace` that redaction made too long for a reader — the header, a
  /// mark — by leaving out the entries that do not fit, and says which.
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
    var markTimes: [Int: Int64]?
    for (index, mark) in trace.marks.enumerated() {
      // The longest the mark's line can be, whatever its time and thread.
      let length = { (fields: [String: String]) in
        var encoder = TraceEncoder()
        encoder.event(
          .mark(time: TraceLimits.maximumTime, thread: .max, mark: 0),
          mark: MarkRecord(name: mark.name, fields: fields))
        return encoder.bytes.count - 1
      }
      guard length(mark.fields) > TraceReader.maximumLineLength else { continue }
      // Which mark it is, for the summary: found once, and only for a trace that needs it.
      let times =
        markTimes
        ?? Dictionary(
          trace.events.compactMap { event in event.markIndex.map { ($0, event.time) } },
          uniquingKeysWith: { first, _ in first })
      markTimes = times
      let line = Shortening.Line.mark(index, time: times[index] ?? 0)
      if let (fields, shortening) = fitted(mark.fields, in: line, first: [], length: length) {
        trace.marks[index].fields = fields
        shortened.append(shortening)
      }
    }
    var workTimes: [Int: Int64]?
    for (index, work) in trace.works.enumerated() {
      // The longest the work's line can be, whatever its time and action.
      let length = { (fields: [String: String]) in
        var encoder = TraceEncoder()
        encoder.event(
          .work(time: TraceLimits.maximumTime, action: .max, work: 0),
          work: WorkRecord(name: work.name, fields: fields))
        return encoder.bytes.count - 1
      }
      guard length(work.fields) > TraceReader.maximumLineLength else { continue }
      let times =
        workTimes
        ?? Dictionary(
          trace.events.compactMap { event in event.workIndex.map { ($0, event.time) } },
          uniquingKeysWith: { first, _ in first })
      workTimes = times
      let line = Shortening.Line.work(index, time: times[index] ?? 0)
      if let (fields, shortening) = fitted(work.fields, in: line, first: [], length: length) {
        trace.works[index].fields = fields
        shortened.append(shortening)
      }
    }
    return shortened
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
