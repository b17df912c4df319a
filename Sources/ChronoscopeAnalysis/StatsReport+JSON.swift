import ChronoscopeTraceFormat

extension StatsReport {
  /// Writes the `stats --json` document of `traces` to `sink` a chunk at a time, each scheduler and
  /// thread as it is reached: memory is the chunk, not a tree of the document, so a million
  /// schedulers cost what their text costs. The bytes are those of ``json()`` for the same figures:
  /// keys sorted as `JSONSerialization` sorts them, and every character a terminal would act on
  /// escaped (`JSONEscaping`). No newline at the end.
  ///
  /// - Complexity: O(schedulers + threads); memory O(one chunk).
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
            schedulers: {
              for scheduler in statistics.schedulers {
                JSONWriterEncoder.encode(Scheduler(scheduler), to: writer)
                if writer.chunkIsFull { writer.flush() }
              }
            },
            threads: {
              for thread in statistics.threads {
                JSONWriterEncoder.encode(Thread(thread), to: writer)
              }
            })
        }
      }
      writer.flush()
    }
  }

  /// The `stats --json` document of this report, as ``writeJSON(_:to:)`` writes it: its
  /// `Codable` form, through the writer.
  package func json() -> [UInt8] { JSONWriterEncoder.bytes(of: self) }
}

extension StatsReport.File {
  /// A file's object, keys sorted, its schedulers and threads written by `schedulers` and `threads`.
  fileprivate static func write(
    file: String, span: Int64, activity: [Int], histogram: [String: Int], to writer: JSONWriter,
    schedulers: () -> Void, threads: () -> Void
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
    writer.key("schedulers")
    writer.arrayStart()
    schedulers()
    writer.arrayEnd()
    writer.member("span_ns", span)
    writer.key("threads")
    writer.arrayStart()
    threads()
    writer.arrayEnd()
    writer.objectEnd()
  }
}
