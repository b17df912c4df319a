@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

extension FindingsReport {
  /// Writes the `check --json` document of `traces` to `sink` a chunk at a time, each finding
  /// as it is made: nothing but the chunk and one finding's entry is held, so a million
  /// findings cost what their text costs. The bytes are those of ``json()`` for the same
  /// findings: keys sorted, and every character a terminal would act on escaped
  /// (`JSONEscaping`). No newline at the end.
  ///
  /// - Parameters:
  ///   - traces: each trace's name, replay and the findings to report (as ``File/init(file:replay:findings:)``).
  ///   - sink: takes each chunk; the bytes are valid only during the call.
  /// - Complexity: O(findings + their blames); memory O(one chunk).
  @_spi(Benchmarks) public static func writeJSON(
    _ traces: [(file: String, replay: ReplayEngine, findings: [Finding])],
    to sink: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    withoutActuallyEscaping(sink) { sink in
      let writer = JSONWriter(chunk: 1 << 16, sink: sink)
      writer.report(schema: schemaName, version: currentVersion) {
        for trace in traces {
          writer.objectStart()
          writer.member("file", trace.file)
          writer.key("findings")
          writer.arrayStart()
          let blames = LatenessBlame.blames(for: trace.findings, in: trace.replay)
          for offset in trace.findings.indices {
            Entry(trace.findings[offset], blame: blames[offset], in: trace.replay).write(to: writer)
            if writer.chunkIsFull { writer.flush() }
          }
          writer.arrayEnd()
          writer.objectEnd()
        }
      }
      writer.flush()
    }
  }

  /// The `check --json` document of this report, as ``writeJSON(_:to:)`` writes it.
  package func json() -> [UInt8] {
    var bytes: [UInt8] = []
    let writer = JSONWriter { bytes.append(contentsOf: $0) }
    writer.report(schema: schema, version: version) {
      for file in files {
        writer.objectStart()
        writer.member("file", file.file)
        writer.key("findings")
        writer.arrayStart()
        for entry in file.findings { entry.write(to: writer) }
        writer.arrayEnd()
        writer.objectEnd()
      }
    }
    writer.flush()
    return bytes
  }
}

extension FindingsReport.Entry {
  /// The entry's object, keys sorted.
  func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.member("action", action)
    if let blame {
      writer.key("blame")
      blame.write(to: writer)
    }
    writer.member("duration_ns", durationNanoseconds)
    writer.member("kind", kind)
    writer.member("message", message)
    writer.member("queue", queue)
    writer.member("queue_id", queueID)
    writer.key("related")
    writer.array(related)
    writer.member("severity", severity)
    if let site {
      writer.key("site")
      writer.objectStart()
      writer.member("file", site.file)
      writer.member("function", site.function)
      writer.member("line", site.line)
      writer.objectEnd()
    }
    writer.member("time_ns", timeNanoseconds)
    if let work {
      writer.key("work")
      writer.objectStart()
      writer.member("name", work.name)
      writer.key("values")
      writer.object(work.values)
      writer.objectEnd()
    }
    writer.objectEnd()
  }
}

extension FindingsReport.Blame {
  func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.member("began_ns", beganNanoseconds)
    writer.member("due_ns", dueNanoseconds)
    writer.member("lateness_ns", latenessNanoseconds)
    writer.member("omitted_ns", omittedNanoseconds)
    writer.member("omitted_shares", omittedShares)
    writer.member("run", run)
    writer.key("shares")
    writer.arrayStart()
    for share in shares {
      writer.objectStart()
      writer.member("action", share.action)
      writer.member("busy", share.busy)
      writer.member("duration_ns", share.durationNanoseconds)
      writer.member("from_ns", share.fromNanoseconds)
      writer.member("run", share.run)
      writer.member("thread", share.thread)
      writer.member("to_ns", share.toNanoseconds)
      writer.objectEnd()
    }
    writer.arrayEnd()
    writer.member("waited_for", waitedFor)
    writer.objectEnd()
  }
}
