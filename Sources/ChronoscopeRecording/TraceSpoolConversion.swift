import ChronoscopeTraceFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns a recorder's spool (see `TraceSpool`) into its JSON Lines trace: the spool's records
/// are the calls its writer made, and a ``TraceWriter`` makes them again, so the trace is the one
/// the recorder would have written directly — time order, dense action ids, each definition just
/// before its first use, the end marker's counts.
///
/// A spool is read as untrusted input, as a trace is: a record that cannot be read ends the
/// conversion there with an error, one cut short (a process killed mid-write) with a warning, and
/// what came before is converted either way. A spool without its close or crash record gives a
/// trace without its end marker, as a recording killed outright does.
///
/// SPI for the benchmarks, which time the conversion `chronoscope record` runs after the
/// program (`Benchmarks/Sources/PreloadBenchmark`).
@_spi(Benchmarks) public enum TraceSpoolConversion {
  /// The trace converted from the spool in `bytes`, and what converting it found; `file` names
  /// the spool in diagnostics.
  package static func convert(_ bytes: UnsafeRawBufferPointer, file: String) -> (
    lines: [UInt8], diagnostics: [TraceDiagnostic]
  ) {
    let sink = TraceByteSink()
    let converted = convert(bytes, file: file, into: sink)
    return (sink.bytes, converted.diagnostics)
  }

  /// Converts the spool in `bytes` into `sink`; returns what converting found, and whether
  /// there was a trace to write (a header) at all.
  private static func convert(
    _ bytes: UnsafeRawBufferPointer, file: String, into sink: TraceByteSink
  ) -> (diagnostics: [TraceDiagnostic], started: Bool) {
    var diagnostics: [TraceDiagnostic] = []
    func say(_ severity: TraceDiagnostic.Severity, _ error: TraceSpool.ReadError) {
      diagnostics.append(
        TraceDiagnostic(
          severity: severity, file: file, line: 0, column: 0,
          message: "the recorder's spool, \(error)"
            + (error.isCutShort
              ? " (its process ended while writing it); converted up to there"
              : "; converted up to there")))
    }
    var reader: TraceSpool.Reader
    do throws(TraceSpool.ReadError) {
      reader = try TraceSpool.Reader(bytes)
    } catch {
      say(.error, error)
      return (diagnostics, false)
    }
    let headerLine = Array(reader.headerLine)
    guard let header = TraceReader.parse(headerLine, file: file).trace?.header else {
      diagnostics.append(
        TraceDiagnostic(
          severity: .error, file: file, line: 0, column: 0,
          message: "the recorder's spool has no trace header after its first line"))
      return (diagnostics, false)
    }
    var writer = TraceWriter(buffer: sink)
    _ = writer.writeHeader(header)
    var runs: [[TraceEvent]] = []
    var ended = false
    while !ended {
      let record: TraceSpool.Record?
      do throws(TraceSpool.ReadError) {
        record = try reader.next()
      } catch {
        say(error.isCutShort ? .warning : .error, error)
        break
      }
      guard let record else { break }
      switch record {
      case .run:
        runs.append([])
      case .event(let event):
        if runs.isEmpty { runs.append([]) }
        runs[runs.count - 1].append(event)
      case .batchEnd(let cut, let dropped):
        writer.write(runs: runs, upTo: cut, dropped: dropped)
        runs.removeAll()
      case .definitions(let spooled):
        writer.define(RecorderCore.Definitions(spooled))
      case .thread(let id, let name):
        writer.nameThread(id, name)
      case .close(let time):
        if !runs.isEmpty { writer.write(runs: runs, upTo: time, dropped: 0) }
        runs.removeAll()
        writer.close(time: time)
        ended = true
      case .crash(let time, let thread, let signal):
        if !runs.isEmpty { writer.write(runs: runs, upTo: time, dropped: 0) }
        runs.removeAll()
        writer.writeCrash(time: time, thread: thread, signal: signal)
        ended = true
      case .writeFailed(let time, let dropped, let reason):
        // The flush the failure cut short is left out, as a killed process's is.
        _ = writer.endCutShort(unfinished: runs.reduce(0) { $0 + $1.count })
        runs.removeAll()
        writer.writeFailure(time: time, dropped: dropped, reason: reason)
        ended = true
      }
    }
    if !ended {
      // Killed before it closed: no end marker, as a trace written directly would have none.
      let unfinished = runs.reduce(0) { $0 + $1.count }
      let lost = writer.endCutShort(unfinished: unfinished)
      if lost > 0 {
        diagnostics.append(
          TraceDiagnostic(
            severity: .warning, file: file, line: 0, column: 0,
            message:
              "the recorder's spool stops without its end (its process was killed, or is still running): the \(lost) event(s) of its last, unfinished flush are left out, counted as dropped"
          ))
      }
    } else if reader.offset < bytes.count {
      diagnostics.append(
        TraceDiagnostic(
          severity: .warning, file: file, line: 0, column: 0,
          message:
            "the recorder's spool goes on for \(bytes.count - reader.offset) bytes after its end; they were not read"
        ))
    }
    return (diagnostics, true)
  }

  /// Converts the spool at `path` to its trace in place: the trace is written beside it and
  /// renamed over it, so a reader sees the spool or the whole trace. Returns what converting
  /// found, or nil when the file is no spool (it is left alone); throws when the file cannot be
  /// read or the trace cannot be written (the spool is then left as it was).
  public static func convertInPlace(path: String) throws(ConversionError) -> [TraceDiagnostic]? {
    guard let mapped = MappedTraceFile(path: path) else {
      throw ConversionError(description: "cannot read \(path)")
    }
    let isSpool = mapped.withBytes { TraceSpool.isSpool(UnsafeRawBufferPointer($0)) }
    guard isSpool else { return nil }
    let output: OutputFile
    do throws(OutputFile.Failure) {
      output = try OutputFile(path: path)
    } catch {
      throw ConversionError(description: error.description)
    }
    // Written as it is converted, a few MiB at a time: a spool of gigabytes never becomes a
    // trace of gigabytes in memory.
    var failure: OutputFile.Failure?
    let sink = TraceByteSink { lines in
      guard failure == nil else { return }
      do throws(OutputFile.Failure) { try output.write(lines) } catch { failure = error }
    }
    let (diagnostics, started) = mapped.withBytes { bytes in
      convert(UnsafeRawBufferPointer(bytes), file: path, into: sink)
    }
    guard started else {
      // Nothing to put in its place: the spool stays, and says why when read.
      output.abandon()
      throw ConversionError(
        description: diagnostics.first.map(\.message).map { "\(path): \($0)" }
          ?? "\(path) holds no trace")
    }
    if mapped.changed {
      output.abandon()
      throw ConversionError(description: "\(path) changed while it was converted")
    }
    do throws(OutputFile.Failure) {
      if let failure { throw failure }
      try output.write(sink.bytes)
      try output.commit()
    } catch {
      output.abandon()
      throw ConversionError(description: error.description)
    }
    return diagnostics
  }

  /// Why a spool could not be converted in place.
  public struct ConversionError: Error, CustomStringConvertible {
    public var description: String
  }
}

extension RecorderCore.Definitions {
  /// The definitions of a spool's record, as the writer takes them.
  init(_ spooled: TraceSpool.Definitions) {
    self.init()
    schedulers = spooled.schedulers
    sites = spooled.sites
    marks = spooled.marks.map { ($0.index, $0.value) }
    works = spooled.works.map { ($0.index, $0.value) }
    taskNames = spooled.taskNames.map { ($0.index, $0.value) }
  }
}
