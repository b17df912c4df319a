import ChronoscopeTraceFormat

extension StatsReport {
  /// Writes the `stats --json` document of `traces` to `sink` a chunk at a time, each queue and
  /// thread as it is reached: memory is the chunk, not a tree of the document, so a million
  /// queues cost what their text costs. The bytes are those of ``json()`` for the same figures:
  /// keys sorted as `JSONSerialization` sorts them, and every character a terminal would act on
  /// escaped (`JSONEscaping`). No newline at the end.
  ///
  /// - Complexity: O(queues + threads); memory O(one chunk).
  @_spi(Benchmarks) public static func writeJSON(
    _ traces: [(file: String, statistics: TraceStatistics)],
    to sink: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    withoutActuallyEscaping(sink) { sink in
      let writer = JSONWriter(chunk: 1 << 16, sink: sink)
      writer.report(schema: schemaName, version: currentVersion) {
        for trace in traces {
          let statistics = trace.statistics
          File.write(
            file: trace.file, span: statistics.span, activity: statistics.activity,
            histogram: Dictionary(
              zip(TraceStatistics.latenessBuckets, statistics.latenessHistogram),
              uniquingKeysWith: +), to: writer,
            queues: {
              for queue in statistics.queues {
                Queue(queue).write(to: writer)
                if writer.chunkIsFull { writer.flush() }
              }
            },
            threads: {
              for thread in statistics.threads { Thread(thread).write(to: writer) }
            })
        }
      }
      writer.flush()
    }
  }

  /// The `stats --json` document of this report, as ``writeJSON(_:to:)`` writes it.
  package func json() -> [UInt8] {
    var bytes: [UInt8] = []
    let writer = JSONWriter { bytes.append(contentsOf: $0) }
    writer.report(schema: schema, version: version) {
      for file in files {
        File.write(
          file: file.file, span: file.spanNanoseconds, activity: file.activity,
          histogram: file.latenessHistogram, to: writer,
          queues: { for queue in file.queues { queue.write(to: writer) } },
          threads: { for thread in file.threads { thread.write(to: writer) } })
      }
    }
    writer.flush()
    return bytes
  }
}

extension StatsReport.File {
  /// A file's object, keys sorted, its queues and threads written by `queues` and `threads`.
  fileprivate static func write(
    file: String, span: Int64, activity: [Int], histogram: [String: Int], to writer: JSONWriter,
    queues: () -> Void, threads: () -> Void
  ) {
    writer.objectStart()
    writer.key("activity")
    writer.array(activity)
    writer.member("file", file)
    writer.key("lateness_histogram")
    writer.objectStart()
    for bucket in JSONWriter.sortedKeys(histogram.keys) {
      writer.key(bucket)
      writer.value(histogram[bucket] ?? 0)
    }
    writer.objectEnd()
    writer.key("queues")
    writer.arrayStart()
    queues()
    writer.arrayEnd()
    writer.member("span_ns", span)
    writer.key("threads")
    writer.arrayStart()
    threads()
    writer.arrayEnd()
    writer.objectEnd()
  }
}

extension StatsReport.Queue {
  func write(to writer: JSONWriter) {
    writer.objectStart()
    if let window = busiest100ms {
      writer.key("busiest_100ms")
      writer.objectStart()
      writer.member("busy_ns", window.busyNanoseconds)
      writer.member("start_ns", window.startNanoseconds)
      writer.objectEnd()
    }
    writer.member("cancelled", cancelled)
    writer.member("kind", kind)
    writer.member("label", label)
    writer.key("lateness_ns")
    latenessNanoseconds.write(to: writer)
    writer.member("lost", lost)
    writer.member("peak_concurrency", peakConcurrency)
    writer.member("queue_id", queueID)
    writer.member("ran", ran)
    writer.key("run_ns")
    runNanoseconds.write(to: writer)
    writer.member("runs", runs)
    writer.member("scheduled", scheduled)
    writer.member("utilisation", utilisation)
    writer.key("wait_ns")
    waitNanoseconds.write(to: writer)
    writer.objectEnd()
  }
}

extension StatsReport.Distribution {
  func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.member("count", count)
    writer.member("max", max)
    writer.member("p50", p50)
    writer.member("p90", p90)
    writer.member("p99", p99)
    writer.objectEnd()
  }
}

extension StatsReport.Thread {
  func write(to writer: JSONWriter) {
    writer.objectStart()
    writer.member("busy_ns", busyNanoseconds)
    writer.member("thread_id", threadID)
    writer.member("title", title)
    writer.objectEnd()
  }
}
