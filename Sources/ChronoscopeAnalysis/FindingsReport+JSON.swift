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
  ///   - traces: each trace's name, replay, what its reader said of its recording
  ///     (``TraceReading/fate``) and the findings to report (as
  ///     ``File/init(file:replay:recording:findings:)``).
  ///   - sink: takes each chunk; the bytes are valid only during the call.
  /// - Complexity: O(findings + their blames); memory O(one chunk).
  @_spi(Benchmarks) public static func writeJSON(
    _ traces: [(
      file: String, replay: ReplayEngine, recording: [TraceDiagnostic], findings: [Finding]
    )],
    to sink: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    withoutActuallyEscaping(sink) { sink in
      let writer = JSONWriter(chunk: 1 << 16, sink: sink)
      writer.report(schema: schemaName, version: currentVersion) {
        for trace in traces {
          writer.objectStart()
          writer.member("file", trace.file)
          // Members in key order, as the `Codable` form writes them: file, findings, recording.
          writer.key("findings")
          writer.arrayStart()
          let blames = LatenessBlame.blames(for: trace.findings, in: trace.replay)
          for offset in trace.findings.indices {
            JSONWriterEncoder.encode(
              Entry(trace.findings[offset], blame: blames[offset], in: trace.replay), to: writer)
            if writer.chunkIsFull { writer.flush() }
          }
          writer.arrayEnd()
          if !trace.recording.isEmpty {
            writer.key("recording")
            JSONWriterEncoder.encode(trace.recording.map(RecordingNote.init), to: writer)
          }
          writer.objectEnd()
        }
      }
      writer.flush()
    }
  }

  /// The `check --json` document of this report, as ``writeJSON(_:to:)`` writes it: its
  /// `Codable` form, through the writer.
  package func json() -> [UInt8] { JSONWriterEncoder.bytes(of: self) }
}
