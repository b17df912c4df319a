import ChronoscopeTraceFormat

extension ReplayEngine {
  /// Reads the trace file at `path` and prepares its replay as the lines are read: the replay's
  /// tables are made from each stretch of the file as soon as it is read, so the trace's events
  /// (48 bytes each) never exist whole. On ten million events that is the half gigabyte
  /// ``init(consuming:keyframeInterval:makingKeyframes:progress:)`` still needs at the end of
  /// reading.
  ///
  /// A file read on one core (a small one, or a pipe) is read whole and then prepared as that
  /// initializer does. A file out of time order is read again from the start and sorted: up to
  /// twice the reading, when its first line out of order comes late.
  ///
  /// - Parameters:
  ///   - keyframeInterval: Events between snapshots of the live sets.
  ///   - makingKeyframes: Whether to make those snapshots now (see ``makeKeyframes(progress:)``).
  ///   - reading: Called now and then with the fraction of the file read (the preparing that
  ///     goes with it included).
  ///   - preparing: Called now and then with the fraction of what is left to prepare.
  /// - Returns: What reading found — diagnostics, counts, and why the file is not a trace when
  ///   it is not — and the replay, unless the file could not be read or has errors. When there
  ///   is a replay, the reading holds no trace: the replay has it.
  @_spi(Benchmarks) public static func read(
    path: String, keyframeInterval: Int = 4096, makingKeyframes: Bool = true,
    reading: ((Double) -> Void)? = nil, preparing: ((Double) -> Void)? = nil
  ) -> (reading: TraceReading, replay: ReplayEngine?) {
    let read = read(
      path: path, workers: nil, keyframeInterval: keyframeInterval,
      makingKeyframes: makingKeyframes, reading: reading, preparing: preparing)
    return (read.reading, read.replay)
  }

  /// How ``read(path:keyframeInterval:makingKeyframes:reading:preparing:)`` prepared a replay.
  package enum Preparation: Sendable, Equatable {
    /// From each stretch of the file as it was read.
    case whileReading
    /// From the trace read whole: read on one core, or not a trace.
    case afterReading
    /// Read again and sorted: an event came earlier than the one before it.
    case afterReadingAgain
  }

  /// ``read(path:keyframeInterval:makingKeyframes:reading:preparing:)`` on `workers` threads
  /// (nil: as the reader chooses), saying how it prepared the replay.
  package static func read(
    path: String, workers: Int?, keyframeInterval: Int = 4096, makingKeyframes: Bool = true,
    reading: ((Double) -> Void)? = nil, preparing: ((Double) -> Void)? = nil
  ) -> (reading: TraceReading, replay: ReplayEngine?, preparation: Preparation) {
    prepare(keyframeInterval: keyframeInterval, makingKeyframes: makingKeyframes, preparing) {
      stream in
      TraceReader.read(
        path: path, workers: workers, pageChunk: PageRelease.defaultChunk, streamingTo: stream,
        progress: reading)
    }
  }

  /// What ``read(path:workers:keyframeInterval:makingKeyframes:reading:preparing:)`` does, for
  /// trace bytes in memory (`file` names them in diagnostics): for the fuzz targets.
  package static func parse(
    _ bytes: UnsafeBufferPointer<UInt8>, file: String, workers: Int, keyframeInterval: Int = 4096
  ) -> (reading: TraceReading, replay: ReplayEngine?, preparation: Preparation) {
    prepare(keyframeInterval: keyframeInterval, makingKeyframes: true, nil) { stream in
      TraceReader.parse(bytes, file: file, workers: workers, streamingTo: stream)
    }
  }

  /// Reads with `read`, handing it a stream that makes the replay's tables; reads again
  /// without one when the stream refuses events out of time order.
  private static func prepare(
    keyframeInterval: Int, makingKeyframes: Bool, _ preparing: ((Double) -> Void)?,
    reading read: (TraceEventStream?) -> TraceReading
  ) -> (reading: TraceReading, replay: ReplayEngine?, preparation: Preparation) {
    let builder = TablesBuilder()
    var result = read(builder)
    var preparation = builder.received > 0 ? Preparation.whileReading : .afterReading
    if builder.refused {
      // Out of time order: what was made is of no use, and the events it took are gone.
      result = read(nil)
      preparation = .afterReadingAgain
    }
    guard !result.hasErrors, let trace = result.trace.take() else {
      return (result, nil, preparation)
    }
    let replay =
      preparation == .whileReading
      ? ReplayEngine(
        trace: trace, built: builder, keyframeInterval: keyframeInterval,
        makingKeyframes: makingKeyframes, progress: preparing)
      : ReplayEngine(
        consuming: trace, keyframeInterval: keyframeInterval, makingKeyframes: makingKeyframes,
        progress: preparing)
    return (result, replay, preparation)
  }
}
