import Replay
import TraceFormat

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
  public static func writeJSON(
    _ traces: [(file: String, replay: ReplayEngine, findings: [Finding])],
    to sink: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    withoutActuallyEscaping(sink) { sink in
      let writer = JSONWriter(chunk: 1 << 16, sink: sink)
      writer.report(schema: schemaName, version: currentVersion) {
        for trace in traces {
          writer.objectStart()
          writer.key("file")
          writer.value(trace.file)
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
  public func json() -> [UInt8] {
    var bytes: [UInt8] = []
    let writer = JSONWriter { bytes.append(contentsOf: $0) }
    writer.report(schema: schema, version: version) {
      for file in files {
        writer.objectStart()
        writer.key("file")
        writer.value(file.file)
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
    writer.key("action")
    writer.value(action)
    if let blame {
      writer.key("blame")
      blame.write(to: writer)
    }
    if let durationNanoseconds {
      writer.key("duration_ns")
      writer.value(durationNanoseconds)
    }
    writer.key("kind")
    writer.value(kind)
    writer.key("message")
    writer.value(message)
    if let queue {
      writer.key("queue")
      writer.value(queue)
    }
    writer.key("queue_id")
    writer.value(queueID)
    writer.key("related")
    writer.array(related)
    writer.key("severity")
    writer.value(severity)
    if let site {
      writer.key("site")
      writer.objectStart()
      writer.key("file")
      writer.value(site.file)
      writer.key("function")
      writer.value(site.function)
      writer.key("line")
      writer.value(site.line)
      writer.objectEnd()
    }
    writer.key("time_ns")
    writer.value(timeNanoseconds)
    if let work {
      writer.key("work")
      writer.objectStart()
      writer.key("name")
      writer.value(work.name)
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
    writer.key("began_ns")
    writer.value(beganNanoseconds)
    writer.key("due_ns")
    writer.value(dueNanoseconds)
    writer.key("lateness_ns")
    writer.value(latenessNanoseconds)
    if let omittedNanoseconds {
      writer.key("omitted_ns")
      writer.value(omittedNanoseconds)
    }
    if let omittedShares {
      writer.key("omitted_shares")
      writer.value(omittedShares)
    }
    writer.key("run")
    writer.value(run)
    writer.key("shares")
    writer.arrayStart()
    for share in shares {
      writer.objectStart()
      if let action = share.action {
        writer.key("action")
        writer.value(action)
      }
      writer.key("busy")
      writer.value(share.busy)
      writer.key("duration_ns")
      writer.value(share.durationNanoseconds)
      writer.key("from_ns")
      writer.value(share.fromNanoseconds)
      if let run = share.run {
        writer.key("run")
        writer.value(run)
      }
      if let thread = share.thread {
        writer.key("thread")
        writer.value(thread)
      }
      writer.key("to_ns")
      writer.value(share.toNanoseconds)
      writer.objectEnd()
    }
    writer.arrayEnd()
    writer.key("waited_for")
    writer.value(waitedFor)
    writer.objectEnd()
  }
}
